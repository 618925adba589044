// The {:msg "..."} attribute on assert/ensures does not change the verification outcome.
procedure Main(x: int) returns (y: int)
  requires x >= 0;
  ensures {:msg "result is non-negative"} y >= 0;
  ensures y > x; // fails: postcondition
{
  y := x;
  assert {:msg "y equals x"} y == x;
  assert y > 10; // fails: assert
  assert {:msg "implied by the failed assert"} y > 5;
}
