// Parallel reduction as the CUDA samples' reduction writes it. reduce2 (sequential addressing,
// the samples' third kernel) is a loop `for (s = blockDim.x / 2; s > 0; s >>= 1)` with
// __syncthreads() inside, over dynamic shared memory sized by the launch (`extern __shared__`);
// the proof shows race freedom for every block size (the barrier in the loop hands thread
// tid < s the cells tid and tid + s). reduce3 adds two inputs while loading and keeps a private
// running sum, `mySum = mySum + sdata[tid + s]; sdata[tid] = mySum;` (the samples' chained
// `sdata[tid] = mySum = ...` is refused, an assignment inside an expression): a template over the element type,
// instantiated twice, with a static shared array of BLOCK_SIZE (a local header's macro).
// reduce4 is the samples' unrolled kernel templated on the block size: each thread first adds
// two inputs, then the
// steps under `if ((blockSize >= 8) && (tid < 4))` each
// end at a __syncthreads(); its proof shows that every block's output is the sum of its 16 inputs
// (bounded so that no partial sum overflows).
//:: verdict verified
//:: run with --groups 2 --gsize 8 --param n=13
//:: run with --groups 3 --gsize 8 --param n=40
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
    context \gtid < n ==> Perm(&g_idata[\gtid], read);
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires Perm(&sdata[\ltid], write);
    ensures \ltid < blockDim.x / 2 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + blockDim.x / 2], write);
    ensures blockDim.x / 2 == 0 && \ltid == 0 ==> Perm(&sdata[0], write);
  @*/
  __syncthreads();
  /*@
    loop_invariant s <= blockDim.x / 2;
    loop_invariant \gtid < n ==> Perm(&g_idata[\gtid], read);
    loop_invariant tid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    loop_invariant tid < s ==> Perm(&sdata[tid], write) ** Perm(&sdata[tid + s], write);
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

/*@
  context blockDim.x == BLOCK_SIZE;
  context \pointer_length(g_idata) == n && \pointer_length(g_odata) == gridDim.x;
  context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
  context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
  requires Perm(&sdata[\ltid], write);
@*/
template <class T>
__global__ void reduce3(const T *g_idata, T *g_odata, unsigned int n) {
  __shared__ T sdata[BLOCK_SIZE];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : T(0);
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  /*@
    context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires Perm(&sdata[\ltid], write);
    ensures \ltid < BLOCK_SIZE / 2 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + BLOCK_SIZE / 2], read);
  @*/
  __syncthreads();
  /*@
    loop_invariant s <= BLOCK_SIZE / 2;
    loop_invariant (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
    loop_invariant tid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    loop_invariant tid < s ==> Perm(&sdata[tid], write) ** Perm(&sdata[tid + s], read);
  @*/
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      mySum = mySum + sdata[tid + s];
      sdata[tid] = mySum;
    }
    /*@
      context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
      context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
      requires \ltid < s ==> Perm(&sdata[\ltid], write);
      ensures \ltid < s / 2 ==> Perm(&sdata[\ltid], write) ** Perm(&sdata[\ltid + s / 2], read);
    @*/
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
template __global__ void reduce3<float>(const float *, float *, unsigned int);
template __global__ void reduce3<double>(const double *, double *, unsigned int);

#define RBOUND 100000000
// Input k of the block's 2 * blockSize inputs at the launch, 0 past the end (a barrier forgets
// the heap, so the barrier contracts speak of the launch values, which no thread changes).
#define IN(k) (BASE + (k) < n ? \old(g_idata[BASE + (k)]) : 0)
#define BASE (blockIdx.x * 16)
#define S2(t) (IN(t) + IN((t) + 8))
#define S4(t) (S2(t) + S2((t) + 4))
#define S8(t) (S4(t) + S4((t) + 2))

/*@
  context blockDim.x == blockSize && blockSize == 8;
  context \pointer_length(g_idata) == n && \pointer_length(g_odata) == gridDim.x;
  context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
  context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
  requires n <= 2 * blockSize * gridDim.x;
  requires (\forall int j; 0 <= j && j < n; -RBOUND <= g_idata[j] && g_idata[j] <= RBOUND);
  requires Perm(&sdata[\ltid], write);
  ensures \ltid == 0 ==> g_odata[blockIdx.x] == S8(0) + S8(1);
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
    context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires Perm(&sdata[\ltid], write) ** sdata[\ltid] == S2(\ltid);
    ensures \ltid < 4 ==> Perm(&sdata[\ltid], write) ** sdata[\ltid] == S2(\ltid);
    ensures \ltid < 4 ==> Perm(&sdata[\ltid + 4], read) ** sdata[\ltid + 4] == S2(\ltid + 4);
  @*/
  __syncthreads();
  if ((blockSize >= 8) && (tid < 4)) {
    mySum = mySum + sdata[tid + 4];
    sdata[tid] = mySum;
  }
  /*@
    context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires \ltid < 4 ==> Perm(&sdata[\ltid], write) ** sdata[\ltid] == S4(\ltid);
    ensures \ltid < 2 ==> Perm(&sdata[\ltid], write) ** sdata[\ltid] == S4(\ltid);
    ensures \ltid < 2 ==> Perm(&sdata[\ltid + 2], read) ** sdata[\ltid + 2] == S4(\ltid + 2);
  @*/
  __syncthreads();
  if ((blockSize >= 4) && (tid < 2)) {
    mySum = mySum + sdata[tid + 2];
    sdata[tid] = mySum;
  }
  /*@
    context (\forall* int j; 0 <= j && j < n; Perm(&g_idata[j], read));
    context \ltid == 0 ==> Perm(&g_odata[blockIdx.x], write);
    requires \ltid < 2 ==> Perm(&sdata[\ltid], write) ** sdata[\ltid] == S8(\ltid);
    ensures \ltid == 0 ==> Perm(&sdata[1], read) ** sdata[1] == S8(1);
  @*/
  __syncthreads();
  if ((blockSize >= 2) && (tid < 1)) {
    mySum = mySum + sdata[tid + 1];
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
template __global__ void reduce4<int, BLOCK_SIZE>(const int *, int *, unsigned int);
