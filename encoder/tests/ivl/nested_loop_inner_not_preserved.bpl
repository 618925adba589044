// Nested loops where the inner invariant is not preserved and an outer one fails on entry.
procedure Main(n: int) returns (c: int)
  requires n > 0;
{
  var i: int;
  var j: int;
  i := 0;
  c := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant c >= 0;
  {
    j := 0;
    while (j < i)
      invariant 0 <= j;
      invariant j <= i;
      invariant c >= 2 * j; // fails: invariant-preserved
    {
      c := c + 1;
      j := j + 1;
    }
    i := i + 1;
  }
  while (i > 0)
    invariant i < n; // fails: invariant-entry
  {
    i := i - 1;
  }
}
