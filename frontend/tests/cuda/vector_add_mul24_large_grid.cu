// vector_add.cu's vectorAddInt without the contract's bound on the launch: __mul24 (the
// header's IMUL) multiplies the low 24 bits of blockDim.x and blockIdx.x, so on a grid of 2^23
// blocks or more the index is not the thread's (CUDA leaves the product to the device, and so does
// lockstep), and threads write outside c and into one another's cells. A run cannot reach such a
// grid; the proof speaks for every launch.
//:: verdict failed
#include "common.h"

static __device__ __forceinline__ int add(int a, int b) { return a + b; } //:: fails arith.overflow

/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context \gtid < n ==> Perm(&a[\gtid], 1\2) ** Perm(&b[\gtid], 1\2) ** Perm(&c[\gtid], write);
  requires \gtid < n ==> -HALF_INT <= a[\gtid] && a[\gtid] <= HALF_INT;
  requires \gtid < n ==> -HALF_INT <= b[\gtid] && b[\gtid] <= HALF_INT;
  ensures \gtid < n ==> c[\gtid] == a[\gtid] + b[\gtid]; //:: fails thread.post
@*/
__global__ void vectorAddInt(const int *__restrict__ a, const int *__restrict__ b, int *__restrict__ c, int n) {
  const int i = IMUL(blockDim.x, blockIdx.x) + threadIdx.x;
  if (i < n) {
    c[i] = add(a[i], b[i]); //:: fails access.bounds, access.read, access.write
  }
}
