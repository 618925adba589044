// scan.cu's scan_step_shared done in place in one shared buffer, s[t] += s[t - OFFSET], to save
// the second buffer Hillis and Steele's scan needs: thread t writes s[t] while thread t + OFFSET
// reads it in the same barrier interval (a race), so the step may add an already updated value.
// The barrier cannot hand thread t all of s[t] and thread t + OFFSET a share of it.
//:: verdict failed
//:: run finds race
//:: run with --groups 2 --gsize 8
#include "common.h"

/*@
  context blockDim.x == BLOCK_SIZE && OFFSET < BLOCK_SIZE;
  context \pointer_length(in) == BLOCK_SIZE * gridDim.x && \pointer_length(out) == BLOCK_SIZE * gridDim.x;
  context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  requires -HALF_INT <= in[\gtid] && in[\gtid] <= HALF_INT;
  requires Perm(&s[\ltid], write);
@*/
template <unsigned int OFFSET>
__global__ void scan_step_in_place(const int *in, int *out) {
  __shared__ int s[BLOCK_SIZE];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * BLOCK_SIZE + t;
  s[t] = in[i];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
    requires Perm(&s[\ltid], write) ** (-HALF_INT <= s[\ltid] && s[\ltid] <= HALF_INT);
    ensures Perm(&s[\ltid], write) ** (-HALF_INT <= s[\ltid] && s[\ltid] <= HALF_INT); //:: fails barrier.resources
    ensures \ltid >= OFFSET ==> Perm(&s[\ltid - OFFSET], read) ** (-HALF_INT <= s[\ltid - OFFSET] && s[\ltid - OFFSET] <= HALF_INT);
  @*/
  __syncthreads();
  if (t >= OFFSET) s[t] += s[t - OFFSET];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
    requires Perm(&s[\ltid], write);
    ensures Perm(&s[\ltid], read);
  @*/
  __syncthreads();
  out[i] = s[t];
}
template __global__ void scan_step_in_place<3>(const int *, int *);
