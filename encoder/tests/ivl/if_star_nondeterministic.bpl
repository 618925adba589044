// if (*) may take either branch; a claim true only for one branch fails.
procedure Main(x: int) returns (r: int)
  requires x > 0;
{
  if (*) {
    r := x;
  } else {
    r := -x;
  }
  assert r != 0;
  assert r > 0; // fails: assert
}
