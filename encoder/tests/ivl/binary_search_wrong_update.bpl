// Binary search with a wrong bound update (hi := mid - 1) breaks a loop invariant.
procedure Search(a: [int]int, n: int, key: int) returns (lo: int)
  requires n >= 0;
  requires (forall i: int :: (forall j: int :: 0 <= i && i <= j && j < n ==> a[i] <= a[j]));
  ensures 0 <= lo && lo <= n;
{
  var hi: int;
  var mid: int;
  lo := 0;
  hi := n;
  while (lo < hi)
    invariant 0 <= lo && lo <= hi && hi <= n; // fails: invariant-preserved // cvc5 undecided: invariant-preserved
    invariant (forall k: int :: 0 <= k && k < lo ==> a[k] < key);
    invariant (forall k: int :: hi <= k && k < n ==> a[k] >= key); // fails: invariant-preserved // cvc5 undecided: invariant-preserved
  {
    mid := (lo + hi) div 2;
    if (a[mid] < key) {
      lo := mid + 1;
    } else {
      hi := mid - 1;
    }
  }
}
