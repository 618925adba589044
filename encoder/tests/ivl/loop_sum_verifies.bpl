// Counting loops (int sum, and a real sum with a branch over a bool map) that verify.
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

procedure HalfCount(b: [int]bool, n: int) returns (w: real)
  requires n >= 0;
  ensures 0.0 <= w && w <= real(n) / 2.0;
{
  var i: int;
  i := 0;
  w := 0.0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant 0.0 <= w && w <= real(i) * 0.5;
  {
    if (b[i]) {
      w := w + 0.5;
    }
    i := i + 1;
  }
}
