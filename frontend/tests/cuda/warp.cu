// Warp-level indexing. warp_leaders has the warp size as a macro, as many kernels do (`#define
// WARP_SIZE 32`): the first lane of every warp, `(threadIdx.x & (WARP_SIZE - 1)) == 0`, copies
// its input into its warp's cell of the output, the warp's global index being `gid >>
// LOG_WARP_SIZE`; lane_ids writes every thread's lane and warp within its block with CUDA's
// `warpSize`, which lockstep reads as 32, its value on every NVIDIA GPU. Blocks are whole
// warps. The proof shows that the leaders' cells are disjoint, and every value.
//:: verdict verified
//:: run with --groups 2 --gsize 64
//:: run with --groups 3 --gsize 32
#include "common.h"

#define WARP_SIZE 32
#define LOG_WARP_SIZE 5

/*@
  context blockDim.x % WARP_SIZE == 0 && blockDim.x * gridDim.x <= 1048576;
  context \pointer_length(in) == blockDim.x * gridDim.x && \pointer_length(warpFirst) == blockDim.x * gridDim.x / WARP_SIZE;
  context Perm(&in[\gtid], read);
  context \ltid % WARP_SIZE == 0 ==> Perm(&warpFirst[\gtid / WARP_SIZE], write);
  ensures \ltid % WARP_SIZE == 0 ==> warpFirst[\gtid / WARP_SIZE] == in[\gtid];
@*/
__global__ void warp_leaders(const int *in, int *warpFirst) {
  unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int lane = threadIdx.x & (WARP_SIZE - 1);
  unsigned int warp = gid >> LOG_WARP_SIZE;
  if (lane == 0) {
    warpFirst[warp] = in[gid];
  }
}

/*@
  context blockDim.x % WARP_SIZE == 0 && blockDim.x * gridDim.x <= 1048576;
  context \pointer_length(lanes) == blockDim.x * gridDim.x && \pointer_length(warps) == blockDim.x * gridDim.x;
  context Perm(&lanes[\gtid], write) ** Perm(&warps[\gtid], write);
  ensures lanes[\gtid] == \ltid % warpSize && warps[\gtid] == \ltid / warpSize;
@*/
__global__ void lane_ids(int *lanes, int *warps) {
  const unsigned int tid = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + tid;
  lanes[i] = tid % warpSize;
  warps[i] = tid / warpSize;
}
