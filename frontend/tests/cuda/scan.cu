// Prefix-sum building blocks. scan_step is one step of Hillis and Steele's scan in global memory,
// out[i] = in[i - offset] + in[i] for i >= offset (the host launches it once per power of two,
// swapping the buffers); scan_step_shared does one such step inside a block through shared
// memory, with the offset a template argument; uniformAdd is the final pass of the CUDA samples'
// scanLargeArrays, where thread 0 loads the block's increment into a `__shared__` scalar and,
// after __syncthreads(), every thread adds it to its element. The inputs are bounded so that no
// sum overflows; the proofs show race freedom, bounds and every result.
//:: verdict verified
//:: run with --kernel scan_step --groups 2 --gsize 8 --param offset=2 --param n=13
//:: run with --kernel scan_step_shared<3> --groups 2 --gsize 8
//:: run with --kernel uniformAdd --groups 2 --gsize 8 --param n=13
#include "common.h"

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n && 0 <= offset;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  context \gtid < n && \gtid >= offset ==> Perm(&in[\gtid - offset], read);
  requires (\gtid < n ==> -HALF_INT <= in[\gtid] && in[\gtid] <= HALF_INT);
  requires (\gtid < n && \gtid >= offset ==> -HALF_INT <= in[\gtid - offset] && in[\gtid - offset] <= HALF_INT);
  ensures \gtid < n && \gtid >= offset ==> out[\gtid] == in[\gtid - offset] + in[\gtid];
  ensures \gtid < n && \gtid < offset ==> out[\gtid] == in[\gtid];
@*/
__global__ void scan_step(const int *in, int *out, int n, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (i >= offset)
      out[i] = in[i - offset] + in[i];
    else
      out[i] = in[i];
  }
}

/*@
  context blockDim.x == BLOCK_SIZE && OFFSET < BLOCK_SIZE;
  context \pointer_length(in) == BLOCK_SIZE * gridDim.x && \pointer_length(out) == BLOCK_SIZE * gridDim.x;
  context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  context \ltid >= OFFSET ==> Perm(&in[\gtid - OFFSET], read);
  requires -HALF_INT <= in[\gtid] && in[\gtid] <= HALF_INT;
  requires \ltid >= OFFSET ==> -HALF_INT <= in[\gtid - OFFSET] && in[\gtid - OFFSET] <= HALF_INT;
  requires Perm(&s[\ltid], write);
  ensures \ltid >= OFFSET ==> out[\gtid] == in[\gtid - OFFSET] + in[\gtid];
  ensures \ltid < OFFSET ==> out[\gtid] == in[\gtid];
@*/
template <unsigned int OFFSET>
__global__ void scan_step_shared(const int *in, int *out) {
  __shared__ int s[BLOCK_SIZE];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * BLOCK_SIZE + t;
  s[t] = in[i];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
    context \ltid >= OFFSET ==> Perm(&in[\gtid - OFFSET], read);
    context -HALF_INT <= in[\gtid] && in[\gtid] <= HALF_INT;
    context \ltid >= OFFSET ==> -HALF_INT <= in[\gtid - OFFSET] && in[\gtid - OFFSET] <= HALF_INT;
    context in[\gtid] == \old(in[\gtid]);
    context \ltid >= OFFSET ==> in[\gtid - OFFSET] == \old(in[\gtid - OFFSET]);
    requires Perm(&s[\ltid], write) ** s[\ltid] == in[\gtid];
    ensures Perm(&s[\ltid], read) ** s[\ltid] == in[\gtid];
    ensures \ltid >= OFFSET ==> Perm(&s[\ltid - OFFSET], read) ** s[\ltid - OFFSET] == in[\gtid - OFFSET];
  @*/
  __syncthreads();
  out[i] = (t >= OFFSET) ? s[t - OFFSET] + s[t] : s[t];
}
template __global__ void scan_step_shared<3>(const int *, int *);

/*@
  context \pointer_length(data) == n && \pointer_length(incr) == gridDim.x;
  context Perm(&incr[blockIdx.x], read);
  context \gtid < n ==> Perm(&data[\gtid], write);
  requires -HALF_INT <= incr[blockIdx.x] && incr[blockIdx.x] <= HALF_INT;
  requires \gtid < n ==> -HALF_INT <= data[\gtid] && data[\gtid] <= HALF_INT;
  requires \ltid == 0 ==> Perm(&uni, write);
  ensures \gtid < n ==> data[\gtid] == \old(data[\gtid]) + incr[blockIdx.x];
@*/
__global__ void uniformAdd(int *data, const int *incr, int n) {
  __shared__ int uni;
  if (threadIdx.x == 0) uni = incr[blockIdx.x];
  /*@
    context Perm(&incr[blockIdx.x], read);
    context -HALF_INT <= incr[blockIdx.x] && incr[blockIdx.x] <= HALF_INT;
    context incr[blockIdx.x] == \old(incr[blockIdx.x]);
    context \gtid < n ==> Perm(&data[\gtid], write);
    context \gtid < n ==> -HALF_INT <= data[\gtid] && data[\gtid] <= HALF_INT && data[\gtid] == \old(data[\gtid]);
    requires \ltid == 0 ==> Perm(&uni, write) ** uni == incr[blockIdx.x];
    ensures Perm(&uni, read) ** uni == incr[blockIdx.x];
  @*/
  __syncthreads();
  unsigned int address = blockIdx.x * blockDim.x + threadIdx.x;
  if (address < n) data[address] += uni;
}
