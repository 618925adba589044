// Clamp every element into [lo, hi], out[i] = min(max(in[i], lo), hi) for i < n, as image and
// signal kernels do, with the bounds kernel parameters and lo <= hi in the contract. The proof
// shows that the threads write disjoint output cells, that every result lies in [lo, hi], and
// that it is the input wherever the input already did.
//:: verdict verified
#include <cuda.h>

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  requires lo <= hi;
  ensures \gtid < n ==> lo <= out[\gtid] && out[\gtid] <= hi;
  ensures \gtid < n && lo <= in[\gtid] && in[\gtid] <= hi ==> out[\gtid] == in[\gtid];
@*/
__global__ void clamp(const int* in, int* out, int lo, int hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = min(max(in[i], lo), hi);
  }
}
