// gather.cu done in place to save the output buffer, a[i] = a[idx[i]]: thread i overwrites a[i]
// while the thread j with idx[j] == i may still read it, in the same block or another one: the
// contract that gives each thread its own cell for writing and the indexed one for reading gives
// two threads more than all of a cell.
//:: verdict failed
//:: run finds race
//:: run with --groups 2 --gsize 2 --param n=4 --init idx=1,0,3,2
#include <cuda.h>

/*@
  context \pointer_length(a) == n && \pointer_length(idx) == n;
  context \gtid < n ==> Perm(&idx[\gtid], read);
  requires \gtid < n ==> 0 <= idx[\gtid] && idx[\gtid] < n;
  requires \gtid < n ==> Perm(&a[\gtid], write) ** Perm(&a[idx[\gtid]], read); //:: fails group.resources, kernel.resources
@*/
__global__ void gather_in_place(int* a, const int* idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = a[idx[i]];
  }
}
