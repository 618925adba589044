// shared_reverse.cu without __syncthreads(): a thread reads the mirror cell of shared memory
// before its owner may have written it (a race, read without permission).
//:: verdict failed
//:: run finds race, access.read
//:: run with --groups 2 --gsize 8
#include <cuda.h>
#define BLOCK 8
// The input cell thread \ltid of the block mirrors.
#define MIRROR (blockIdx.x * BLOCK + BLOCK - 1 - \ltid)

/*@
  context blockDim.x == BLOCK;
  context \pointer_length(in) == BLOCK * gridDim.x && \pointer_length(out) == BLOCK * gridDim.x;
  context Perm(&in[\gtid], read) ** Perm(&in[MIRROR], read) ** Perm(&out[\gtid], write);
  requires Perm(&s[\ltid], write);
  ensures out[\gtid] == in[MIRROR]; //:: fails thread.post
@*/
__global__ void shared_reverse_missing_sync(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  out[i] = s[BLOCK - 1 - t]; //:: fails access.read
}
