// Histograms with atomics, as the CUDA samples' histogram and Parboil's histo compute them.
// histogram_global counts every byte into one global histogram with atomicAdd; histogram_partial
// counts each block's bytes into its own slice of a partial histogram (the samples' per-block
// sub-histograms); mergeHistogram sums the slices, one thread per bin, looping over the blocks.
// The bins are reached only through atomics, so they need no permission (atomics do not race
// with one another); the proof shows race freedom and bounds of the inputs, and of the merge's
// plain reads and writes. (The samples' shared-memory histogram, which clears a `__shared__`
// histogram, counts into it with atomicAdd and reads it back, is a correct kernel lockstep cannot
// verify: atomics on shared memory between two barriers are not yet read as a histogram.)
//:: verdict verified
//:: run with --kernel mergeHistogram --groups 1 --gsize 8 --param blocks=3
//:: run with --kernel histogram_global --groups 2 --gsize 4 --param n=7
//:: run with --kernel histogram_partial --groups 2 --gsize 4 --param n=7
#include "common.h"

#define BINS 8

/*@
  context \pointer_length(data) == n;
  context \gtid < n ==> Perm(&data[\gtid], read);
@*/
__global__ void histogram_global(const unsigned char *data, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&hist[data[i] % BINS], 1);
  }
}

/*@
  context \pointer_length(data) == n;
  context \gtid < n ==> Perm(&data[\gtid], read);
@*/
__global__ void histogram_partial(const unsigned int *data, unsigned int *partial, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    uint bin = (data[i] >> 4) & (BINS - 1);
    atomicAdd(&partial[blockIdx.x * BINS + bin], 1u);
  }
}

/*@
  context blockDim.x == BINS && gridDim.x == 1 && 0 <= blocks && blocks <= 65535;
  context \pointer_length(partial) == blocks * BINS && \pointer_length(hist) == BINS;
  context (\forall* int b; 0 <= b && b < blocks; Perm(&partial[b * BINS + \ltid], read));
  context Perm(&hist[\ltid], write);
@*/
__global__ void mergeHistogram(const unsigned int *partial, unsigned int *hist, int blocks) {
  unsigned int bin = threadIdx.x;
  unsigned int sum = 0;
  /*@
    loop_invariant 0 <= b && b <= blocks;
    loop_invariant (\forall* int c; 0 <= c && c < blocks; Perm(&partial[c * BINS + \ltid], read));
    loop_invariant Perm(&hist[\ltid], write);
  @*/
  for (int b = 0; b < blocks; b++) {
    sum += partial[b * BINS + bin];
  }
  hist[bin] = sum;
}
