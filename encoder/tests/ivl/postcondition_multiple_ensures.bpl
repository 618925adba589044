// Of several ensures clauses only the violated ones are reported.
procedure Clamp(x: int, lo: int, hi: int) returns (r: int)
  requires lo <= hi;
  ensures lo <= r;
  ensures r <= hi;
  ensures lo < r; // fails: postcondition
  ensures x <= hi ==> r >= x;
  ensures r == x; // fails: postcondition
  ensures lo <= x && x <= hi ==> r == x;
{
  if (x < lo) {
    r := lo;
  } else if (x > hi) {
    r := hi;
  } else {
    r := x;
  }
}
