// Code after assume false is unreachable, so even assert false verifies.
procedure Main(x: int) returns (y: int)
  ensures y == 42;
{
  y := x;
  assume false;
  assert false;
  assert x == x + 1;
  y := 0;
}

procedure Guarded(x: int)
{
  if (x > 0) {
    assume x < 0;
    assert false;
  } else {
    assert x <= 0;
  }
}
