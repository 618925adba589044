// The samples' unrolled reduction (reduction.cu's reduce4, here over float, whose proof is one
// of race freedom) whose second step keeps the first step's guard, tid < 4 instead of tid < 2 (a
// copy-and-paste slip in an unrolled tree): threads 2 and 3 add sdata[4] and sdata[5] into
// sdata[2] and sdata[3] while threads 0 and 1 read those two cells in the same barrier interval,
// a collision of shared-memory indices (a read-write race). The barrier hands threads 2 and 3 no
// cell, so they read and write without permission.
//:: verdict failed
//:: run finds race, access.read, access.write
//:: run with --groups 2 --gsize 8 --param n=13
#include "common.h"
// The first input the thread loads.
#define FIRST (blockIdx.x * 16 + \ltid)
#define INPUTS (FIRST < n ==> Perm(&g_idata[FIRST], read)) ** (FIRST + 8 < n ==> Perm(&g_idata[FIRST + 8], read))

/*@
  context blockDim.x == blockSize && blockSize == 8;
  context \pointer_length(g_idata) == n && \pointer_length(g_odata) == gridDim.x;
  context INPUTS;
  context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
  requires Perm(&sdata[\ltid], write);
@*/
template <class T, unsigned int blockSize>
__global__ void reduce4(const T *g_idata, T *g_odata, unsigned int n) {
  __shared__ T sdata[blockSize];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  /*@
    context INPUTS;
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires Perm(&sdata[\ltid], write);
    ensures \ltid < 4 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + 4], read);
  @*/
  __syncthreads();
  if ((blockSize >= 8) && (tid < 4)) {
    mySum = mySum + sdata[tid + 4];
    sdata[tid] = mySum;
  }
  /*@
    context INPUTS;
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires \ltid < 4 ==> Perm(&sdata[\ltid], write);
    ensures \ltid < 2 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + 2], read);
  @*/
  __syncthreads();
  if ((blockSize >= 4) && (tid < 4)) {
    mySum = mySum + sdata[tid + 2]; //:: fails access.read
    sdata[tid] = mySum; //:: fails access.write
  }
  /*@
    context INPUTS;
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires \ltid < 2 ==> Perm(&sdata[\ltid], write);
    ensures \ltid == 0 ==> Perm(&sdata[1], read);
  @*/
  __syncthreads();
  if ((blockSize >= 2) && (tid < 1)) {
    mySum = mySum + sdata[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
template __global__ void reduce4<float, BLOCK_SIZE>(const float *, float *, unsigned int);
