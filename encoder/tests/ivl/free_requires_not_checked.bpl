// free requires is assumed by the callee but never checked at call sites.
procedure Recip(x: int) returns (r: int)
  free requires x > 0;
  requires x < 100;
  ensures r >= 1;
{
  assert x >= 1;
  r := 100 div x;
}

procedure Main()
{
  var r: int;
  call r := Recip(-5);
  call r := Recip(5);
  assert r >= 1;
  call r := Recip(500); // fails: precondition
}
