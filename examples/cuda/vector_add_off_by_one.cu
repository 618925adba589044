// vector_add.cu with an off-by-one output index, c[i + 1]: thread i writes the cell thread i + 1
// owns, and the last thread writes past the end of c.
//:: verdict failed
//:: run finds access.bounds, access.write
#include <cuda.h>
#define BOUND 1000000000

/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context \gtid < n ==> Perm(&a[\gtid], read) ** Perm(&b[\gtid], read) ** Perm(&c[\gtid], write);
  requires \gtid < n ==> -BOUND <= a[\gtid] && a[\gtid] <= BOUND && -BOUND <= b[\gtid] && b[\gtid] <= BOUND;
  ensures \gtid < n ==> c[\gtid] == a[\gtid] + b[\gtid]; //:: fails thread.post
@*/
__global__ void vector_add_off_by_one(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i + 1] = a[i] + b[i]; //:: fails access.bounds, access.write
  }
}
