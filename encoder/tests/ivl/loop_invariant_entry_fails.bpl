// Invariants false on loop entry; the failed entry check is assumed in the entry state
// (i == 0 in Main makes the rest vacuous, the havocked i in Havoced does not).
procedure Main(n: int) returns (i: int)
  requires n >= 0;
  ensures i >= n;
{
  i := 0;
  while (i < n)
    invariant i >= 0;
    invariant i >= 1; // fails: invariant-entry
  {
    i := i + 1;
    assert i > 5;
  }
}

procedure Havoced(n: int) returns (i: int)
{
  havoc i;
  while (i < n)
    invariant i > 0; // fails: invariant-entry
  {
    i := i + 1;
    assert i > 1;
    assert i > 2; // fails: assert
  }
}
