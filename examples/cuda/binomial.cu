// Fig. 5.9 of the seed, binomial coefficients, written in CUDA: with n threads in one block,
// thread i ends with bin[i] = binom(n-1, i), the last row of Pascal's triangle computed row by
// row. In each round thread i copies bin[i] to the shared array tmp; __syncthreads() hands
// tmp[i-1] to thread i, which adds it to its own bin[i]; a second __syncthreads() hands tmp back
// to its owner. The proof shows race freedom, no barrier divergence, and the row.
// The figure's recursive pure function binom cannot be written yet: lockstep's C frontend reads
// no function other than kernels (a `/*@ pure @*/` function is a helper function, refused). So
// binom is the table BINOM(n, k) of Pascal's triangle for n <= 7, a macro, and the block has 2 to
// 8 threads; the seed's PVL kernel (examples/seed/binomial.pvl) proves it for every size.
// Thread 0 reads no left neighbour, so the figure's (tid-1) mod gsize is i - 1 under 0 < i.
//:: verdict verified
//:: run with --groups 1 --gsize 5
#include <cuda.h>
#define MAX_THREADS 8
#define ROW1(k) 1
#define ROW2(k) ((k) == 1 ? 2 : 1)
#define ROW3(k) ((k) == 1 || (k) == 2 ? 3 : 1)
#define ROW4(k) ((k) == 2 ? 6 : (k) == 1 || (k) == 3 ? 4 : 1)
#define ROW5(k) ((k) == 2 || (k) == 3 ? 10 : (k) == 1 || (k) == 4 ? 5 : 1)
#define ROW6(k) ((k) == 3 ? 20 : (k) == 2 || (k) == 4 ? 15 : (k) == 1 || (k) == 5 ? 6 : 1)
#define ROW7(k) ((k) == 3 || (k) == 4 ? 35 : (k) == 2 || (k) == 5 ? 21 : (k) == 1 || (k) == 6 ? 7 : 1)
#define BINOM(n, k) ((n) == 1 ? ROW1(k) : (n) == 2 ? ROW2(k) : (n) == 3 ? ROW3(k) : (n) == 4 ? ROW4(k) \
                     : (n) == 5 ? ROW5(k) : (n) == 6 ? ROW6(k) : (n) == 7 ? ROW7(k) : 1)
/*@
  requires gridDim.x == 1;
  requires 1 < blockDim.x && blockDim.x <= MAX_THREADS;
  requires \pointer_length(bin) == blockDim.x;
  requires Perm(&bin[threadIdx.x], write) ** Perm(&tmp[threadIdx.x], write);
  ensures Perm(&bin[threadIdx.x], write);
  ensures bin[threadIdx.x] == BINOM(blockDim.x - 1, threadIdx.x);
@*/
__global__ void binomial(int* bin) {
  __shared__ int tmp[MAX_THREADS];
  int i = threadIdx.x;
  int n = blockDim.x;
  int temp;
  int N = 1;
  bin[i] = 1;
  /*@
    loop_invariant Perm(&bin[i], write) ** Perm(&tmp[i], write);
    loop_invariant 1 <= N && N <= n - 1;
    loop_invariant i < N ? bin[i] == BINOM(N, i) : bin[i] == 1;
  @*/
  while (N < n - 1) {
    tmp[i] = bin[i];
    /*@
      requires \ltid < N ? tmp[\ltid] == BINOM(N, \ltid) : tmp[\ltid] == 1;
      requires \ltid < N ? bin[\ltid] == BINOM(N, \ltid) : bin[\ltid] == 1;
      ensures Perm(&bin[\ltid], write) ** (0 < \ltid ==> Perm(&tmp[\ltid - 1], 1\10));
      ensures \ltid < N ? bin[\ltid] == BINOM(N, \ltid) : bin[\ltid] == 1;
      ensures 0 < \ltid && \ltid <= N ==> tmp[\ltid - 1] == BINOM(N, \ltid - 1);
    @*/
    __syncthreads();
    N = N + 1;
    if (0 < i && i < N) {
      temp = tmp[i - 1];
      bin[i] = temp + bin[i];
    }
    /*@
      requires \ltid < N ? bin[\ltid] == BINOM(N, \ltid) : bin[\ltid] == 1;
      ensures Perm(&bin[\ltid], write) ** Perm(&tmp[\ltid], write);
      ensures \ltid < N ? bin[\ltid] == BINOM(N, \ltid) : bin[\ltid] == 1;
    @*/
    __syncthreads();
  }
}
