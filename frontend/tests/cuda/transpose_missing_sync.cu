// transpose.cu's shared-memory transpose without the __syncthreads() between staging the tile
// and reading it back transposed: thread (x, y) reads block[x][y], which thread (y, x) may not
// have stored yet (a race in shared memory), so the output may hold a stale value.
//:: verdict failed
//:: run finds race, access.read
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
  xIndex = blockIdx.y * BLOCK_DIM + threadIdx.x;
  yIndex = blockIdx.x * BLOCK_DIM + threadIdx.y;
  if ((xIndex < height) && (yIndex < width)) {
    int index_out = yIndex * height + xIndex;
    odata[index_out] = block[threadIdx.x][threadIdx.y]; //:: fails access.read
  }
}
