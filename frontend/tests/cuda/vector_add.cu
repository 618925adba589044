// Vector addition as the CUDA samples' vectorAdd writes it, C[i] = A[i] + B[i] for i < numElements
// over a grid rounded up to whole blocks, in float (the samples' own kernel: the proof shows race
// freedom and bounds, since a float sum is any float to lockstep) and in int through a local
// header's IMUL macro (the samples' __mul24, exact for blocks and grids below 2^23, which the
// contract states, as CUDA's own limits of 1024 threads a block and 65535 blocks do) and a
// `__forceinline__` helper, with `__restrict__` and `const` pointers (the proof shows every C[i]
// is the sum; the inputs are bounded so that it cannot overflow).
//:: verdict verified
#include "common.h"

/*@
  context \pointer_length(A) == numElements && \pointer_length(B) == numElements;
  context \pointer_length(C) == numElements;
  context \gtid < numElements ==> Perm(&A[\gtid], read) ** Perm(&B[\gtid], read) ** Perm(&C[\gtid], write);
  ensures \gtid < numElements ==> A[\gtid] == \old(A[\gtid]);
@*/
__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) {
    C[i] = A[i] + B[i] + 0.0f;
  }
}

static __device__ __forceinline__ int add(int a, int b) { return a + b; }

/*@
  context blockDim.x <= 1024 && gridDim.x <= 65535;
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context \gtid < n ==> Perm(&a[\gtid], 1\2) ** Perm(&b[\gtid], 1\2) ** Perm(&c[\gtid], write);
  requires \gtid < n ==> -HALF_INT <= a[\gtid] && a[\gtid] <= HALF_INT;
  requires \gtid < n ==> -HALF_INT <= b[\gtid] && b[\gtid] <= HALF_INT;
  ensures \gtid < n ==> c[\gtid] == a[\gtid] + b[\gtid];
@*/
__global__ void vectorAddInt(const int *__restrict__ a, const int *__restrict__ b, int *__restrict__ c, int n) {
  const int i = IMUL(blockDim.x, blockIdx.x) + threadIdx.x;
  if (i < n) {
    c[i] = add(a[i], b[i]);
  }
}
