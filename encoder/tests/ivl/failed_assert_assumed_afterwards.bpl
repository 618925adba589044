// After a failed assert Boogie assumes it, so later checks implied by it pass.
procedure Main(x: int) returns (r: int)
  ensures r > 10;
{
  assert x > 10; // fails: assert
  r := x;
  assert r > 5;
  assert r >= 11;
}

procedure Second(a: int, b: int)
{
  assert a == b; // fails: assert
  assert a - b == 0;
  assert a < 0; // fails: assert
  assert b < 0;
  assert b < -1; // fails: assert
}
