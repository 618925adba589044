// Unannotated OpenCL kernels whose arithmetic is safe only with the values a barrier hands over.
#define BOUND 100000

// Each work item copies its cell into the tile; after the barrier the interior ones add their
// neighbours' tile cells, which hold the bounded inputs.
/*@
  requires \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_global_size(0);
  requires -BOUND <= in[get_global_id(0)] && in[get_global_id(0)] <= BOUND;
  requires 0 < get_local_id(0) ==> -BOUND <= in[get_global_id(0) - 1] && in[get_global_id(0) - 1] <= BOUND;
  requires get_local_id(0) < get_local_size(0) - 1 ==> -BOUND <= in[get_global_id(0) + 1] && in[get_global_id(0) + 1] <= BOUND;
@*/
__kernel void tile_sum(__global const int* in, __global int* out) {
  __local int tile[64];
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  tile[l] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (0 < l && l < get_local_size(0) - 1) {
    out[i] = tile[l - 1] + tile[l] + tile[l + 1];
  }
}

// Only the even work items fill the tile: an odd one reads its own cell, which no work item wrote.
/*@
  requires \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_global_size(0);
  requires -BOUND <= in[get_global_id(0)] && in[get_global_id(0)] <= BOUND;
  requires 0 < get_local_id(0) ==> -BOUND <= in[get_global_id(0) - 1] && in[get_global_id(0) - 1] <= BOUND;
@*/
__kernel void tile_sum_even_filled(__global const int* in, __global int* out) {
  __local int tile[64];
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  if (l % 2 == 0) {
    tile[l] = in[i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (0 < l) {
    out[i] = tile[l - 1] + tile[l];
  }
}

// What the launch says of a cell the code has not written holds after the first barrier too.
/*@
  requires \pointer_length(a) == get_global_size(0);
  requires a[get_global_id(0)] == 7;
@*/
__kernel void launch_fact_after_barrier(__global int* a, __global int* out) {
  __local int tile[64];
  tile[get_local_id(0)] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[get_local_id(0)];
  __assert(a[get_global_id(0)] == 7);
}

// Written before the barrier, the cell no longer holds its launch value.
/*@
  requires \pointer_length(a) == get_global_size(0);
  requires a[get_global_id(0)] == 7;
@*/
__kernel void launch_fact_overwritten(__global int* a, __global int* out) {
  __local int tile[64];
  tile[get_local_id(0)] = 1;
  a[get_global_id(0)] = 8;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[get_local_id(0)];
  __assert(a[get_global_id(0)] == 7);
}
