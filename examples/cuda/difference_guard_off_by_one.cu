// difference.cu guarded by i < n instead of i < n - 1: the thread of the last cell reads
// in[n], one past the end of the array, without permission.
//:: verdict failed
//:: run finds access.bounds, access.read
#include <cuda.h>
#define BOUND 1000000000

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n - 1 ==> Perm(&in[\gtid], read) ** Perm(&in[\gtid + 1], read) ** Perm(&out[\gtid], write);
  requires \gtid < n - 1 ==> -BOUND <= in[\gtid] && in[\gtid] <= BOUND && -BOUND <= in[\gtid + 1] && in[\gtid + 1] <= BOUND;
  ensures \gtid < n - 1 ==> out[\gtid] == in[\gtid + 1] - in[\gtid];
@*/
__global__ void difference_guard_off_by_one(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i + 1] - in[i]; //:: fails access.bounds
  }
}
