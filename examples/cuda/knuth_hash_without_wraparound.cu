// knuth_hash.cu whose postcondition forgets the wrap-around, as if unsigned arithmetic were
// mathematical: hashes[i] == keys[i] * 2654435761 fails for every key but 0.
//:: verdict failed
//:: run finds thread.post
//:: run with --groups 1 --gsize 4 --param n=4 --init keys=1,2,3,4
#include <cuda.h>
#define KNUTH 2654435761u

/*@
  context \pointer_length(keys) == n && \pointer_length(hashes) == n;
  context \gtid < n ==> Perm(&keys[\gtid], read) ** Perm(&hashes[\gtid], write);
  requires \gtid < n ==> 0 <= keys[\gtid] && keys[\gtid] <= 4294967295;
  ensures \gtid < n ==> hashes[\gtid] == keys[\gtid] * 2654435761; //:: fails thread.post
@*/
__global__ void knuth_hash_without_wraparound(const unsigned int* keys, unsigned int* hashes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    hashes[i] = keys[i] * KNUTH;
  }
}
