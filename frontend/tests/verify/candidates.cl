// Candidate loop invariants, which Houdini keeps where they hold in a kernel whose permissions are
// inferred: GPUVerify's `__candidate_invariant` and `__function_wide_candidate_invariant` (a
// candidate of every loop of the function), and every written invariant with
// `--invariants-as-candidates`. Launched with `--local_size=64 --num_groups=2`.

// The true candidate carries the cell's value through the loop to the assertion; the false one
// is dropped.
__kernel void kept_and_dropped(__global int* A) {
  A[get_global_id(0)] = 1;
  for (int i = 0; __candidate_invariant(A[get_global_id(0)] == 1), __candidate_invariant(i < 0), i < 8; i++) {
    A[get_global_id(0)] = 1;
  }
  __assert(A[get_global_id(0)] == 1);
}

// Without the candidate, the cell's value after the loop is unknown.
__kernel void no_candidate(__global int* A) {
  A[get_global_id(0)] = 1;
  for (int i = 0; i < 8; i++) {
    A[get_global_id(0)] = 1;
  }
  __assert(A[get_global_id(0)] == 1);
}

// A function-wide candidate, kept at the first loop and dropped at the second.
__kernel void function_wide(__global int* A) {
  A[get_global_id(0)] = 1;
  for (int i = 0; i < 8; i++) {
    A[get_global_id(0)] = 1;
  }
  __assert(A[get_global_id(0)] == 1);
  for (int j = 0; j < 8; j++) {
    A[get_global_id(0)] = j;
  }
  __function_wide_candidate_invariant(A[get_global_id(0)] == 1);
}

// A function-wide invariant is an invariant of every loop: here a false one.
__kernel void function_wide_checked(__global int* A) {
  A[get_global_id(0)] = 1;
  for (int j = 0; j < 8; j++) {
    A[get_global_id(0)] = j;
  }
  __function_wide_invariant(A[get_global_id(0)] == 1);
}

// A written invariant that does not hold: it fails, unless `--invariants-as-candidates`.
__kernel void written(__global int* A) {
  for (int i = 0; __invariant(i < 0), i < 8; i++) {
    A[get_global_id(0)] = i;
  }
}
