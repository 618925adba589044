// Real division is exact, unlike int div; claims assuming truncation fail.
procedure Main(i: int) returns (r: real)
  requires i > 0;
  ensures r == real(i) / 2.0;
{
  r := real(i) / 2.0;
  assert r * 2.0 == real(i);
  assert real(i div 2) <= r;
  assert real(i div 2) == r; // fails: assert
  assert r > 0.0;
  assert r >= 1.0;
  assert r > 1.0; // fails: assert
}
