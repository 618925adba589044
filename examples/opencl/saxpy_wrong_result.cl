// saxpy.cl with the operands swapped in the code, y[i] = alpha * y[i] + x[i]: the bounds keep it
// free of overflow, and the result is not the one the postcondition states.
//:: verdict failed
//:: run finds thread.post
#define MAX_ALPHA 1000
#define MAX_VALUE 1000000

/*@
  context \pointer_length(x) == n && \pointer_length(y) == n;
  context get_global_id(0) < n ==> Perm(&x[get_global_id(0)], read) ** Perm(&y[get_global_id(0)], write);
  requires -MAX_ALPHA <= alpha && alpha <= MAX_ALPHA;
  requires get_global_id(0) < n ==> -MAX_VALUE <= x[get_global_id(0)] && x[get_global_id(0)] <= MAX_VALUE;
  requires get_global_id(0) < n ==> -MAX_VALUE <= y[get_global_id(0)] && y[get_global_id(0)] <= MAX_VALUE;
  ensures get_global_id(0) < n ==> y[get_global_id(0)] == alpha * x[get_global_id(0)] + \old(y[get_global_id(0)]); //:: fails thread.post
@*/
__kernel void saxpy_wrong_result(int alpha, __global const int* x, __global int* y, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    y[i] = alpha * y[i] + x[i];
  }
}
