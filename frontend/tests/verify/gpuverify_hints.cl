// GPUVerify's proof hints that lockstep leaves out, each with a warning::left-out: a precondition,
// a loop invariant and an assumption over its access logs (`__read`, `__write_implies`), the
// assumption that an array is fresh, a function-wide invariant and a binary barrier invariant. None is assumed, so the kernel verifies from
// what lockstep checks itself; `__global_requires` and `__global_assert` hold in every thread, so
// in this one.
__kernel void hints(__global int* A) {
  __requires(!__read(A));
  __global_requires(get_local_size(0) == 4);
  __requires_fresh_array(A);
  int x = 0;
  for (int i = 0; __invariant(__write_implies(A, __write_offset_bytes(A) == 0)), __invariant(0 <= i && i <= 4 && x == i), i < 4; i++) {
    x = x + 1;
  }
  __assume(__no_write(A));
  __function_wide_invariant(__write_implies(A, __write_offset_bytes(A) == 0));
  __barrier_invariant_binary_1(x == 4, get_local_id(0), get_local_id(0));
  barrier(CLK_LOCAL_MEM_FENCE);
  __global_assert(x == get_local_size(0));
  __global_assert(x == 5);
}

// GPUVerify's `__old_int(e)` is `\old(e)`, and `__return_val_int()` a helper's `\result`; a hint
// over the pair of threads GPUVerify checks (`__uniform_int`) is left out.
int twice(int x) {
  __requires(x < 1000 && x > -1000);
  __ensures(__return_val_int() == 2 * x);
  return 2 * x;
}

/*@ context \pointer_length(p) == get_global_size(0);
    context Perm(&p[get_global_id(0)], write); @*/
__kernel void old_and_result(__global int* p) {
  __requires(p[get_global_id(0)] < 1000 && p[get_global_id(0)] > -1000);
  __requires(__uniform_int(get_group_id(0)));
  __ensures(p[get_global_id(0)] == __old_int(2 * p[get_global_id(0)]));
  __ensures(p[get_global_id(0)] == __old_int(p[get_global_id(0)]));
  p[get_global_id(0)] = twice(p[get_global_id(0)]);
}
