// One step of a bitonic sorting network, as the CUDA samples' sortingNetworks write it:
// bitonicMergeGlobal with the merge's size and stride compile-time constants (template
// arguments), each thread a comparator of keys (and values) pos and pos + stride, where
// pos = 2 * i - (i & (stride - 1)), sorting the pair up or down as the bitonic sequence demands.
// The comparator is the samples' `__device__ inline` Comparator on four references. The proof
// shows that the comparators' pairs are disjoint (no race), the bounds, and that every pair
// comes out as a sorted permutation of itself, keys and values together.
//:: verdict verified
//:: run with --groups 2 --gsize 4 --param dir=1
//:: run with --groups 1 --gsize 8 --param dir=0
#include "common.h"

__device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint dir) {
  uint t;
  if ((keyA > keyB) == dir) {
    t = keyA;
    keyA = keyB;
    keyB = t;
    t = valA;
    valA = valB;
    valB = t;
  }
}

// The thread's comparator: its first position, and its direction.
#define POS (2 * \gtid - \gtid % stride)
#define DDD (dir != ((\gtid & (size / 2)) != 0))
// The keys at the launch, whether they come out swapped, and what each output then holds.
#define OLD_A \old(d_SrcKey[POS])
#define OLD_B \old(d_SrcKey[POS + stride])
#define SWAPPED ((OLD_A > OLD_B) == DDD)
#define OUT_A(src) (SWAPPED ? src[POS + stride] : src[POS])
#define OUT_B(src) (SWAPPED ? src[POS] : src[POS + stride])

/*@
  context stride == 2 && size == 8 && (dir == 0 || dir == 1);
  context arrayLength == 2 * blockDim.x * gridDim.x && (blockDim.x * gridDim.x) % stride == 0;
  context \pointer_length(d_DstKey) == arrayLength && \pointer_length(d_DstVal) == arrayLength;
  context \pointer_length(d_SrcKey) == arrayLength && \pointer_length(d_SrcVal) == arrayLength;
  context Perm(&d_SrcKey[POS], read) ** Perm(&d_SrcKey[POS + stride], read);
  context Perm(&d_SrcVal[POS], read) ** Perm(&d_SrcVal[POS + stride], read);
  context Perm(&d_DstKey[POS], write) ** Perm(&d_DstKey[POS + stride], write);
  context Perm(&d_DstVal[POS], write) ** Perm(&d_DstVal[POS + stride], write);
  ensures d_DstKey[POS] == OUT_A(d_SrcKey) && d_DstKey[POS + stride] == OUT_B(d_SrcKey);
  ensures d_DstVal[POS] == OUT_A(d_SrcVal) && d_DstVal[POS + stride] == OUT_B(d_SrcVal);
  ensures DDD ? d_DstKey[POS] <= d_DstKey[POS + stride] : d_DstKey[POS] >= d_DstKey[POS + stride];
@*/
template <uint size, uint stride>
__global__ void bitonicMergeGlobal(uint *d_DstKey, uint *d_DstVal, const uint *d_SrcKey, const uint *d_SrcVal,
                                   uint arrayLength, uint dir) {
  uint global_comparatorI = blockIdx.x * blockDim.x + threadIdx.x;
  uint ddd = dir ^ ((global_comparatorI & (size / 2)) != 0);
  uint pos = 2 * global_comparatorI - (global_comparatorI & (stride - 1));

  uint keyA = d_SrcKey[pos + 0];
  uint valA = d_SrcVal[pos + 0];
  uint keyB = d_SrcKey[pos + stride];
  uint valB = d_SrcVal[pos + stride];

  Comparator(keyA, valA, keyB, valB, ddd);

  d_DstKey[pos + 0] = keyA;
  d_DstVal[pos + 0] = valA;
  d_DstKey[pos + stride] = keyB;
  d_DstVal[pos + stride] = valB;
}
template __global__ void bitonicMergeGlobal<8, 2>(uint *, uint *, const uint *, const uint *, uint, uint);
