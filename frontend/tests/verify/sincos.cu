// CUDA's `sincosf(x, s, c)` stores the sine at `s` and the cosine at `c`.
__global__ void both(float *x, float *s, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sine;
  sincosf(x[i], &sine, c + i);
  s[i] = sine;
}

__global__ void racy(float *x, float *c) {
  float sine;
  sincosf(x[threadIdx.x], &sine, c);
}

// Its operand is evaluated once: the helper runs once.
__device__ float next(int *counter) {
  *counter = *counter + 1;
  return 0.0f;
}

__global__ void once(float *s, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  sincosf(next(&k), s + i, c + i);
  __assert(k == 1);
}
