// Calls to a procedure with a body: caller relies only on its pre/postconditions.
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
