// knuth_hash.cu computing the product in 64 bits, ((unsigned long) keys[i] * KNUTH) >> 16, as when
// the cast is added to silence a warning: the product no longer wraps at 2^32, so the bits above
// 2^32 shift into the bucket, which is no longer the hash the postcondition states.
//:: verdict failed
//:: run finds thread.post
//:: run with --groups 1 --gsize 4 --param n=4 --init keys=1,2,3,4
#include <cuda.h>
#define KNUTH 2654435761u

/*@
  context \pointer_length(keys) == n && \pointer_length(buckets) == n;
  context \gtid < n ==> Perm(&keys[\gtid], read) ** Perm(&buckets[\gtid], write);
  requires \gtid < n ==> 0 <= keys[\gtid] && keys[\gtid] <= 4294967295;
  ensures \gtid < n ==> buckets[\gtid] == keys[\gtid] * 2654435761 % 4294967296 / 65536; //:: fails thread.post
@*/
__global__ void knuth_hash(const unsigned int* keys, unsigned int* buckets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    buckets[i] = ((unsigned long) keys[i] * KNUTH) >> 16;
  }
}
