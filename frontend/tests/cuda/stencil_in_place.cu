// A 3-point smoothing stencil, u[i] = c * (u[i - 1] + u[i] + u[i + 1]) on the interior points,
// updated in place to save the second buffer (stencil.cu's kernels read one buffer and write
// another): a thread overwrites its point while its neighbours, in the same block or the next,
// may still read it. The contract that gives each thread its point for writing and its
// neighbours' for reading hands a point to more than one thread. (The 2D form of this bug, the
// in-place jacobi2d, is undecided within the default solver limits.)
//:: verdict failed
//:: run finds race
//:: run with --groups 2 --gsize 4 --param n=7
#include "common.h"

#define INTERIOR (0 < GLOBAL_X && GLOBAL_X < n - 1)

/*@
  context \pointer_length(u) == n;
  context INTERIOR ==> Perm(&u[GLOBAL_X], write); //:: fails group.resources, kernel.resources
  context INTERIOR ==> Perm(&u[GLOBAL_X - 1], read) ** Perm(&u[GLOBAL_X + 1], read);
@*/
__global__ void smooth_in_place(float c, float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    u[i] = c * (u[i - 1] + u[i] + u[i + 1]);
  }
}
