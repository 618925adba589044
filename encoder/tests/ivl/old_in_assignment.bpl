// old(e) on the right of an assignment and in a call argument means the value on entry.
var g: int;

procedure Id(x: int) returns (y: int);
  ensures y == x;

procedure Main()
  modifies g;
{
  var before: int;
  var r: int;
  g := g + 1;
  before := old(g);
  assert before == g - 1;
  call r := Id(old(g));
  assert r == before;
  assert before == g; // fails: assert
}
