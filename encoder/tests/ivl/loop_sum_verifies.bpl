// A counting loop summing 0..n-1 with invariants that verify.
procedure Sum(n: int) returns (s: int)
  requires n >= 0;
  ensures 2 * s == n * (n - 1);
{
  var i: int;
  i := 0;
  s := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant 2 * s == i * (i - 1);
  {
    s := s + i;
    i := i + 1;
  }
  assert i == n;
}
