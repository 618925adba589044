// Symbolic div/mod: range of mod and the division identity for a nonzero divisor.
procedure Main(x: int, y: int)
  requires y != 0;
{
  assert x == y * (x div y) + x mod y;
  assert 0 <= x mod y;
  assert x mod 3 < 3;
  assert x mod 3 >= 0;
  assert (x * 2) mod 2 == 0;
  assert (2 * x + 1) mod 2 == 1;
  assert x mod y < y; // fails: assert
}
