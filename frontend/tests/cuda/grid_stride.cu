// saxpy over a grid-stride loop, as the CUDA blog's "CUDA Pro Tip" writes it: thread i handles
// x[i], x[i + stride], ... where stride = blockDim.x * gridDim.x, so a launch of any size covers
// any n. The permission of a thread is every cell \gtid + k * stride below n. Grid-stride loops
// are hard for the solver: this contract fixes the launch to STRIDE threads in all, which makes
// the stride a constant (with a symbolic stride the same proof takes about 30 s, and a
// functional postcondition more). n stays STRIDE below INT_MAX: `i += stride`
// adds an unsigned int, so past that it would wrap to a negative index.
//:: verdict verified
//:: run with --groups 2 --gsize 8 --param n=37
//:: run with --groups 4 --gsize 4 --param n=5
#include "common.h"

#define STRIDE 16
// The k-th cell of the thread.
#define AT(k) (\gtid + (k) * STRIDE)

/*@
  context blockDim.x * gridDim.x == STRIDE;
  context \pointer_length(x) == n && \pointer_length(y) == n && 0 <= n && n <= 2147483647 - STRIDE;
  context (\forall* int k; 0 <= k && AT(k) < n; Perm(&x[AT(k)], read) ** Perm(&y[AT(k)], write));
@*/
__global__ void saxpy_grid_stride(int n, float a, const float *x, float *y) {
  /*@
    loop_invariant i >= \gtid && (i - \gtid) % STRIDE == 0;
    loop_invariant (\forall* int k; 0 <= k && AT(k) < n; Perm(&x[AT(k)], read) ** Perm(&y[AT(k)], write));
  @*/
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}
