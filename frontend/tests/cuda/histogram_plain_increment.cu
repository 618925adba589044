// histogram.cu's histogram_global counting with a plain increment, hist[bin]++, instead of
// atomicAdd: two threads whose bytes fall in one bin read and write the same counter at once (a
// race, and a lost count). The contract grants the counters to no thread, as none may own one.
//:: verdict failed
//:: run finds race, access.read, access.write
//:: run with --groups 2 --gsize 4 --param n=7
#include "common.h"

#define BINS 8

/*@
  context \pointer_length(data) == n && \pointer_length(hist) == BINS;
  context \gtid < n ==> Perm(&data[\gtid], read);
@*/
__global__ void histogram_global(const unsigned char *data, unsigned int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    hist[data[i] % BINS]++; //:: fails access.read, access.write
  }
}
