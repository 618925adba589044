procedure p(x: int) returns (y: int)
  requires x > 0;
  ensures y > 1; // fails: postcondition
{
  y := x;
  assert y > 0;
  assert y > 5; // fails: assert
  assert y > 6;
}
