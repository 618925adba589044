// Reverse every block's part of an array through shared memory, the CUDA samples' staticReverse:
// each thread stores in[i] into s[t], waits at __syncthreads(), and writes the mirror cell
// s[BLOCK - 1 - t] to out[i]. The block has BLOCK threads. The proof shows race freedom in shared
// memory and in the output, and out[i] == in[blockIdx.x * BLOCK + BLOCK - 1 - t].
//:: verdict verified
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
  ensures out[\gtid] == in[MIRROR];
@*/
__global__ void shared_reverse(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&in[MIRROR], read) ** Perm(&out[\gtid], write);
    requires Perm(&s[\ltid], write) ** s[\ltid] == in[\gtid];
    ensures Perm(&s[BLOCK - 1 - \ltid], read) ** s[BLOCK - 1 - \ltid] == in[MIRROR];
  @*/
  __syncthreads();
  out[i] = s[BLOCK - 1 - t];
}
