// vector_add.cu's vectorAdd without its bounds guard `if (i < numElements)`: the grid is rounded
// up to whole blocks, so the threads past the end of the arrays read A, B and write C outside
// them.
//:: verdict failed
//:: run finds access.bounds
//:: run with --groups 2 --gsize 4 --param numElements=5
#include "common.h"

/*@
  context \pointer_length(A) == numElements && \pointer_length(B) == numElements;
  context \pointer_length(C) == numElements;
  context \gtid < numElements ==> Perm(&A[\gtid], read) ** Perm(&B[\gtid], read) ** Perm(&C[\gtid], write);
@*/
__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  C[i] = A[i] + B[i]; //:: fails access.bounds
}
