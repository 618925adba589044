// shared_reverse.cu indexing shared memory by the global index, s[i], as when a kernel that
// reversed a global array is moved to shared memory: from the second block on, the index lies
// past the end of the block's shared array.
//:: verdict failed
//:: run finds access.bounds
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
__global__ void shared_reverse_global_index(const int* in, int* out) {
  __shared__ int s[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[i] = in[i]; //:: fails access.bounds
  /*@
    context Perm(&in[\gtid], read) ** Perm(&in[MIRROR], read) ** Perm(&out[\gtid], write);
    requires Perm(&s[\ltid], write) ** s[\ltid] == in[\gtid];
    ensures Perm(&s[BLOCK - 1 - \ltid], read) ** s[BLOCK - 1 - \ltid] == in[MIRROR];
  @*/
  __syncthreads();
  out[i] = s[BLOCK - 1 - t];
}
