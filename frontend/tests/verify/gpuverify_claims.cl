// GPUVerify's claims that lockstep reads: `__all(e)` standing alone or under `&&` is `e` of an
// arbitrary thread, so of all; a claim over its pair of threads (`__uniform_int`, `__other_int`,
// `__distinct_int`) cannot be stated for one thread, and is reported undecided, with the code
// after it checked as before; `__read_offset_bytes` in code is any value; `__read_permission` is
// a read.
__kernel void all_threads(__global int* A) {
  __global_assert(__all(get_local_id(0) < get_local_size(0)) && __all(get_group_id(0) < get_num_groups(0)));
}

__kernel void not_all_threads(__global int* A) {
  __global_assert(__all(get_local_id(0) == 0));
}

__kernel void uniform(__global int* A) {
  __assert(__uniform_int(get_group_id(0)));
  A[get_global_id(0)] = 1;
}

__kernel void uniform_then_race(__global int* A) {
  __assert(__implies(__same_group, get_local_id(0) != __other_int(get_local_id(0))));
  A[0] = get_local_id(0);
}

int next(int x) {
  __ensures(__distinct_int(__return_val_int()));
  return x + 1;
}

__kernel void distinct_result(__global int* A) {
  A[get_global_id(0)] = next(get_local_id(0));
}

void external(int x);

__kernel void offsets_in_code(__global int* A) {
  external(__read_offset_bytes(A));
  int read = __read(A);
  A[get_global_id(0)] = read;
}

__kernel void read_permission(__local int* A) {
  A[get_local_id(0)] = 0;
  __read_permission(int, A[(get_local_id(0) + 1) % get_local_size(0)]);
}

__kernel void read_permission_after_barrier(__local int* A) {
  A[get_local_id(0)] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  __read_permission(int, A[(get_local_id(0) + 1) % get_local_size(0)]);
}

// An `__assert` in a loop's head is checked each time the head is: as an invariant; one over the
// pair of threads is undecided where the head is first reached.
__kernel void loop_head(__global int* A) {
  for (int k = 0; __assert(k >= 0), __assert(__uniform_int(k)), k < 4; k++) {
  }
}

__kernel void loop_head_fails(__global int* A) {
  for (int k = 0; __assert(k < 4), k < 8; k++) {
  }
}
