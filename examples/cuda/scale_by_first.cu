// Scale every element by a factor that the first thread of each block loads into shared memory,
// so that the block reads the global factor once: thread 0 copies factor[0] into s, and after
// __syncthreads() every thread multiplies its element by s (the pattern of VerCors's
// static_shared example). The factor and the elements are bounded, so that the product fits in
// an int. The proof shows that only thread 0 writes the shared cell, that __syncthreads() hands
// every thread of the block a read share of it with its value, and the result.
//:: verdict verified
#include <cuda.h>
#define MAX_FACTOR 1000
#define MAX_VALUE 1000000

/*@
  context \pointer_length(factor) == 1 && \pointer_length(x) == n;
  context Perm(&factor[0], read);
  context \gtid < n ==> Perm(&x[\gtid], write);
  requires \ltid == 0 ==> Perm(&s[0], write);
  requires -MAX_FACTOR <= factor[0] && factor[0] <= MAX_FACTOR;
  requires \gtid < n ==> -MAX_VALUE <= x[\gtid] && x[\gtid] <= MAX_VALUE;
  ensures \gtid < n ==> x[\gtid] == \old(x[\gtid]) * factor[0];
@*/
__global__ void scale_by_first(const int* factor, int* x, int n) {
  __shared__ int s[1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    s[0] = factor[0];
  }
  /*@
    context Perm(&factor[0], read);
    context \gtid < n ==> Perm(&x[\gtid], write);
    context -MAX_FACTOR <= factor[0] && factor[0] <= MAX_FACTOR;
    context \gtid < n ==> -MAX_VALUE <= x[\gtid] && x[\gtid] <= MAX_VALUE && x[\gtid] == \old(x[\gtid]);
    requires \ltid == 0 ==> Perm(&s[0], write) ** s[0] == factor[0];
    ensures Perm(&s[0], read) ** s[0] == factor[0];
  @*/
  __syncthreads();
  if (i < n) {
    x[i] = x[i] * s[0];
  }
}
