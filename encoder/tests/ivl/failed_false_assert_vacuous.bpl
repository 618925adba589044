// A failed assert that is false in every state is assumed afterwards, so the rest is vacuous.
procedure Main(x: int)
{
  assert 1 + 1 == 3; // fails: assert
  assert false;
  assert x == x + 1;
}

procedure Contrast(x: int)
{
  assert x == 3; // fails: assert
  assert x + 1 == 4;
  assert x == 4; // fails: assert
  assert false;
}
