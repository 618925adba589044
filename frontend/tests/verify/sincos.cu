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
