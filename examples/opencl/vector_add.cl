// Vector addition over any number of work groups, as OpenCL programs write it: work item
// get_global_id(0) adds a[i] and b[i] into c[i] if i < n, where the launch may have more work items
// than the n cells. The inputs are bounded by half of int's range in the contract, so that the
// sum cannot overflow (signed overflow is undefined behaviour in C). The proof shows that the work
// items read shared inputs and write disjoint outputs, that no sum overflows, and that every c[i]
// is the sum.
//:: verdict verified
#define BOUND 1000000000

/*@
  context \pointer_length(a) == n && \pointer_length(b) == n && \pointer_length(c) == n;
  context get_global_id(0) < n ==>
    Perm(&a[get_global_id(0)], read) ** Perm(&b[get_global_id(0)], read) ** Perm(&c[get_global_id(0)], write);
  requires get_global_id(0) < n ==> -BOUND <= a[get_global_id(0)] && a[get_global_id(0)] <= BOUND;
  requires get_global_id(0) < n ==> -BOUND <= b[get_global_id(0)] && b[get_global_id(0)] <= BOUND;
  ensures get_global_id(0) < n ==> c[get_global_id(0)] == a[get_global_id(0)] + b[get_global_id(0)];
@*/
__kernel void vector_add(__global const int* a, __global const int* b, __global int* c, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
