// stencil.cu's stencil_1d whose halo is loaded by the threads `threadIdx.x <= RADIUS` instead
// of `< RADIUS`, one thread too many: thread RADIUS stores into temp[RADIUS], the cell thread 0
// stores its own input into (a write-write race in shared memory), and into
// temp[2 * RADIUS + BLOCK_SIZE], one past the end of the shared array.
//:: verdict failed
//:: run finds race, access.bounds, access.write
//:: run with --groups 3 --gsize 8
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
  if (threadIdx.x <= RADIUS) {
    temp[lindex - RADIUS] = in[gindex - RADIUS]; //:: fails access.write
    temp[lindex + BLOCK_SIZE] = in[gindex + BLOCK_SIZE]; //:: fails access.bounds
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
