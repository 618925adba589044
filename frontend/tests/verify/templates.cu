// CUDA's C++ as kernels use it, read through Clang: templates (each instantiation verified, with
// the contract written before the template), reference parameters, `using`, namespaces and C++'s
// casts.
#include <cuda_runtime.h>

namespace util {
template <typename T> __device__ void bump(T &x, T by) { x += by; }
__device__ int square(int x) { return x * x; }
}  // namespace util

using index_t = unsigned int;

// Adds K * K to its cell: the contract's 4 holds for K = 2 only.
/*@ context \pointer_length(a) == blockDim.x * gridDim.x;
    context Perm(&a[blockIdx.x * blockDim.x + threadIdx.x], write);
    requires -1000 < a[blockIdx.x * blockDim.x + threadIdx.x] && a[blockIdx.x * blockDim.x + threadIdx.x] < 1000;
    ensures a[blockIdx.x * blockDim.x + threadIdx.x] == \old(a[blockIdx.x * blockDim.x + threadIdx.x]) + 4; @*/
template <int K>
__global__ void add_square(int *a) {
  index_t i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a[i];
  util::bump(v, util::square(K));
  a[i] = v;
}
template __global__ void add_square<2>(int *);
template __global__ void add_square<3>(int *);

// A reduction's first step, as CUDA's samples write it: a template over the element type and the
// block's size, which the launch must match.
/*@ context blockDim.x == BLOCK && gridDim.x == 1;
    context \pointer_length(in) == BLOCK && \pointer_length(out) == 1;
    context Perm(&in[threadIdx.x], 1\2);
    requires Perm(&shared[threadIdx.x], write);
    requires threadIdx.x == 0 ==> Perm(&out[0], write);
    ensures threadIdx.x == 0 ==> Perm(&out[0], write); @*/
template <class T, unsigned int BLOCK>
__global__ void first_of_block(const T *in, T *out) {
  __shared__ T shared[BLOCK];
  unsigned int tid = threadIdx.x;
  shared[tid] = in[tid];
  /*@ context Perm(&in[\ltid], 1\2);
      context \ltid == 0 ==> Perm(&out[0], write);
      requires Perm(&shared[\ltid], write);
      ensures \ltid == 0 ==> Perm(&shared[0], read); @*/
  __syncthreads();
  if (tid == 0) {
    out[0] = static_cast<T>(shared[0]) + T(0);
  }
}
template __global__ void first_of_block<int, 4>(const int *, int *);
