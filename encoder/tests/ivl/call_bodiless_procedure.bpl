// Calls to procedures without a body: only their specification (and modifies) is known.
var seed: int;

procedure Choose(lo: int, hi: int) returns (r: int);
  requires lo <= hi;
  ensures lo <= r && r <= hi;

procedure Log(x: int);

procedure NextSeed();
  modifies seed;
  ensures seed > old(seed);

procedure Main() returns (v: int)
  modifies seed;
  ensures 0 <= v && v <= 20;
{
  var a: int;
  var s: int;
  call a := Choose(0, 10);
  call Log(a);
  assert a >= 0;
  call v := Choose(a, a + 10);
  assert v >= a;
  s := seed;
  call NextSeed();
  assert seed > s;
  assert v == a; // fails: assert
  assert seed == s + 1; // fails: assert
}
