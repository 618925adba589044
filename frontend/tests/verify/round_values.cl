// Unannotated OpenCL kernels whose signed arithmetic stays inside `int` only because of what each
// round of a loop of barriers computes: inference bounds the values round by round.

// A tree sum of ones in a work group of 64: in the round with stride s every live cell holds
// 32 / s, so no sum overflows.
/*@
  requires get_local_size(0) == 64;
  requires \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_num_groups(0);
  requires in[\gtid] == 1;
@*/
__kernel void tree_sum_of_ones(__global const int* in, __global int* out) {
  __local int tmp[64];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = 32; s > 0; s >>= 1) {
    if (l < s) {
      tmp[l] += tmp[l + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    out[get_group_id(0)] = tmp[0];
  }
}

// The same tree over inputs between 0 and 1000: the sums stay below 64000.
/*@
  requires get_local_size(0) == 64;
  requires \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_num_groups(0);
  requires 0 <= in[\gtid] && in[\gtid] <= 1000;
@*/
__kernel void tree_sum_of_small_inputs(__global const int* in, __global int* out) {
  __local int tmp[64];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = 32; s > 0; s >>= 1) {
    if (l < s) {
      tmp[l] += tmp[l + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    out[get_group_id(0)] = tmp[0];
  }
}

// Inputs of 2^26: the round with stride 2 adds 2^30 and 2^30, which overflows `int`.
/*@
  requires get_local_size(0) == 64;
  requires \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_num_groups(0);
  requires in[\gtid] == 67108864;
@*/
__kernel void tree_sum_overflows(__global const int* in, __global int* out) {
  __local int tmp[64];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = 32; s > 0; s >>= 1) {
    if (l < s) {
      tmp[l] += tmp[l + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    out[get_group_id(0)] = tmp[0];
  }
}

// Rows of Pascal's triangle, one round per row, in one work group of at most 16 items: each entry
// of row N is at most 2^N. Work item i updates bin[i] only when 0 < i < N; the others' entries keep
// their values through the round, which they state at the next barrier.
/*@
  requires get_num_groups(0) == 1;
  requires 1 < get_local_size(0) && get_local_size(0) <= 16;
  requires \pointer_length(bin) == get_local_size(0);
@*/
__kernel void pascal_rows(__global int* bin) {
  __local int tmp[16];
  int i = get_local_id(0);
  int n = get_local_size(0);
  int N = 1;
  bin[i] = 1;
  while (N < n - 1) {
    tmp[i] = bin[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    N = N + 1;
    if (0 < i && i < N) {
      bin[i] = tmp[i - 1] + bin[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// The same with up to 36 work items: row 34's middle entry, 2333606220, does not fit in `int`.
/*@
  requires get_num_groups(0) == 1;
  requires 1 < get_local_size(0) && get_local_size(0) <= 36;
  requires \pointer_length(bin) == get_local_size(0);
@*/
__kernel void pascal_rows_overflow(__global int* bin) {
  __local int tmp[36];
  int i = get_local_id(0);
  int n = get_local_size(0);
  int N = 1;
  bin[i] = 1;
  while (N < n - 1) {
    tmp[i] = bin[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    N = N + 1;
    if (0 < i && i < N) {
      bin[i] = tmp[i - 1] + bin[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
