// Calls to procedures with bodies (including a recursive one) use only pre/postconditions.
procedure Double(x: int) returns (r: int)
  requires x >= 0;
  ensures r == 2 * x;
{
  r := x + x;
}

procedure Main(a: int) returns (b: int)
  requires a >= 1;
  ensures b >= 4;
{
  var t: int;
  call t := Double(a);
  assert t == 2 * a;
  call b := Double(t);
  assert b == 4 * a;
}

procedure SumTo(n: int) returns (s: int)
  requires n >= 0;
  ensures s >= n;
  ensures n > 0 ==> s > 0;
{
  if (n == 0) {
    s := 0;
  } else {
    call s := SumTo(n - 1);
    s := s + n;
  }
}
