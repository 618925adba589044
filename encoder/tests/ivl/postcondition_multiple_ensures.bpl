// Of several ensures clauses only the violated ones are reported.
procedure MinMax(x: int, y: int) returns (lo: int, hi: int)
  ensures lo <= hi;
  ensures lo == x || lo == y;
  ensures hi == x || hi == y;
  ensures lo < hi; // fails: postcondition
  ensures lo + hi == x + y;
  ensures hi - lo == x - y; // fails: postcondition
{
  if (x < y) {
    lo := x;
    hi := y;
  } else {
    lo := y;
    hi := x;
  }
}
