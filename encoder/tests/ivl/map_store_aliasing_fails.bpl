// Without i != j, updating m[i] may change m[j]; the frame claim fails.
procedure Main(m: [int]int, i: int, j: int) returns (n: [int]int)
  ensures n[i] == 0;
  ensures n[j] == m[j]; // fails: postcondition
{
  n := m;
  n[i] := 0;
  assert n[i] == 0;
  if (i != j) {
    assert n[j] == m[j];
  }
  assert n[i + 1] == m[i + 1];
}
