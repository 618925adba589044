// saxpy.cu's int saxpy with the operands swapped, y = a * y + x: the result the postcondition
// states, a * x + y, comes out only where the two inputs agree or a is 1.
//:: verdict failed
//:: run finds thread.post
//:: run with --groups 2 --gsize 4 --param n=5 --param a=2 --init x=1,2,3,4,5
#include "common.h"

typedef int elem_t;

/*@
  context \pointer_length(x) == n && \pointer_length(y) == n;
  context \gtid < n ==> Perm(&x[\gtid], 1\2) ** Perm(&y[\gtid], write);
  requires -SMALL_INT <= a && a <= SMALL_INT;
  requires \gtid < n ==> -SMALL_INT <= x[\gtid] && x[\gtid] <= SMALL_INT;
  requires \gtid < n ==> -SMALL_INT <= y[\gtid] && y[\gtid] <= SMALL_INT;
  ensures \gtid < n ==> y[\gtid] == a * x[\gtid] + \old(y[\gtid]); //:: fails thread.post
@*/
__global__ void saxpy_int(int n, elem_t a, const elem_t *x, elem_t *y) {
  uint i = uint(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<uint>(n)) {
    y[i] = a * y[i] + x[i];
  }
}
