// free invariant is assumed in the loop and after it, but never checked.
procedure Main(n: int) returns (i: int)
  requires n >= 0;
  ensures i == n;
  ensures i == 1000;
{
  i := 0;
  while (i < n)
    invariant i <= n;
    free invariant n == 1000;
  {
    i := i + 1;
  }
  assert n == 1000;
}

procedure Checked(n: int) returns (i: int)
  requires n >= 0;
{
  i := 0;
  while (i < n)
    free invariant i == 7;
    invariant i == 7; // fails: invariant-entry
  {
    i := i + 1;
  }
}
