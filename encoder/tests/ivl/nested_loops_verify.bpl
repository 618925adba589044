// Nested loops computing n * m by repeated increment; all invariants verify.
procedure Mul(n: int, m: int) returns (c: int)
  requires n >= 0 && m >= 0;
  ensures c == n * m;
{
  var i: int;
  var j: int;
  i := 0;
  c := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant c == i * m;
  {
    j := 0;
    while (j < m)
      invariant 0 <= j && j <= m;
      invariant c == i * m + j;
    {
      c := c + 1;
      j := j + 1;
    }
    i := i + 1;
  }
}
