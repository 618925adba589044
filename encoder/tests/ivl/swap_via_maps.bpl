// Swap two elements of a global map-array; other elements are unchanged.
var M: [int]int;

procedure Swap(i: int, j: int)
  modifies M;
  ensures M[i] == old(M[j]);
  ensures M[j] == old(M[i]);
  ensures (forall k: int :: k != i && k != j ==> M[k] == old(M[k]));
{
  var t: int;
  t := M[i];
  M[i] := M[j];
  M[j] := t;
}

procedure Main()
  modifies M;
{
  M[0] := 1;
  M[1] := 2;
  M[2] := 3;
  call Swap(0, 2);
  assert M[0] == 3 && M[1] == 2 && M[2] == 1;
  call Swap(1, 1);
  assert M[1] == 2;
  call Swap(0, 1);
  assert M[0] == 3; // undecided: assert
}
