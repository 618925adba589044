// Fig. 5.8 of the seed, the running example, written in CUDA: thread i writes a[i]; after
// __syncthreads() it reads its neighbour's a[(i+1) % n] and writes b[i]. The one-block assumption
// of the figure is the contract's gridDim.x == 1 (the figure's `tcount == gsize`), and its
// percentages are fractions (`perm(a[..],10)` is `Perm(&a[..], 1\10)`). The proof shows that the
// barrier hands each thread a read share of its neighbour's cell, whose value the neighbour's
// barrier precondition passes on, so that b[i] == (i+1) % n for every block size n.
//:: verdict verified
#include <cuda.h>

/*@
  requires gridDim.x == 1;
  requires \pointer_length(a) == blockDim.x && \pointer_length(b) == blockDim.x;
  requires Perm(&a[threadIdx.x], write) ** Perm(&b[threadIdx.x], write);
  ensures Perm(&b[threadIdx.x], write);
  ensures b[threadIdx.x] == (threadIdx.x + 1) % blockDim.x;
@*/
__global__ void demo(int* a, int* b) {
  int i = threadIdx.x;
  a[i] = i;
  /*@
    requires a[threadIdx.x] == threadIdx.x;
    ensures Perm(&a[(threadIdx.x + 1) % blockDim.x], 1\10) ** Perm(&b[threadIdx.x], write);
    ensures a[(threadIdx.x + 1) % blockDim.x] == (threadIdx.x + 1) % blockDim.x;
  @*/
  __syncthreads();
  b[i] = a[(i + 1) % blockDim.x];
}
