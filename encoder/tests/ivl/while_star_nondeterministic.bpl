// while (*) runs an arbitrary number of iterations; only invariants are known after it.
procedure Main() returns (r: int)
  ensures r >= 0;
{
  var x: int;
  var y: int;
  x := 0;
  y := 0;
  while (*)
    invariant x == y;
    invariant x >= 0;
  {
    x := x + 1;
    y := y + 1;
  }
  assert x == y;
  r := x;
  assert x == 0; // fails: assert
}

procedure Bounded() returns (x: int)
  ensures x <= 10;
{
  x := 0;
  while (*)
    invariant x <= 10;
  {
    if (x < 10) {
      x := x + 1;
    }
  }
}
