// Real literals, real division and real(...) conversion from int.
procedure Main(i: int, x: real) returns (r: real)
  requires i >= 2;
  requires x > 0.0;
  ensures r > 0.0;
{
  assert 0.5 + 0.5 == 1.0;
  assert 1.0 / 4.0 == 0.25;
  assert 3.0 * 0.5 == 1.5;
  assert -2.5 < -2.0;
  assert real(3) == 3.0;
  assert real(i) >= 2.0;
  assert real(i) / 2.0 >= 1.0;
  assert x / 2.0 < x;
  r := x * real(i);
  assert r >= x + x;
}
