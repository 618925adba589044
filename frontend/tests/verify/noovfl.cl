// GPUVerify's additions without overflow: __add_noovfl_T(a, b) assumes that a + b lies in T, and
// __add_noovfl(a, b, ...) tells whether it does.
__kernel void assumed(int x, int y) {
  int z = __add_noovfl_int(x, y);
  __assert(x > 0 ? z > y : 1);
}

__kernel void predicate(unsigned x, unsigned y) {
  __requires(__add_noovfl(x, y));
  unsigned w = x + y;
  __assert(w >= x);
}

__kernel void wraps(unsigned x, unsigned y) {
  unsigned w = x + y;
  __assert(w >= x);
}
