// vector_add.cl without the guard `if (i < n)`: the launch is rounded up to a multiple of the
// work-group size, so the work items past the end of the arrays read and write outside them (and
// without permission: the contract gives them none).
//:: verdict failed
//:: run finds access.bounds
#define BOUND 1000000000

/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context get_global_id(0) < n ==>
    Perm(&a[get_global_id(0)], read) ** Perm(&b[get_global_id(0)], read) ** Perm(&c[get_global_id(0)], write);
  requires get_global_id(0) < n ==> -BOUND <= a[get_global_id(0)] && a[get_global_id(0)] <= BOUND;
  requires get_global_id(0) < n ==> -BOUND <= b[get_global_id(0)] && b[get_global_id(0)] <= BOUND;
  ensures get_global_id(0) < n ==> c[get_global_id(0)] == a[get_global_id(0)] + b[get_global_id(0)];
@*/
__kernel void vector_add_missing_guard(__global const int* a, __global const int* b, __global int* c, int n) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i]; //:: fails access.bounds
}
