// reduction.cu's reduce2 without the __syncthreads() between loading shared memory and the first
// step of the tree: thread tid adds sdata[tid + s], which thread tid + s may not have stored yet
// (a race in shared memory). The loop's invariant, which hands thread tid < s both cells, cannot
// hold on entry: only a barrier moves sdata[tid + s] to thread tid.
//:: verdict failed
//:: run finds race
#include "common.h"

/*@
  context \pointer_length(g_idata) == n && \pointer_length(g_odata) == gridDim.x;
  context \shared_mem_size(sdata) == blockDim.x;
  context \gtid < n ==> Perm(&g_idata[\gtid], read);
  context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
  requires Perm(&sdata[\ltid], write);
@*/
__global__ void reduce2(const float *g_idata, float *g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  /*@
    loop_invariant s <= blockDim.x / 2;
    loop_invariant \gtid < n ==> Perm(&g_idata[\gtid], read);
    loop_invariant tid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    loop_invariant tid < s ==> Perm(&sdata[tid], write) ** Perm(&sdata[tid + s], write); //:: fails loop.invariant.entry
    loop_invariant s == 0 && tid == 0 ==> Perm(&sdata[0], write);
  @*/
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    /*@
      context \gtid < n ==> Perm(&g_idata[\gtid], read);
      context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
      requires \ltid < s ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + s], write);
      ensures \ltid < s / 2 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + s / 2], write);
      ensures s / 2 == 0 && \ltid == 0 ==> Perm(&sdata[0], write);
    @*/
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
