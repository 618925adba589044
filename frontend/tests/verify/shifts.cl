// OpenCL shifts an N-bit value by the low log2(N) bits of the amount: a shift by a variable
// amount is one by that amount modulo N, and a right shift of a negative value rounds down.
/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  requires s == 3;
  ensures a[get_global_id(0)] == 8;
@*/
__kernel void amounts(__global unsigned int* a, int s) {
  unsigned int x = 1;
  x <<= s;
  int down = -17 >> s;
  __assert(down == -3);
  int modulo = 1 << (s + 32);
  __assert(modulo == 8);
  unsigned int top = 0x80000000u << s;
  __assert(top == 0);
  a[get_global_id(0)] = x;
}

// A left shift of a signed value is a product: past the type it overflows.
/*@
  requires 0 <= s && s < 32;
@*/
__kernel void overflow(int s) {
  int y = 1 << s;
}
