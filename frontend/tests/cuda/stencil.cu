// Stencils as the CUDA training material and Parboil/Rodinia write them. stencil_1d is NVIDIA's
// "CUDA C basics" example: each block stages its BLOCK_SIZE inputs and a halo of RADIUS cells on
// either side in `__shared__ int temp[BLOCK_SIZE + 2 * RADIUS]` (the first RADIUS threads load
// the halo), and after __syncthreads() each thread sums the 2 * RADIUS + 1 cells around its own.
// The input is padded by RADIUS cells at both ends, and the kernel reads it through a pointer
// `in + RADIUS`, as the example's host passes it. The proof shows race freedom, bounds, and
// every result (the inputs are bounded so that the sum cannot overflow). jacobi2d is Parboil's
// 2D 5-point stencil read straight from global memory, on the interior points of a 2D grid of
// 2D blocks (race freedom and bounds; the average is a float).
//:: verdict verified
//:: run with --kernel stencil_1d --groups 3 --gsize 8
//:: run with --kernel jacobi2d --groups 2x2 --gsize 4x2 --param nx=6 --param ny=5
#include "common.h"

#define RADIUS 2
#define WIDTH (2 * RADIUS + 1)
#define VBOUND 100000
// The padded input's cell at offset k from the block's first.
#define PADDED(k) padded[blockIdx.x * BLOCK_SIZE + (k)]
// temp[lindex + o] for o in [-RADIUS, RADIUS], summed up to (not including) offset `upto`.
#define TERM(o, upto) ((o) < (upto) ? PADDED(\ltid + RADIUS + (o)) : 0)
#define PARTIAL(upto) (TERM(-2, upto) + TERM(-1, upto) + TERM(0, upto) + TERM(1, upto) + TERM(2, upto))

/*@
  context blockDim.x == BLOCK_SIZE;
  context \pointer_length(padded) == BLOCK_SIZE * gridDim.x + 2 * RADIUS;
  context \pointer_length(out) == BLOCK_SIZE * gridDim.x;
  context (\forall* int j; 0 <= j && j < BLOCK_SIZE * gridDim.x + 2 * RADIUS; Perm(&padded[j], read));
  context Perm(&out[\gtid], write);
  requires (\forall int j; 0 <= j && j < BLOCK_SIZE * gridDim.x + 2 * RADIUS; -VBOUND <= padded[j] && padded[j] <= VBOUND);
  requires Perm(&temp[\ltid + RADIUS], write);
  requires \ltid < RADIUS ==> Perm(&temp[\ltid], write) ** Perm(&temp[\ltid + RADIUS + BLOCK_SIZE], write);
  ensures out[\gtid] == PARTIAL(RADIUS + 1);
@*/
__global__ void stencil_1d(const int *padded, int *out) {
  __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
  const int *in = padded + RADIUS;
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;

  // Read input elements into shared memory
  temp[lindex] = in[gindex];
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = in[gindex - RADIUS];
    temp[lindex + BLOCK_SIZE] = in[gindex + BLOCK_SIZE];
  }
  /*@
    context (\forall* int j; 0 <= j && j < BLOCK_SIZE * gridDim.x + 2 * RADIUS; Perm(&padded[j], read));
    context Perm(&out[\gtid], write);
    context (\forall int j; 0 <= j && j < BLOCK_SIZE * gridDim.x + 2 * RADIUS; -VBOUND <= padded[j] && padded[j] <= VBOUND);
    requires Perm(&temp[\ltid + RADIUS], write) ** temp[\ltid + RADIUS] == PADDED(\ltid + RADIUS);
    requires \ltid < RADIUS ==> Perm(&temp[\ltid], write) ** temp[\ltid] == PADDED(\ltid);
    requires \ltid < RADIUS ==> Perm(&temp[\ltid + RADIUS + BLOCK_SIZE], write) ** temp[\ltid + RADIUS + BLOCK_SIZE] == PADDED(\ltid + RADIUS + BLOCK_SIZE);
    ensures (\forall* int j; \ltid <= j && j < \ltid + WIDTH; Perm(&temp[j], read));
    ensures (\forall int j; \ltid <= j && j < \ltid + WIDTH; temp[j] == PADDED(j));
  @*/
  __syncthreads();

  // Apply the stencil
  int result = 0;
  /*@
    loop_invariant -RADIUS <= offset && offset <= RADIUS + 1;
    loop_invariant (\forall* int j; 0 <= j && j < BLOCK_SIZE * gridDim.x + 2 * RADIUS; Perm(&padded[j], read));
    loop_invariant Perm(&out[\gtid], write);
    loop_invariant (\forall int j; 0 <= j && j < BLOCK_SIZE * gridDim.x + 2 * RADIUS; -VBOUND <= padded[j] && padded[j] <= VBOUND);
    loop_invariant (\forall* int j; \ltid <= j && j < \ltid + WIDTH; Perm(&temp[j], read));
    loop_invariant (\forall int j; \ltid <= j && j < \ltid + WIDTH; temp[j] == PADDED(j));
    loop_invariant result == PARTIAL(offset);
  @*/
  for (int offset = -RADIUS; offset <= RADIUS; offset++)
    result += temp[lindex + offset];

  // Store the result
  out[gindex] = result;
}

#define JX (blockIdx.x * blockDim.x + threadIdx.x)
#define JY (blockIdx.y * blockDim.y + threadIdx.y)
#define INTERIOR (0 < JX && JX < nx - 1 && 0 < JY && JY < ny - 1)

/*@
  context nx >= 0 && ny >= 0 && nx * ny <= 2147483647;
  context \pointer_length(A0) == nx * ny && \pointer_length(Anext) == nx * ny;
  context (\forall* int j; 0 <= j && j < nx * ny; Perm(&A0[j], read));
  context INTERIOR ==> Perm(&Anext[JY * nx + JX], write);
@*/
__global__ void jacobi2d(float c0, float c1, const float *A0, float *Anext, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1) {
    Anext[j * nx + i] = c1 * (A0[j * nx + (i + 1)] + A0[j * nx + (i - 1)] + A0[(j + 1) * nx + i] +
                              A0[(j - 1) * nx + i]) - c0 * A0[j * nx + i];
  }
}
