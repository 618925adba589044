// free ensures is assumed at call sites but never checked against the body.
procedure Get() returns (r: int)
  free ensures r == 10;
  ensures r >= 0;
{
  r := 3;
}

procedure Main()
{
  var v: int;
  call v := Get();
  assert v == 10;
  assert v > 9;
}

procedure Checked() returns (r: int)
  ensures r == 10; // fails: postcondition
  free ensures r == 11;
{
  r := 3;
}
