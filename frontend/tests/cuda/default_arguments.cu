// Device helpers with default arguments, as C++ CUDA code writes its small utilities: a
// `scale` whose factor defaults to 2, and a template `offset` whose step defaults to 1; a call
// that leaves an argument out passes the default written in the declaration. The proof shows
// every value: out[i] = offset(scale(in[i]) + scale(1, 3)) = 2 in[i] + 3 + 1, the inputs bounded
// so that nothing overflows.
//:: verdict verified
//:: run with --groups 2 --gsize 4 --param n=7 --init in=1,2,3,4,5,6,7
#include "common.h"

__device__ int scale(int x, int k = 2) { return x * k; }

template <typename T>
__device__ T offset(T x, T by = 1) { return x + by; }

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  requires \gtid < n ==> -SMALL_INT <= in[\gtid] && in[\gtid] <= SMALL_INT;
  ensures \gtid < n ==> out[\gtid] == 2 * in[\gtid] + 3 + 1;
@*/
__global__ void scaled(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = offset(scale(in[i]) + scale(1, 3));
  }
}
