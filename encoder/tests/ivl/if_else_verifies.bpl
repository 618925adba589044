// if/else with braces computing absolute value; both paths verify.
procedure Abs(x: int) returns (r: int)
  ensures r >= 0;
  ensures r == x || r == -x;
{
  if (x < 0) {
    r := -x;
  } else {
    r := x;
  }
  assert r >= x;
}
