// An invariant that holds on entry but is broken by the loop body.
procedure Main(n: int) returns (i: int)
  requires n > 0;
{
  var s: int;
  i := 0;
  s := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant s == i; // fails: invariant-preserved
  {
    s := s + 2;
    i := i + 1;
  }
  assert s == n;
}
