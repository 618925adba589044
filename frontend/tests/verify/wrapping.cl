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

// The loop starts `i` where `-32 * x` wraps to; the inferred invariant `i >= -32 * x` holds with
// the code's wrapping, so the branch never runs and `y` stays 0.
__kernel void wrapped_start(__global int* out, int x) {
  int y = 0;
  for (int i = -32 * x; i < 100; i++) {
    if (i < -32 * x) {
      y = 1;
    }
  }
  __assert(y == 0);
  out[get_global_id(0)] = y;
}
