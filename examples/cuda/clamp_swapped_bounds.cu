// clamp.cu with min and max swapped, max(min(in[i], lo), hi): every result is at least hi, so
// an input inside [lo, hi) does not come out unchanged, and with lo < hi no result lies in range.
//:: verdict failed
//:: run finds thread.post
#include <cuda.h>

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  requires lo <= hi;
  ensures \gtid < n ==> lo <= out[\gtid] && out[\gtid] <= hi;
  ensures \gtid < n && lo <= in[\gtid] && in[\gtid] <= hi ==> out[\gtid] == in[\gtid]; //:: fails thread.post
@*/
__global__ void clamp_swapped_bounds(const int* in, int* out, int lo, int hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = max(min(in[i], lo), hi);
  }
}
