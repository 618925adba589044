// C-style truncating results are wrong for Euclidean div/mod (one check per procedure).
procedure NegDividendDiv()
{
  assert -7 div 2 == -3; // fails: assert
}

procedure NegDividendMod()
{
  assert -7 mod 2 == -1; // fails: assert
}

procedure NegDivisorDiv()
{
  assert 7 div -2 == -4; // fails: assert
}

procedure NegDivisorMod()
{
  assert 7 mod -2 == -1; // fails: assert
}

procedure BothNeg()
{
  assert -7 mod -2 == 1;
  assert -7 div -2 == 3; // fails: assert
}
