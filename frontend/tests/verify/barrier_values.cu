// Unannotated CUDA kernels whose arithmetic is safe only with the values a barrier hands over:
// `verify` infers, as candidates it checks, what each thread wrote before the barrier and what
// the threads read after it.

// The first thread of each block loads a factor into shared memory, and after the barrier every
// thread scales its element by it: the barrier hands over the value thread 0 wrote, which keeps
// the product inside `int`.
/*@
  requires \pointer_length(factor) == 1 && \pointer_length(x) == n;
  requires -1000 <= factor[0] && factor[0] <= 1000;
  requires \gtid < n ==> -1000000 <= x[\gtid] && x[\gtid] <= 1000000;
@*/
__global__ void broadcast_scale(const int* factor, int* x, int n) {
  __shared__ int s[1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    s[0] = factor[0];
  }
  __syncthreads();
  if (i < n) {
    x[i] = x[i] * s[0];
  }
}

// Only the first half of the block loads the factor: a thread of the second half multiplies by
// a cell no thread wrote, whose value may overflow the product.
/*@
  requires \pointer_length(factor) == 1 && \pointer_length(x) == n;
  requires -1000 <= factor[0] && factor[0] <= 1000;
  requires \gtid < n ==> -1000000 <= x[\gtid] && x[\gtid] <= 1000000;
@*/
__global__ void broadcast_scale_half_loaded(const int* factor, int* x, int n) {
  __shared__ int s[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 32) {
    s[threadIdx.x] = factor[0];
  }
  __syncthreads();
  if (i < n) {
    x[i] = x[i] * s[threadIdx.x];
  }
}
