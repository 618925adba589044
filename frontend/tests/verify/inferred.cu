// CUDA kernels without annotations: `verify` infers their permissions.

__global__ void reverse(int* a) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = a[blockIdx.x * blockDim.x + t];
  __syncthreads();
  a[blockIdx.x * blockDim.x + t] = s[63 - t];
}

__global__ void reverse_unsynced(int* a) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = a[blockIdx.x * blockDim.x + t];
  a[blockIdx.x * blockDim.x + t] = s[63 - t];
}
