// Binary-search-like loop over a sorted map-array: the found index is within bounds.
procedure Search(a: [int]int, n: int, key: int) returns (lo: int)
  requires n >= 0;
  requires (forall i: int :: (forall j: int :: 0 <= i && i <= j && j < n ==> a[i] <= a[j]));
  ensures 0 <= lo && lo <= n;
  ensures (forall k: int :: 0 <= k && k < lo ==> a[k] < key);
  ensures (forall k: int :: lo <= k && k < n ==> a[k] >= key);
{
  var hi: int;
  var mid: int;
  lo := 0;
  hi := n;
  while (lo < hi)
    invariant 0 <= lo && lo <= hi && hi <= n;
    invariant (forall k: int :: 0 <= k && k < lo ==> a[k] < key);
    invariant (forall k: int :: hi <= k && k < n ==> a[k] >= key);
  {
    mid := (lo + hi) div 2;
    assert lo <= mid && mid < hi;
    if (a[mid] < key) {
      lo := mid + 1;
    } else {
      hi := mid;
    }
  }
}
