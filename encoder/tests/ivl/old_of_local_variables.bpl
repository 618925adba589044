// old(e) changes only the global variables in e: a local, parameter or result keeps its current
// value (found by differential testing against Boogie; lockstep used to verify both checks below).
var G: [int]int;

procedure P()
{
  var i: int;
  assume old(i) == 5;
  i := 3;
  assert old(i) == 5; // fails: assert
}

procedure Q(x0: int) returns (r0: int)
  modifies G;
{
  var j: int;
  j := 2;
  while (j < x0)
    invariant !(j < old(G[r0])); // fails: invariant-entry, invariant-preserved
  {
    r0 := 3;
    j := j + 1;
  }
}
