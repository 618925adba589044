// div and mod follow Euclidean semantics: 0 <= a mod b < |b| for negative operands too.
procedure Main()
{
  assert 7 div 2 == 3;
  assert 7 mod 2 == 1;
  assert -7 div 2 == -4;
  assert -7 mod 2 == 1;
  assert 7 div -2 == -3;
  assert 7 mod -2 == 1;
  assert -7 div -2 == 4;
  assert -7 mod -2 == 1;
  assert -6 div 3 == -2;
  assert -6 mod 3 == 0;
  assert -1 mod 5 == 4;
}
