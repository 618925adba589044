// CUDA's intrinsics as tuned kernels use them: `__ldg(&in[i])`, a load through the read-only
// cache, is a read of in[i]; `umin` and `umax` compare unsigned ints; `__popc`, `__clz` and the
// other intrinsics of bits and conversions are values lockstep does not compute, so a result
// that rests on them is any value of its type (here only written out, with race freedom and
// bounds shown). The proofs show every copied and clamped value.
//:: verdict verified
//:: run with --kernel copy_readonly --groups 2 --gsize 4 --param n=7 --init in=1,9,3,12,5,6,70
//:: run with --kernel clamp_unsigned --groups 2 --gsize 4 --param n=7 --param cap=5 --init in=1,9,3,12,5,6,70
//:: run with --kernel count_bits --groups 2 --gsize 4 --param n=7 --init in=1,9,3,12,5,6,70
#include "common.h"

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  ensures \gtid < n ==> out[\gtid] == in[\gtid];
@*/
__global__ void copy_readonly(const int *__restrict__ in, int *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = __ldg(&in[i]);
  }
}

/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  ensures \gtid < n ==> out[\gtid] <= cap && (in[\gtid] <= cap ==> out[\gtid] == in[\gtid]);
@*/
__global__ void clamp_unsigned(const unsigned int *in, unsigned int *out, int n, unsigned int cap) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = umin(__ldg(&in[i]), cap);
  }
}

/*@
  context \pointer_length(in) == n && \pointer_length(bits) == n;
  context \gtid < n ==> Perm(&in[\gtid], read) ** Perm(&bits[\gtid], write);
@*/
__global__ void count_bits(const unsigned int *in, int *bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned int word = in[i];
    bits[i] = __popc(word) ^ __clz(word);
  }
}
