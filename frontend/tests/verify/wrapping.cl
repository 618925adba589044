// Signed overflow: undefined behaviour by default (`arith.overflow`); with `--wrapping-integers`
// two's complement, as GPUVerify reads it, so `x + 1 > x` need not hold.

__kernel void increment(__global int* out, int x) {
  out[get_global_id(0)] = x + 1;
}

__kernel void wraps(__global int* out, int x) {
  int y = x + 1;
  __assert(y > x);
  out[get_global_id(0)] = y;
}
