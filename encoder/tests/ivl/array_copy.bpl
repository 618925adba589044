// Copy the first n elements of one map-array into another.
procedure Copy(src: [int]int, n: int) returns (dst: [int]int)
  requires n >= 0;
  ensures (forall k: int :: {dst[k]} 0 <= k && k < n ==> dst[k] == src[k]);
{
  var i: int;
  i := 0;
  while (i < n)
    invariant 0 <= i && i <= n;
    invariant (forall k: int :: {dst[k]} 0 <= k && k < i ==> dst[k] == src[k]);
  {
    dst[i] := src[i];
    i := i + 1;
  }
}

procedure Main(a: [int]int)
  requires a[0] == 5 && a[4] == 9;
{
  var b: [int]int;
  call b := Copy(a, 5);
  assert b[0] == 5;
  assert b[4] == 9;
  assert b[2] == a[2];
  assert b[5] == a[5]; // fails: assert
}
