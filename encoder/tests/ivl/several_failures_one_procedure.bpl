// Several independent failures in one procedure are each reported.
var g: int;

procedure Main(x: int, y: int) returns (r: int)
  modifies g;
  ensures g == old(g) + 1;
  ensures r == x + y; // fails: postcondition
{
  assert x > 0; // fails: assert
  assert y > 0; // fails: assert
  g := g + 1;
  if (x > y) {
    r := x;
  } else {
    r := y;
    assert r == y;
  }
  assert r >= x;
  assert r > x; // fails: assert
}
