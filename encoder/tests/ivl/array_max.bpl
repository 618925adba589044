// Maximum of the first n elements of a map-array; the maximum occurs in the array.
procedure Max(a: [int]int, n: int) returns (m: int)
  requires n > 0;
  ensures (exists k: int :: 0 <= k && k < n && a[k] == m);
  ensures (forall k: int :: 0 <= k && k < n ==> a[k] <= m);
{
  var i: int;
  var idx: int;
  m := a[0];
  idx := 0;
  i := 1;
  while (i < n)
    invariant 1 <= i && i <= n;
    invariant 0 <= idx && idx < i && a[idx] == m;
    invariant (forall k: int :: 0 <= k && k < i ==> a[k] <= m);
  {
    if (a[i] > m) {
      m := a[i];
      idx := i;
    }
    i := i + 1;
  }
}

procedure Use(a: [int]int)
  requires a[0] == 3 && a[1] == 8 && a[2] == 1;
{
  var m: int;
  call m := Max(a, 3);
  assert m >= 8;
  assert m == 8;
  call m := Max(a, 1);
  assert m == 3;
  assert m == 8; // fails: assert
}
