// Functions with bodies are expanded at their calls: the bound variables of a body must not
// capture the arguments (a call `Small(m, k)` under `forall k` is about the outer `k`).
function Small(m: [int]int, n: int): bool { (forall k: int :: 0 <= k && k < n ==> m[k] < 10) }
function SmallUpTo(m: [int]int, k: int): bool { Small(m, k) }

procedure Main(m: [int]int)
  requires (forall j: int :: 0 <= j && j < 5 ==> m[j] == 1);
{
  assert (forall k: int :: 0 <= k && k <= 5 ==> Small(m, k));
  assert SmallUpTo(m, 5);
  assert (forall k: int :: 0 <= k && k <= 3 ==> SmallUpTo(m, k));
  assert (forall k: int :: k <= 5 ==> SmallUpTo(m, k + 1)); // fails: assert
  assert (forall k: int :: Small(m, k)); // fails: assert // cvc5 undecided: assert
}
