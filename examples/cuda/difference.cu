// The forward difference of an array, out[i] = in[i + 1] - in[i] for i < n - 1, a two-point
// stencil read straight from global memory: neighbouring threads share an input cell for
// reading. The inputs are bounded by half of int's range, so that the difference cannot overflow.
// The proof shows that every read is in bounds, that the threads write disjoint output cells,
// and the result.
//:: verdict verified
#include <cuda.h>
#define BOUND 1000000000

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n - 1 ==> Perm(&in[\gtid], read) ** Perm(&in[\gtid + 1], read) ** Perm(&out[\gtid], write);
  requires \gtid < n - 1 ==> -BOUND <= in[\gtid] && in[\gtid] <= BOUND && -BOUND <= in[\gtid + 1] && in[\gtid + 1] <= BOUND;
  ensures \gtid < n - 1 ==> out[\gtid] == in[\gtid + 1] - in[\gtid];
@*/
__global__ void difference(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) {
    out[i] = in[i + 1] - in[i];
  }
}
