// A loop body that stops at `assume false` never finishes an iteration, so it changes nothing
// (found by differential testing: lockstep used to havoc j and fail the last assert; Boogie
// verifies it).
procedure P(n: int)
{
  var i: int;
  var j: int;
  i := 0;
  j := 0;
  while (i < n)
    invariant i >= 0;
  {
    assume false;
    j := 1;
    i := i + 1;
  }
  assert j == 0;
  assert i == 0;
  assert n <= 0;
  assert j == 1; // fails: assert
}
