// saxpy and scaling, y = a * x + y and x = k * x, as the CUDA C programming guide and the SDK's
// simpleTemplates write them: the float saxpy (race freedom and bounds; a float result is any
// float to lockstep), an int saxpy whose result the postcondition states, with the inputs bounded
// so that it cannot overflow, a scaling template whose factor is a template argument, and an
// axpy template over the element type, instantiated for two types. `using`, `typedef`,
// `static_cast` and functional casts.
//:: verdict verified
#include "common.h"

using real = float;
typedef int elem_t;

/*@
  context \pointer_length(x) == n && \pointer_length(y) == n;
  context \gtid < n ==> Perm(&x[\gtid], 1\2) ** Perm(&y[\gtid], write);
@*/
__global__ void saxpy(int n, real a, const real *__restrict__ x, real *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

/*@
  context \pointer_length(x) == n && \pointer_length(y) == n;
  context \gtid < n ==> Perm(&x[\gtid], 1\2) ** Perm(&y[\gtid], write);
  requires -SMALL_INT <= a && a <= SMALL_INT;
  requires \gtid < n ==> -SMALL_INT <= x[\gtid] && x[\gtid] <= SMALL_INT;
  requires \gtid < n ==> -SMALL_INT <= y[\gtid] && y[\gtid] <= SMALL_INT;
  ensures \gtid < n ==> y[\gtid] == a * x[\gtid] + \old(y[\gtid]);
@*/
__global__ void saxpy_int(int n, elem_t a, const elem_t *x, elem_t *y) {
  uint i = uint(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<uint>(n)) {
    y[i] = a * x[i] + y[i];
  }
}

/*@
  context \pointer_length(data) == n;
  context \gtid < n ==> Perm(&data[\gtid], write);
  requires \gtid < n ==> -SMALL_INT <= data[\gtid] && data[\gtid] <= SMALL_INT;
  ensures \gtid < n ==> data[\gtid] == \old(data[\gtid]) * FACTOR;
@*/
template <class T, int FACTOR>
__global__ void scale(T *data, int n) {
  const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) {
    data[tid] = data[tid] * static_cast<T>(FACTOR);
  }
}
template __global__ void scale<long, -7>(long *, int);

/*@
  context \pointer_length(x) == n && \pointer_length(y) == n;
  context \gtid < n ==> Perm(&x[\gtid], 1\2) ** Perm(&y[\gtid], write);
  requires -SMALL_INT <= a && a <= SMALL_INT;
  requires \gtid < n ==> 0 <= x[\gtid] && x[\gtid] <= SMALL_INT;
  requires \gtid < n ==> 0 <= y[\gtid] && y[\gtid] <= SMALL_INT;
  ensures \gtid < n ==> y[\gtid] == a * x[\gtid] + \old(y[\gtid]);
@*/
template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
template __global__ void axpy<int>(int, const int *, int *, int);
template __global__ void axpy<long long>(long long, const long long *, long long *, int);
