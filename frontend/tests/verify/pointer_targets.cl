// Pointer variables that may point into several arrays, or be NULL.

/*@
  context \pointer_length(a) == get_global_size(0) && \pointer_length(b) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write) ** Perm(&b[get_global_id(0)], write);
@*/
__kernel void choose(__global int* a, __global int* b, int c) {
  __global int* p = c > 0 ? a : b;
  p[get_global_id(0)] = 1;
  __assert(__implies(c > 0, a[get_global_id(0)] == 1));
  __assert(__implies(c <= 0, b[get_global_id(0)] == 1));
}

/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
@*/
__kernel void null_store(__global int* a, int c) {
  __global int* p = NULL;
  if (c > 0) {
    p = a;
  }
  p[get_global_id(0)] = 1;
}

/*@
  context \pointer_length(a) == get_global_size(0) && \pointer_length(b) == get_global_size(0);
@*/
__kernel void compare(__global int* a, __global int* b, int c) {
  __global int* p = a;
  __global int* q;
  if (c > 0) {
    q = a + 1;
  } else {
    q = 0;
  }
  __assert(p == a && p != NULL && p != b);
  __assert(__implies(c > 0, q != p && q == p + 1));
  __assert(__implies(c <= 0, q == NULL));
  bool later = q > p;
  __assert(__implies(c > 0, later));
}

__kernel void private_choice(int c) {
  int x = 0;
  int z = 0;
  int* y;
  if (c > 0) {
    y = &x;
  } else {
    y = &z;
  }
  y[0] = y[0] + 1;
  __assert(x + z == 1);
}

__kernel void wrong_choice(int c) {
  int x = 0;
  int z = 0;
  int* y = c > 0 ? &x : &z;
  *y = 1;
  __assert(x == 1);
}

int* pick(int* p, int* q, int c) {
  if (c > 0) {
    return p;
  }
  return q;
}

__kernel void returned(int c) {
  int x = 0;
  int z = 0;
  int* y = pick(&x, &z, c);
  *y = 5;
  __assert(__implies(c > 0, x == 5));
  __assert(__implies(c <= 0, z == 5));
}

float* maybe(float* p, int c) {
  if (c > 0) {
    return p;
  }
  return NULL;
}

__kernel void maybe_null(int c) {
  float v = 0;
  float* y = maybe(&v, c);
  y[0] = 1;
}
