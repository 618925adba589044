// GPUVerify's annotations, read as lockstep's: `__requires` at the start of the body is a thread
// precondition, `__invariant` in a loop's condition a loop invariant, `__assert` an assertion,
// and `__implies(a, b)` is `a ==> b`; `__global_invariant` is checked as an invariant, and
// `__candidate_invariant` (a guess) is neither checked nor assumed.
__kernel void k(__global int* a) {
  __requires(get_local_size(0) == 8);
  int x = 0;
  for (int i = 0; __invariant(0 <= i && i <= 4), __invariant(x == 2 * i), i < 4; i++) {
    x = x + 2;
  }
  __assert(x == 8);
  __assert(__implies(get_local_id(0) == 0, x + get_local_size(0) == 16));
  __assert(get_local_id(0));
  for (int j = 0; __global_invariant(j <= 2), __candidate_invariant(j == 99), j < 2; j++) {
  }
}
