// Knuth's multiplicative hash, one key per thread: bucket = (key * 2654435761u) >> 16, the top
// 16 bits of the product modulo 2^32. The arithmetic is on `unsigned int`, so the product wraps
// around modulo 2^32 as C defines it, and the hash relies on that. The postcondition states the
// modular result; the proof shows it, and that the wrap-around is no error.
//:: verdict verified
//:: boogie incomplete: real Boogie times out on the product modulo 2^32 followed by the shift (a division by 2^16), which the built-in engine decides
#include <cuda.h>
#define KNUTH 2654435761u

/*@
  context \pointer_length(keys) == n && \pointer_length(buckets) == n;
  context \gtid < n ==> Perm(&keys[\gtid], read) ** Perm(&buckets[\gtid], write);
  requires \gtid < n ==> 0 <= keys[\gtid] && keys[\gtid] <= 4294967295;
  ensures \gtid < n ==> buckets[\gtid] == keys[\gtid] * 2654435761 % 4294967296 / 65536;
@*/
__global__ void knuth_hash(const unsigned int* keys, unsigned int* buckets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    buckets[i] = (keys[i] * KNUTH) >> 16;
  }
}
