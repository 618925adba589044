// Unannotated CUDA kernels whose signed arithmetic stays inside `int` only because of what each
// round of a loop of barriers computes: inference bounds the values round by round.

// A block sum in shared memory, 128 threads a block, of inputs between -100 and 100.
/*@
  requires blockDim.x == 128;
  requires \pointer_length(in) == gridDim.x * blockDim.x && \pointer_length(out) == gridDim.x;
  requires -100 <= in[\gtid] && in[\gtid] <= 100;
@*/
__global__ void block_sum(const int* in, int* out) {
  __shared__ int partial[128];
  int t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int stride = 64; stride > 0; stride /= 2) {
    if (t < stride) {
      partial[t] += partial[t + stride];
    }
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x] = partial[0];
  }
}

// Inputs up to 2^25 in size: the round with stride 2 adds sums of up to 2^30 each, which overflows
// `int`.
/*@
  requires blockDim.x == 128;
  requires \pointer_length(in) == gridDim.x * blockDim.x && \pointer_length(out) == gridDim.x;
  requires -33554432 <= in[\gtid] && in[\gtid] <= 33554432;
@*/
__global__ void block_sum_of_large_inputs(const int* in, int* out) {
  __shared__ int partial[128];
  int t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int stride = 64; stride > 0; stride /= 2) {
    if (t < stride) {
      partial[t] += partial[t + stride];
    }
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x] = partial[0];
  }
}
