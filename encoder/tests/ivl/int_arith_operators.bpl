// Integer +, -, *, unary minus and precedence, on literals and symbolic values.
procedure Main(x: int, y: int)
{
  assert 2 + 3 * 4 == 14;
  assert (2 + 3) * 4 == 20;
  assert 10 - 3 - 2 == 5;
  assert -(3 - 5) == 2;
  assert -x + x == 0;
  assert x * (y + 1) == x * y + x;
  assert (x - y) * (x + y) == x * x - y * y;
  assert -x * -y == x * y;
  assert x * x >= 0;
  assert x * y >= 0; // fails: assert
}
