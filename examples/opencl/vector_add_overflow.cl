// vector_add.cl without the bounds on its inputs: two ints may add up to more than INT_MAX, and
// signed overflow is undefined behaviour in C (arith.overflow). A run shows it where an input
// holds INT_MAX.
//:: verdict failed
//:: run finds arith.overflow
//:: run with --groups 1 --gsize 4 --param n=4 --init a=2147483647,2147483647,2147483647,2147483647 --init b=1,1,1,1
/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context get_global_id(0) < n ==>
    Perm(&a[get_global_id(0)], read) ** Perm(&b[get_global_id(0)], read) ** Perm(&c[get_global_id(0)], write);
  ensures get_global_id(0) < n ==> c[get_global_id(0)] == a[get_global_id(0)] + b[get_global_id(0)];
@*/
__kernel void vector_add_overflow(__global const int* a, __global const int* b, __global int* c, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] + b[i]; //:: fails arith.overflow
  }
}
