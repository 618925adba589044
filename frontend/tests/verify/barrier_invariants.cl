// GPUVerify's barrier invariants, read as the next barrier's contract: `e` is its precondition,
// and `e` for the thread whose local id is each instantiation its postcondition, proved from the
// group's preconditions. Launched with `--local_size=8 --num_groups=2`.

// Each thread learns its right neighbour's cell, which its assertion reads.
__kernel void neighbour(__global int* out) {
  __local int A[8];
  A[get_local_id(0)] = get_local_id(0);
  __barrier_invariant_2(A[get_local_id(0)] == get_local_id(0), get_local_id(0), (get_local_id(0) + 1) % 8);
  barrier(CLK_LOCAL_MEM_FENCE);
  __assert(A[(get_local_id(0) + 1) % 8] == (get_local_id(0) + 1) % 8);
  out[get_global_id(0)] = A[get_local_id(0)];
}

// The same without the invariant: inference proposes the value written, a candidate it checks.
__kernel void neighbour_inferred(__global int* out) {
  __local int A[8];
  A[get_local_id(0)] = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  __assert(A[(get_local_id(0) + 1) % 8] == (get_local_id(0) + 1) % 8);
  out[get_global_id(0)] = A[get_local_id(0)];
}

// An invariant that does not hold where the barrier is reached.
__kernel void false_invariant(__global int* out) {
  __local int A[8];
  A[get_local_id(0)] = get_local_id(0);
  __barrier_invariant_1(A[get_local_id(0)] == 0, get_local_id(0));
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = A[get_local_id(0)];
}

// An instantiation that names no thread of the group for the last thread: nothing proves it.
__kernel void beyond_the_group(__global int* out) {
  __local int A[9];
  A[get_local_id(0)] = get_local_id(0);
  __barrier_invariant_1(A[get_local_id(0)] == get_local_id(0), get_local_id(0) + 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = A[get_local_id(0)];
}

// `__ite(c, a, b)` is `c ? a : b`; each thread learns the cell of the thread before it.
__kernel void conditional(__global int* out) {
  __local int A[16];
  if (get_local_id(0) % 2 == 0) {
    A[2 * get_local_id(0)] = get_local_id(0);
  } else {
    A[2 * get_local_id(0) + 1] = get_local_id(0);
  }
  __barrier_invariant_2(__ite(get_local_id(0) % 2 == 0, A[2 * get_local_id(0)] == get_local_id(0),
                              A[2 * get_local_id(0) + 1] == get_local_id(0)),
                        get_local_id(0), (get_local_id(0) + 7) % 8);
  barrier(CLK_LOCAL_MEM_FENCE);
  __assert(__implies(get_local_id(0) % 2 == 1, A[2 * get_local_id(0) - 2] == get_local_id(0) - 1));
}

// Left out, with a warning: an invariant no barrier follows in its block, and one whose formula
// reads the second axis's local id, which its instantiations do not name.
__kernel void left_out(__global int* out) {
  if (get_local_id(0) == 0) {
    __barrier_invariant_1(get_local_id(0) == 0, 0);
  }
  __barrier_invariant_1(get_local_id(1) == 0, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = 1;
}

// The invariant tells each thread its neighbour's cell of `A`, which names the cell of `B` it
// writes: inference reads the index's value from the barrier's postcondition.
__kernel void index_from_invariant(__global int* out) {
  __local int A[8];
  __local int B[8];
  A[get_local_id(0)] = get_local_id(0);
  __barrier_invariant_2(A[get_local_id(0)] == get_local_id(0), get_local_id(0), (get_local_id(0) + 1) % 8);
  barrier(CLK_LOCAL_MEM_FENCE);
  B[A[(get_local_id(0) + 1) % 8]] = get_local_id(0);
  out[get_global_id(0)] = get_local_id(0);
}
