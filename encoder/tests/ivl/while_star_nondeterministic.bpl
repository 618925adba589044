// while (*) runs an arbitrary number of iterations; only invariants are known after it.
procedure Main() returns (x: int, y: int)
  ensures x == y;
  ensures x >= 0;
{
  x := 0;
  y := 0;
  while (*)
    invariant x == y && x >= 0;
  {
    x := x + 1;
    y := y + 1;
  }
  assert x == 0; // fails: assert
}
