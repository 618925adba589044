// All comparison operators on ints, reals and bools.
procedure Main(x: int, y: int, p: real)
  requires x < y;
  requires p >= 1.5;
{
  assert x <= y;
  assert y > x;
  assert y >= x + 1;
  assert x != y;
  assert !(x == y);
  assert p > 1.0;
  assert p != 1.0;
  assert (x < y) == true;
  assert (x > y) != (x < y);
  assert y > x + 1; // fails: assert
  assert p <= 1.5; // fails: assert
}
