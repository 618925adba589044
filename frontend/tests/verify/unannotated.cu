// Unannotated CUDA kernels: `verify` infers their permissions (with `--gsize 64`; any number of
// blocks). Each clean kernel verifies, each racy or divergent one fails where it races.

__global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}

__global__ void histogram(const unsigned int* in, unsigned int* bins) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  bins[in[i] % 16] += 1;
}

__global__ void block_sum(const unsigned int* x, unsigned int* out) {
  __shared__ unsigned int s[64];
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned int sum = 0;
    for (int j = 0; j < 64; j++) {
      sum += s[j];
    }
    out[blockIdx.x] = sum;
  }
}

__global__ void block_sum_unsynced(const unsigned int* x, unsigned int* out) {
  __shared__ unsigned int s[64];
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x == 0) {
    unsigned int sum = 0;
    for (int j = 0; j < 64; j++) {
      sum += s[j];
    }
    out[blockIdx.x] = sum;
  }
}

__global__ void shift_left(int* a) {
  __shared__ int s[64];
  s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 63) {
    a[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x + 1];
  }
}

__global__ void divergent_sync(int* a) {
  if (threadIdx.x == 0) {
    __syncthreads();
  }
}

__global__ void grid_offset_race(int* a) {
  a[blockIdx.x + threadIdx.x] = 1;
}

__global__ void block_reduce(const unsigned int* x, unsigned int* out) {
  __shared__ unsigned int s[64];
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) {
      s[threadIdx.x] += s[threadIdx.x + stride];
    }
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = s[0];
  }
}

/*@
  requires \pointer_length(a) == n;
  requires lo <= hi;
@*/
__global__ void clamp(int* a, int lo, int hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = min(max(a[i], lo), hi);
  }
}

__global__ void histogram_atomic(const unsigned int* in, unsigned int* bins) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&bins[in[i] % 16], 1);
}

__global__ void histogram_atomic_read_back(const unsigned int* in, unsigned int* bins, unsigned int* out) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&bins[in[i] % 16], 1);
  out[i] = bins[i % 16];
}
