// Helper functions, inlined where they are called: a value returned into an expression, a
// pointer into an array, a return that ends the helper early, a helper's local named like the
// caller's array, and the bugs a helper can hide (a race, a broken contract).
int twice(int x) {
  return x + x;
}

void store(__global int *p, int v) {
  p[0] = v;
}

/*@
  context get_local_size(0) <= 1024;
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  ensures a[get_global_id(0)] == 2 * get_local_id(0) + 1;
@*/
__kernel void returns_into_an_expression(__global int* a) {
  int v = twice(get_local_id(0)) + 1;
  store(a + get_global_id(0), v);
}

int at_least_zero(int x) {
  if (x < 0) return 0;
  return x;
}

/*@
  context get_local_size(0) <= 1024;
  context \pointer_length(b) == get_global_size(0);
  context Perm(&b[get_global_id(0)], write);
  ensures b[get_global_id(0)] >= 0;
  ensures get_local_id(0) < 5 ==> b[get_global_id(0)] == 0;
@*/
__kernel void returns_early(__global int* b) {
  b[get_global_id(0)] = at_least_zero((int)get_local_id(0) - 5);
}

void fill(__global int *p) {
  int a = 7;
  p[get_global_id(0)] = a;
}

/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  ensures a[get_global_id(0)] == 7;
@*/
__kernel void keeps_its_names_apart(__global int* a) {
  fill(a);
}

void first(__global int *p) {
  p[0] = 1;
}

/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
@*/
__kernel void races_inside_a_helper(__global int* a) {
  first(a + get_global_id(0) - get_local_id(0));
}

/*@ requires x >= 0; @*/
int halve(int x) {
  return x / 2;
}

/*@
  context get_local_size(0) <= 1024;
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
@*/
__kernel void breaks_a_helpers_contract(__global int* a) {
  a[get_global_id(0)] = halve((int)get_local_id(0) - 1);
}
