// A single assertion that does not follow from the precondition fails.
procedure Main(x: int) returns (y: int)
  requires x >= 0;
{
  y := x + 1;
  assert y > 0;
  assert y > 1; // fails: assert
}
