// Gather through an index array, out[i] = in[idx[i]] for i < m, as sparse and permutation kernels
// do: every thread may read any input cell, and the contract states that the host's indices lie
// within in. The proof shows that every read is in bounds, that the threads write disjoint output
// cells, and the result.
//:: verdict verified
#include <cuda.h>

/*@
  context \pointer_length(in) == n && \pointer_length(idx) == m && \pointer_length(out) == m;
  context (\forall* int k; 0 <= k && k < n; Perm(&in[k], read));
  context \gtid < m ==> Perm(&idx[\gtid], read) ** Perm(&out[\gtid], write);
  requires \gtid < m ==> 0 <= idx[\gtid] && idx[\gtid] < n;
  ensures \gtid < m ==> out[\gtid] == in[idx[\gtid]];
@*/
__global__ void gather(const int* in, const int* idx, int* out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    out[i] = in[idx[i]];
  }
}
