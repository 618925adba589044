// `&`, `|` and `^` of any integers: exact, bit by bit.

__kernel void exact(unsigned q) {
  int x, y, z;
  x = 0;
  y = 1;
  z = x & y;
  __assert(z == 0);
  z = x | y;
  __assert(z == 1);
  z = x ^ y;
  __assert(z == 1);
  __assert((12 ^ 10) == 6 && (12 | 10) == 14 && (12 & 10) == 8);
  int n = -1;
  int m = n ^ 5;
  __assert(m == -6);
  unsigned u = q ^ q;
  __assert(u == 0);
  uchar c = 200;
  uchar d = c | 100;
  __assert(d == 236);
}

__kernel void partners(__global int* a) {
  int lid = get_local_id(0) % 8;
  int partner = lid ^ 1;
  __assert(partner != lid);
  __assert(partner == 2 * (lid / 2) + 1 - lid % 2);
  __assert((lid & 6) == lid - lid % 2);
}

__kernel void wrong() {
  int lid = get_local_id(0) % 8;
  __assert((lid | 1) == lid + 1);
}
