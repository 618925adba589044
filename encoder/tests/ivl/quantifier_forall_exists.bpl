// forall and exists over ints and maps, with explicit witnesses for exists.
procedure Main(m: [int]int)
  requires (forall i: int :: m[i] >= 0);
{
  var n: [int]int;
  assert m[5] >= 0;
  assert (forall i: int :: m[i] + 1 > 0);
  n := m[3 := 7];
  assert n[3] == 7;
  assert (exists i: int :: n[i] == 7);
  assert (exists i: int :: i > 2 && n[i] > 6);
  assert (forall i: int :: i * 0 == 0);
  assert (forall i: int :: n[i] >= 0);
  assert (exists i: int :: m[i] > 0); // undecided: assert
  assert (forall i: int :: n[i] == 7); // fails: assert // cvc5 undecided: assert
}
