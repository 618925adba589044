// saxpy on integers, y[i] = alpha * x[i] + y[i] for i < n, with the scalar alpha a kernel
// parameter. The contract bounds alpha and the inputs, so that neither the product nor the sum
// overflows an int; the postcondition relates each y[i] to its value at the launch (\old).
//:: verdict verified
#define MAX_ALPHA 1000
#define MAX_VALUE 1000000

/*@
  context \pointer_length(x) == n && \pointer_length(y) == n;
  context get_global_id(0) < n ==> Perm(&x[get_global_id(0)], read) ** Perm(&y[get_global_id(0)], write);
  requires -MAX_ALPHA <= alpha && alpha <= MAX_ALPHA;
  requires get_global_id(0) < n ==> -MAX_VALUE <= x[get_global_id(0)] && x[get_global_id(0)] <= MAX_VALUE;
  requires get_global_id(0) < n ==> -MAX_VALUE <= y[get_global_id(0)] && y[get_global_id(0)] <= MAX_VALUE;
  ensures get_global_id(0) < n ==> y[get_global_id(0)] == alpha * x[get_global_id(0)] + \old(y[get_global_id(0)]);
@*/
__kernel void saxpy(int alpha, __global const int* x, __global int* y, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    y[i] = alpha * x[i] + y[i];
  }
}
