// vector_add.cu indexing by threadIdx.x alone, as a kernel first tested with one block: with
// several blocks, thread t of every block reads and writes the cells of block 0, and the blocks
// race on c.
//:: verdict failed
//:: run finds race
#include <cuda.h>
#define BOUND 1000000000

/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context threadIdx.x < n ==> Perm(&a[threadIdx.x], read) ** Perm(&b[threadIdx.x], read) ** Perm(&c[threadIdx.x], write); //:: fails kernel.resources
  requires threadIdx.x < n ==> -BOUND <= a[threadIdx.x] && a[threadIdx.x] <= BOUND && -BOUND <= b[threadIdx.x] && b[threadIdx.x] <= BOUND;
  ensures threadIdx.x < n ==> c[threadIdx.x] == a[threadIdx.x] + b[threadIdx.x];
@*/
__global__ void vector_add_block_index(const int* a, const int* b, int* c, int n) {
  int i = threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
