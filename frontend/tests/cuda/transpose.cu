// Matrix transpose as the CUDA samples write it, over a 2D grid of 2D blocks (blockIdx.y,
// threadIdx.y): transposeNaive straight through global memory, and the samples' original
// `transpose`, which stages a tile in `__shared__ int block[BLOCK_DIM][BLOCK_DIM + 1]` (the extra
// column avoids bank conflicts), reads it back transposed after __syncthreads(), and guards both
// halves for matrices that are not whole tiles (its indices are `int` here, as in the samples'
// newer transposes: with the old sample's `unsigned int` the proof times out). The proof shows race freedom in shared memory and
// in the output, the bounds (the indices are non-linear in the sizes: the matrix must fit an
// int), and that odata holds the transpose wherever a thread writes it.
//:: verdict verified
//:: run with --groups 2x2 --gsize 4x4 --param width=6 --param height=7
//:: run with --groups 3x1 --gsize 4x4 --param width=12 --param height=3
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
  ensures STORES ==> odata[Y_OUT * height + X_OUT] == idata[X_OUT * width + Y_OUT];
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
    odata[index_out] = block[threadIdx.x][threadIdx.y];
  }
}

#define COL (blockIdx.x * blockDim.x + threadIdx.x)
#define ROW (blockIdx.y * blockDim.y + threadIdx.y)

/*@
  context width >= 0 && height >= 0 && width * height <= 2147483647;
  context \pointer_length(idata) == width * height && \pointer_length(odata) == width * height;
  context COL < width && ROW < height ==> Perm(&idata[ROW * width + COL], read) ** Perm(&odata[COL * height + ROW], write);
  ensures COL < width && ROW < height ==> odata[COL * height + ROW] == idata[ROW * width + COL];
@*/
__global__ void transposeNaive(int *odata, const int *idata, int width, int height) {
  int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
  int yIndex = blockIdx.y * blockDim.y + threadIdx.y;
  if (xIndex < width && yIndex < height) {
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    odata[index_out] = idata[index_in];
  }
}
