// The same precondition holds at one call site and fails at another.
procedure Div(a: int, b: int) returns (q: int)
  requires b != 0;
  ensures q == a div b;
{
  q := a div b;
}

procedure Main(x: int, y: int) returns (r: int)
{
  call r := Div(x, 2);
  assert r == x div 2;
  call r := Div(x, y); // fails: precondition
  if (y > 0) {
    call r := Div(y, y);
  }
  call r := Div(x, y);
}
