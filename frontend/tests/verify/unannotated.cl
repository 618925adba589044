// Unannotated OpenCL kernels: `verify` infers their permissions (with `--gsize 64`; any number of
// groups). Each clean kernel verifies, each racy or divergent one fails where it races.

__kernel void vector_add(__global const float* a, __global const float* b, __global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}

__kernel void guarded_add(__global const float* a, __global float* c, unsigned int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] * 2.0f;
  }
}

__kernel void group_leader(__global int* out) {
  if (get_local_id(0) == 0) {
    out[get_group_id(0)] = 1;
  }
}

__kernel void group_all_write(__global int* out) {
  out[get_group_id(0)] = get_local_id(0);
}

__kernel void same_cell_each_group(__global int* out) {
  out[get_local_id(0)] = 1;
}

__kernel void neighbour_after_barrier(__global const int* in, __global int* out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[63 - l];
}

__kernel void wrong_fence(__local int* tile, __global int* out) {
  size_t l = get_local_id(0);
  tile[l] = 1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[get_global_id(0)] = tile[(l + 1) % 64];
}

__kernel void barrier_loop(__local int* tile, __global int* out) {
  size_t l = get_local_id(0);
  for (int k = 0; k < 4; k++) {
    tile[l] = k;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(l + 1) % 64];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

__kernel void barrier_loop_missing_barrier(__local int* tile, __global int* out) {
  size_t l = get_local_id(0);
  for (int k = 0; k < 4; k++) {
    tile[l] = k;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(l + 1) % 64];
  }
}

__kernel void divergent(__local int* tile) {
  if (get_local_id(0) < 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

__kernel void uniform_branch(__local int* tile, int n) {
  tile[get_local_id(0)] = n;
  if (n > 0) {
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

__kernel void per_thread_chunk(__global const float* in, __global float* out) {
  size_t i = get_global_id(0);
  for (int k = 0; k < 4; k++) {
    out[4 * i + k] = in[4 * i + k];
  }
}

__kernel void overlapping_chunk(__global const float* in, __global float* out) {
  size_t i = get_global_id(0);
  for (int k = 0; k < 4; k++) {
    out[i + k] = in[i + k];
  }
}

/*@
  requires in[get_global_id(0)] >= 0;
  ensures out[get_global_id(0)] >= 0;
@*/
__kernel void copy_nonnegative(__global const int* in, __global int* out) {
  out[get_global_id(0)] = in[get_global_id(0)];
}

// Every thread leaves the loop alike (`n` is the same in all): the barrier after it is reached
// by all or none. Its inferred precondition, that the kernel has not returned, reads `\returned`.
__kernel void uniform_return(__global int* a, int n) {
  a[get_global_id(0)] = 1;
  for (int i = 0; i < 4; i++) {
    if (n < i) {
      return;
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  a[get_global_id(0)] = 2;
}

// Each thread writes the cell a permutation names: an array the kernel never writes has, at the
// launch, the value the write reads, and the precondition says no two entries are equal.
/*@
  requires 0 <= perm[get_global_id(0)] && perm[get_global_id(0)] < get_global_size(0);
  requires (\forall int j; 0 <= j && j < get_global_size(0) && j != get_global_id(0); perm[j] != perm[get_global_id(0)]);
@*/
__kernel void scatter_permutation(__global const int* perm, __global const int* in, __global int* out) {
  out[perm[get_global_id(0)]] = in[get_global_id(0)];
}

// Without that precondition two threads may name one cell.
__kernel void scatter_anywhere(__global const int* index, __global int* out) {
  out[index[get_global_id(0)]] = get_global_id(0);
}
