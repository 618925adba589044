// A 1D heat step, out[i] = in[i] + k * (in[i - 1] - 2 in[i] + in[i + 1]) in integers, whose last
// thread of each block also copies the boundary cell past its block, out[i + 1] = in[i + 1], as
// if each block owned its right halo: that cell is the next block's first, which its own thread
// writes at the same time (a race between blocks). Only the last block's copy is right: it
// lands on the array's right boundary cell, which no thread computes.
//:: verdict failed
//:: run finds race, access.write
//:: run with --groups 2 --gsize 4 --param k=1
#include "common.h"

#define HBOUND 1000

/*@
  context blockDim.x * gridDim.x + 2 == n;
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context Perm(&in[\gtid], read) ** Perm(&in[\gtid + 1], read) ** Perm(&in[\gtid + 2], read);
  context Perm(&out[\gtid + 1], write);
  requires 0 <= k && k <= 10;
  requires -HBOUND <= in[\gtid] && in[\gtid] <= HBOUND && -HBOUND <= in[\gtid + 1] && in[\gtid + 1] <= HBOUND;
  requires -HBOUND <= in[\gtid + 2] && in[\gtid + 2] <= HBOUND;
@*/
__global__ void heat_step(const int *in, int *out, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  out[i] = in[i] + k * (in[i - 1] - 2 * in[i] + in[i + 1]);
  if (threadIdx.x == blockDim.x - 1) {
    out[i + 1] = in[i + 1]; //:: fails access.write
  }
}
