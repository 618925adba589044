// Constants constrained by axioms, used in a loop bound and in requires.
const N: int;
const K: int;
const Scale: real;
axiom N > 10;
axiom K == 2 * N;
axiom Scale == 0.5;

procedure Main(x: int) returns (i: int)
  requires x < N;
  ensures i == K;
{
  assert K > 20;
  assert x < K;
  assert real(N) * Scale > 5.0;
  i := 0;
  while (i < K)
    invariant 0 <= i && i <= K;
  {
    i := i + 1;
  }
  assert N > 11; // fails: assert
}
