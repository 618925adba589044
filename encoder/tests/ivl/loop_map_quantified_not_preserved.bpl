// A quantified loop invariant over a map that the body breaks (off-by-one store).
procedure Fill(n: int, v: int) returns (B: [int]int)
  requires n > 0;
{
  var i: int;
  i := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant (forall k: int :: 0 <= k && k < i ==> B[k] == v); // fails: invariant-preserved
  {
    B[i + 1] := v;
    i := i + 1;
  }
}

procedure FillOk(n: int, v: int) returns (B: [int]int)
  requires n > 0;
  ensures (forall k: int :: 0 <= k && k < n ==> B[k] == v);
{
  var i: int;
  i := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant (forall k: int :: 0 <= k && k < i ==> B[k] == v);
  {
    B[i] := v;
    i := i + 1;
  }
}
