// OpenCL's add_sat and sub_sat: the exact result, clamped to the operands' type.
__kernel void clamps(uint x) {
  uint u = add_sat(4294967290u, 10u);
  __assert(u == 4294967295u);
  int s = sub_sat(-2147483647, 5);
  __assert(s == -2147483647 - 1);
  int t = add_sat(3, 4);
  __assert(t == 7);
  uint v = sub_sat(x, 1u);
  __assert(x > 0 ? v == x - 1 : v == 0);
  __assert(t == 8);
}
