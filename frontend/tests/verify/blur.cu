// A CUDA kernel with VerCors's annotations, for the property tests to mutate: each block stages
// its inputs in shared memory, and after the barrier each thread averages two neighbours.
#include <cuda.h>
#define WIDTH 32

/*@
  context blockDim.x == WIDTH && gridDim.x > 0;
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context blockDim.x * gridDim.x == n;
  context (\forall* int i; 0 <= i && i < n; Perm(&in[i], read));
  context Perm(&out[\gtid], write);
  requires Perm(&s[\ltid], write);
  ensures \ltid < WIDTH - 1 ==> out[\gtid] == in[\gtid] / 2 + in[\gtid + 1] / 2;
@*/
__global__ void blur(int* in, int* out, int n) {
  __shared__ int s[WIDTH];
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[tid] / 2;
  /*@
    context (\forall* int i; 0 <= i && i < n; Perm(&in[i], read));
    context Perm(&out[blockIdx.x * blockDim.x + threadIdx.x], write);
    requires Perm(&s[threadIdx.x], write);
    requires s[threadIdx.x] == in[blockIdx.x * blockDim.x + threadIdx.x] / 2;
    ensures (\forall* int i; 0 <= i && i < WIDTH; Perm(&s[i], read));
    ensures (\forall int i; 0 <= i && i < WIDTH; s[i] == in[blockIdx.x * blockDim.x + i] / 2);
  @*/
  __syncthreads();
  if (threadIdx.x < WIDTH - 1) {
    out[tid] = s[threadIdx.x] + s[threadIdx.x + 1];
  }
}
