// Constant maps `(lambda i: T :: c)`: the empty permission mask of the kernel encoding. A map
// updated at a few places still holds the constant everywhere else, and a counterexample needs
// no model of a quantifier.
procedure Masks(j: int, k: int)
  requires j != k;
{
  var m: [int]real;
  var flags: [int]bool;
  m := (lambda constant_map_index: int :: 0.0);
  flags := (lambda constant_map_index: int :: true);
  assert m[j] == 0.0;
  m[j] := m[j] + 1.0;
  assert m[k] == 0.0;
  assert m[j] == 1.0;
  assert flags[k];
  assert m[k] > 0.0; // fails: assert
}

procedure Heaps(n: int)
{
  var h: [int]int;
  h := (lambda constant_map_index: int :: 7);
  assert h[n] + h[n + 1] == 14;
  assert h[n] == 8; // fails: assert
}
