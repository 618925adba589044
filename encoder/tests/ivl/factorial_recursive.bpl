// A recursive function unfolded a limited number of times (fuel), as the kernel encoding does
// for pure functions: unfolding stops when the fuel runs out, so the solver cannot loop. Past the
// fuel the value is unknown: the last assertion does not follow, but no solver can build the model
// of the unfolding axiom that refutes it (Boogie reports an error, lockstep says undecided).
function succ(fuel: int): int;
const none: int;
function fact(fuel: int, n: int): int;
// One unfolding uses up one unit of fuel.
axiom (forall f: int, n: int :: {fact(succ(f), n)} fact(succ(f), n) == (if n <= 0 then 1 else n * fact(f, n - 1)));

procedure Concrete()
{
  assert fact(succ(succ(succ(succ(none)))), 3) == 6;
  assert fact(succ(none), 0) == 1;
  assert fact(succ(succ(none)), 1) == 1;
}

procedure OneStep(n: int)
  requires n > 0;
{
  assert fact(succ(none), n) == n * fact(none, n - 1);
}

procedure OutOfFuel(n: int)
  requires n == 5;
{
  assert fact(succ(succ(none)), n) == 120; // undecided: assert
}
