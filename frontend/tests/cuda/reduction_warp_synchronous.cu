// The warp-synchronous tail of the reduction whitepaper's reduce5 (the samples' reduction before
// CUDA 9): once tid < 32, the last steps run without __syncthreads() through a `volatile`
// pointer, trusting that the threads of a warp execute in lockstep. Here, with blocks of 8 and
// the tail from tid < 4: thread 0 reads sdata[2] while thread 2 adds into it. Since Volta's
// independent thread scheduling nothing orders the two (the samples now put __syncwarp() between
// the steps), and lockstep, which knows of no warps, reports the race: after the barrier thread
// tid < 4 holds its own cell and reads its partner's, and the second step reads a cell another
// thread owns. The tail is a `__device__` helper template called with the shared array.
//:: verdict failed
//:: run finds race, access.read
//:: run with --groups 2 --gsize 8
#include "common.h"

template <unsigned int blockSize>
__device__ void warpReduce(volatile float *sdata, unsigned int tid) {
  if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
  if (blockSize >= 4) sdata[tid] += sdata[tid + 2]; //:: fails access.read
  if (blockSize >= 2) sdata[tid] += sdata[tid + 1]; //:: fails access.read
}

/*@
  context blockDim.x == blockSize && blockSize == 8;
  context \pointer_length(g_idata) == blockSize * gridDim.x && \pointer_length(g_odata) == gridDim.x;
  context Perm(&g_idata[\gtid], read);
  context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
  requires Perm(&sdata[\ltid], write);
@*/
template <unsigned int blockSize>
__global__ void reduce5(const float *g_idata, float *g_odata) {
  __shared__ float sdata[blockSize];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize + threadIdx.x;
  sdata[tid] = g_idata[i];
  /*@
    context Perm(&g_idata[\gtid], read);
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires Perm(&sdata[\ltid], write);
    ensures \ltid < 4 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + 4], read);
  @*/
  __syncthreads();
  if (tid < 4) warpReduce<blockSize>(sdata, tid);
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
template __global__ void reduce5<BLOCK_SIZE>(const float *, float *);
