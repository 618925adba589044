// Knuth's multiplicative hash, one key per thread: hash = key * 2654435761u, whose top bits index
// a hash table of a power-of-two size. The arithmetic is on `unsigned int`, so the product wraps
// around modulo 2^32 as C defines it, and the hash relies on that. The postcondition states the
// modular result; the proof shows it, and that the wrap-around is no error.
//:: verdict verified
#include <cuda.h>
#define KNUTH 2654435761u

/*@
  context \pointer_length(keys) == n && \pointer_length(hashes) == n;
  context \gtid < n ==> Perm(&keys[\gtid], read) ** Perm(&hashes[\gtid], write);
  requires \gtid < n ==> 0 <= keys[\gtid] && keys[\gtid] <= 4294967295;
  ensures \gtid < n ==> hashes[\gtid] == keys[\gtid] * 2654435761 % 4294967296;
@*/
__global__ void knuth_hash(const unsigned int* keys, unsigned int* hashes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    hashes[i] = keys[i] * KNUTH;
  }
}
