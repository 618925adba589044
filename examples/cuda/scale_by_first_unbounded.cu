// scale_by_first.cu without the bounds on the factor and the elements: the product of two ints
// may overflow, and signed overflow is undefined behaviour in C (arith.overflow).
//:: verdict failed
//:: run finds arith.overflow
//:: run with --groups 1 --gsize 4 --param n=4 --init factor=65536 --init x=65536,1,1,1
#include <cuda.h>

/*@
  context \pointer_length(factor) == 1 && \pointer_length(x) == n;
  context Perm(&factor[0], read);
  context \gtid < n ==> Perm(&x[\gtid], write);
  requires \ltid == 0 ==> Perm(&s[0], write);
  ensures \gtid < n ==> x[\gtid] == \old(x[\gtid]) * factor[0];
@*/
__global__ void scale_by_first_unbounded(const int* factor, int* x, int n) {
  __shared__ int s[1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    s[0] = factor[0];
  }
  /*@
    context Perm(&factor[0], read);
    context \gtid < n ==> Perm(&x[\gtid], write);
    context \gtid < n ==> x[\gtid] == \old(x[\gtid]);
    requires \ltid == 0 ==> Perm(&s[0], write) ** s[0] == factor[0];
    ensures Perm(&s[0], read) ** s[0] == factor[0];
  @*/
  __syncthreads();
  if (i < n) {
    x[i] = x[i] * s[0]; //:: fails arith.overflow
  }
}
