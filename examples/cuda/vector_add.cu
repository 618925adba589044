// Vector addition over any number of blocks, as CUDA programs write it: thread
// i = blockIdx.x * blockDim.x + threadIdx.x adds a[i] and b[i] into c[i] if i < n, the grid
// being rounded up to whole blocks. The inputs are bounded by half of int's range, so that the sum
// cannot overflow. The proof shows that the threads read shared inputs and write disjoint outputs
// across all blocks, that no sum overflows, and that every c[i] is the sum.
//:: verdict verified
#include <cuda.h>
#define BOUND 1000000000

/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context \gtid < n ==> Perm(&a[\gtid], read) ** Perm(&b[\gtid], read) ** Perm(&c[\gtid], write);
  requires \gtid < n ==> -BOUND <= a[\gtid] && a[\gtid] <= BOUND && -BOUND <= b[\gtid] && b[\gtid] <= BOUND;
  ensures \gtid < n ==> c[\gtid] == a[\gtid] + b[\gtid];
@*/
__global__ void vector_add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
