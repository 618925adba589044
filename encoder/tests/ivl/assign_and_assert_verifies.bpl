// Straight-line assignments to locals and out-parameters; all asserts verify.
procedure Main(a: int, b: int) returns (r: int)
{
  var t: int;
  var u: int;
  t := a + b;
  u := t - b;
  assert u == a;
  r := u * 2;
  assert r == a + a;
  t := r;
  assert t == 2 * a;
}
