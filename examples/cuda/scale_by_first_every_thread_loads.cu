// scale_by_first.cu where every thread loads the factor into the shared cell, dropping the test
// threadIdx.x == 0 as harmless since they all store the same value: the stores still race (and
// only one thread may hold the cell for writing).
//:: verdict failed
//:: run finds race, access.write
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
__global__ void scale_by_first_every_thread_loads(const int* factor, int* x, int n) {
  __shared__ int s[1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[0] = factor[0]; //:: fails access.write
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
