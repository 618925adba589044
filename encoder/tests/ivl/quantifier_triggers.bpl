// Quantifiers with explicit triggers, in axioms, requires and asserts.
function P(x: int): bool;
function h(x: int): int;
axiom (forall x: int :: {P(x)} P(x) ==> h(x) > 0);
axiom (forall x: int :: {h(x)} h(x) < 100);

procedure Main(a: [int]bool, k: int)
  requires (forall i: int :: {a[i]} 0 <= i && i < 10 ==> a[i]);
  requires P(k);
{
  assert a[0] && a[9];
  assert h(k) > 0;
  assert h(k) < 100;
  assert h(k + 1) < 100;
  assert (forall i: int :: {a[i]} 2 <= i && i < 5 ==> a[i]);
  assert a[10]; // fails: assert
  assert h(k + 1) > 0; // fails: assert
}
