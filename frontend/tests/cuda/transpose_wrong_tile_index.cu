// transpose.cu's shared-memory transpose reading the tile back as it was stored,
// block[threadIdx.y][threadIdx.x], instead of transposed: the blocks move to their transposed
// places, but each tile keeps its orientation, so the output is wrong off the tiles' diagonals,
// and thread (x, y) reads a cell that the barrier handed to thread (y, x).
//:: verdict failed
//:: run finds thread.post, access.read
//:: run with --groups 2x2 --gsize 4x4 --param width=6 --param height=7
#include "common.h"
#define BLOCK_DIM TILE_DIM

// The thread's cell of idata, and the cell of the thread that mirrors it across the diagonal.
#define X_IN (blockIdx.x * BLOCK_DIM + threadIdx.x)
#define Y_IN (blockIdx.y * BLOCK_DIM + threadIdx.y)
#define X_OUT (blockIdx.y * BLOCK_DIM + threadIdx.x)
#define Y_OUT (blockIdx.x * BLOCK_DIM + threadIdx.y)
#define LOADS (X_IN < width && Y_IN < height)
#define STORES (X_OUT < height && Y_OUT < width)

/*@
  context blockDim.x == BLOCK_DIM && blockDim.y == BLOCK_DIM;
  context width >= 0 && height >= 0 && width * height <= 2147483647;
  context \pointer_length(idata) == width * height && \pointer_length(odata) == width * height;
  context LOADS ==> Perm(&idata[Y_IN * width + X_IN], read);
  context STORES ==> Perm(&odata[Y_OUT * height + X_OUT], write);
  context STORES ==> Perm(&idata[X_OUT * width + Y_OUT], read);
  requires Perm(&block[threadIdx.y][threadIdx.x], write);
  ensures STORES ==> odata[Y_OUT * height + X_OUT] == idata[X_OUT * width + Y_OUT]; //:: fails thread.post
@*/
__global__ void transpose(int *odata, const int *idata, int width, int height) {
  __shared__ int block[BLOCK_DIM][BLOCK_DIM + 1];
  int xIndex = blockIdx.x * BLOCK_DIM + threadIdx.x;
  int yIndex = blockIdx.y * BLOCK_DIM + threadIdx.y;
  if ((xIndex < width) && (yIndex < height)) {
    int index_in = yIndex * width + xIndex;
    block[threadIdx.y][threadIdx.x] = idata[index_in];
  }
  /*@
    context LOADS ==> Perm(&idata[Y_IN * width + X_IN], read);
    context STORES ==> Perm(&odata[Y_OUT * height + X_OUT], write);
    context STORES ==> Perm(&idata[X_OUT * width + Y_OUT], read);
    requires Perm(&block[threadIdx.y][threadIdx.x], write);
    requires LOADS ==> block[threadIdx.y][threadIdx.x] == idata[Y_IN * width + X_IN];
    ensures STORES ==> Perm(&block[threadIdx.x][threadIdx.y], read);
    ensures STORES ==> block[threadIdx.x][threadIdx.y] == idata[X_OUT * width + Y_OUT];
  @*/
  __syncthreads();
  xIndex = blockIdx.y * BLOCK_DIM + threadIdx.x;
  yIndex = blockIdx.x * BLOCK_DIM + threadIdx.y;
  if ((xIndex < height) && (yIndex < width)) {
    int index_out = yIndex * height + xIndex;
    odata[index_out] = block[threadIdx.y][threadIdx.x]; //:: fails access.read
  }
}
