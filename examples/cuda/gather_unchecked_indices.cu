// gather.cu trusting its index array without a contract for it: nothing says that idx[i] lies
// within in, so the read in[idx[i]] may fall outside the array (as a corrupt or stale index
// buffer makes it).
//:: verdict failed
//:: run finds access.bounds
//:: run with --groups 1 --gsize 4 --param n=4 --param m=4 --init idx=0,1,2,4
#include <cuda.h>

/*@
  context \pointer_length(in) == n && \pointer_length(idx) == m && \pointer_length(out) == m;
  context (\forall* int k; 0 <= k && k < n; Perm(&in[k], read));
  context \gtid < m ==> Perm(&idx[\gtid], read) ** Perm(&out[\gtid], write);
  ensures \gtid < m ==> out[\gtid] == in[idx[\gtid]];
@*/
__global__ void gather_unchecked_indices(const int* in, const int* idx, int* out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    out[i] = in[idx[i]]; //:: fails access.bounds
  }
}
