// A generated program (differential testing against Boogie, seed 5232) on which z3 spelled out a
// whole map for a counterexample until memory ran out: counterexamples now show scalars only.
var g1: int;
var g2: int;
var G: [int]int;

procedure P0(x0: int, x1: int, x2: int, a: [int]int);
  modifies g2, G;
  ensures g2 >= old(g2);

procedure P1(x0: int, a: [int]int) returns (r0: int, r1: int, rm: [int]int)
  requires (g1 <= g1) ==> x0 != g2;
  requires g1 <= a[g1];
  ensures r0 == x0; // fails: postcondition
  ensures (old(g2) == g2) && a[r1] >= r1; // fails: postcondition
{
  var i: int;
  var j: int;
  var k: int;
  var m: [int]int;
  havoc i, m;
  assert -5 != -i ==> rm[-5 := old(G)[old(G)[5]] * 2][-i] == rm[-i];
  if (-1 + g2 > 1 - r1) {
    if (i >= 5) {
      assert (exists q1: int :: -4 <= q1 && q1 < old(G[-2]) && old(G)[q1] != 0) ==> !(j <= 10); // fails: assert
      assume 0 <= 4;
      assume r1 > old(G[7]) - k;
    } else {
      assert -5 != -i ==> rm[-5 := old(G)[old(G)[5]] * 2][-i] == rm[-i];
      m[4] := rm[0] mod 3 div -3;
    }
    assume m[g2] != old(g1) || (old(g1) == k);
    havoc i;
  }
  k := j - G[old(g1)];
  r1 := 2 * (k mod 1);
  assert j - j + 1 > 0;
}

procedure P2(x0: int, x1: int, x2: int) returns (r0: int, r1: int)
  requires G[x1] <= -2;
  requires g1 == g2;
  modifies g1, g2, G;
{
  var i: int;
  var j: int;
  var m: [int]int;
  assert g1 == g2;
  call P0(old(G)[2], 1, m[x1], G);
  assert x1 div -2 <= m[old(G)[7]] div 4; // fails: assert
  call P0(6 - x0, G[-2] mod -3, G[1], m);
  assert (forall q2: int :: old(g1) <= q2 && q2 < G[4] ==> m[q2] >= g2); // fails: assert
  assume (forall q3: int :: old(g2) <= q3 && q3 < r0 ==> old(G)[q3] != 0);
  call P0(x1, -2, m[0], m);
  j := -1;
  while (j < g1)
    invariant j <= g1; // fails: invariant-entry
    invariant 0 <= j; // fails: invariant-entry
  {
    assert (forall q2: int :: old(g1) <= q2 && q2 < G[4] ==> m[q2] >= g2);
    j := j + 1;
  }
  call g2, g1, m := P1(x1 + g2, G);
  i := 2;
  while (i < G[r1])
    invariant i <= G[r1];
    invariant x1 div -2 <= m[old(G)[7]] div 4;
    free invariant 0 <= j;
    invariant 0 <= i;
  {
    assert j mod 1 <= -2;
    r1 := -G[j];
    i := i + 1;
  }
}
