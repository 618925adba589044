// Shared definitions of the CUDA corpus, included as the SDK samples include their helper headers
// (`#include "common.h"`, found next to the kernel's file).
#ifndef LOCKSTEP_CORPUS_COMMON_H
#define LOCKSTEP_CORPUS_COMMON_H

#include <cuda_runtime.h>

// The SDK's block sizes, small so that a run can cover whole blocks.
#define BLOCK_SIZE 8
#define TILE_DIM 4

// A bound on inputs that a sum or a difference of two of them cannot overflow.
#define HALF_INT 1000000000
// A bound on inputs that a product of two of them cannot overflow.
#define SMALL_INT 30000

// The SDK's integer multiply macro, a 24-bit product as in the samples: exact while both
// operands lie in 24 bits.
#define IMUL(a, b) __mul24(a, b)

// The global index of the thread along x, as the samples compute it.
#define GLOBAL_X (blockIdx.x * blockDim.x + threadIdx.x)

typedef unsigned int uint;

// Rounds up an integer division, as host code sizes grids.
static __device__ __forceinline__ int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }

// A clamp every image kernel carries.
template <typename T>
__device__ __attribute__((always_inline)) T clampT(T x, T lo, T hi) {
  return min(max(x, lo), hi);
}

#endif
