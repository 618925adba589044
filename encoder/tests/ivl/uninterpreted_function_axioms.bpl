// Uninterpreted functions constrained only by axioms; facts beyond the axioms fail.
function f(x: int): int;
function g(x: int): int;
axiom (forall x: int :: {f(x)} f(x) > x);
axiom (forall x: int :: {g(x)} g(x) == f(x) + 1);
axiom f(0) == 5;

procedure Main(y: int)
{
  assert f(3) > 3;
  assert f(0) == 5;
  assert g(0) == 6;
  assert g(y) > y + 1;
  assert f(y) == f(y);
  assert f(1) > 2; // undecided: assert
  assert f(y) != g(y);
  assert f(y) > g(y); // undecided: assert
}
