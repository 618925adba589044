// Map store expressions m[i := v] and select-over-store reasoning on [int]int.
procedure Main(m: [int]int, i: int, j: int)
  requires i != j;
{
  var n: [int]int;
  n := m[i := 5];
  assert n[i] == 5;
  assert n[j] == m[j];
  assert m[i := 1][i := 2][i] == 2;
  assert m[i := 1][j := 2][i] == 1;
  assert n[i := m[i]][j] == m[j];
  assert n[j] == 5; // fails: assert
}
