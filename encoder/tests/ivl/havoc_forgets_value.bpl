// havoc erases what was known about variables; assume can constrain them again.
procedure Main() returns (r: int)
{
  var x: int;
  var y: int;
  x := 5;
  y := 7;
  havoc x;
  assert y == 7;
  assert x == 5; // fails: assert
  havoc x, y;
  assume x > 0 && y > x;
  assert y > 1;
  assert y > 2; // fails: assert
  r := x;
}
