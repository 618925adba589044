// Counters and other reductions through atomics. count_positive counts the positive inputs into
// one global counter with atomicAdd; count_per_block counts them per block, into the block's own
// cell of a counter array (as the samples' per-block tallies do); global_max keeps the largest
// input with atomicMax. The counters are reached only through atomics, so they need no permission
// (atomics do not race with one another); the proof shows race freedom and bounds of the plain
// reads. (The samples' stream compaction, which stores each kept input at a slot a counter hands
// out, is left out: lockstep cannot yet show that the slots atomicAdd returns are distinct.)
//:: verdict verified
#include "common.h"

/*@
  context \pointer_length(src) == n;
  context \gtid < n ==> Perm(&src[\gtid], read);
  ensures \gtid < n ==> src[\gtid] == \old(src[\gtid]);
@*/
__global__ void count_positive(const int *src, unsigned int *count, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n && src[i] > 0) {
    atomicAdd(count, 1u);
  }
}

/*@
  context \pointer_length(src) == n;
  context \gtid < n ==> Perm(&src[\gtid], read);
@*/
__global__ void count_per_block(const int *src, int *blockCounts, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    if (src[i] > 0) atomicAdd(&blockCounts[blockIdx.x], 1);
  }
}

/*@
  context \pointer_length(src) == n;
  context \gtid < n ==> Perm(&src[\gtid], read);
@*/
__global__ void global_max(const int *__restrict__ src, int *result, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    atomicMax(result, src[i]);
  }
}
