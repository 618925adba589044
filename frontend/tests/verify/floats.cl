// Floating-point values: an operation on one gives an arbitrary value, so a copy keeps its value
// and nothing else does; reads inside floating-point expressions are still checked.
/*@
  context \pointer_length(a) == get_global_size(0) ** \pointer_length(b) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write) ** Perm(&b[get_global_id(0)], read);
  ensures a[get_global_id(0)] == b[get_global_id(0)];
@*/
__kernel void copies(__global float* a, __global float* b) {
  float x = b[get_global_id(0)];
  float y = x * 2.0f;
  if (y > 1.0f && x < y) { y = sqrt(y) - x; }
  a[get_global_id(0)] = y < 0.0f ? x : (x + 0.0f > y ? x : x);
}
/*@
  context \pointer_length(a) == get_global_size(0) ** \pointer_length(b) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write) ** Perm(&b[get_global_id(0)], read);
  ensures a[get_global_id(0)] == b[get_global_id(0)];
@*/
__kernel void takes_nan_for_a_number(__global float* a, __global float* b) {
  float x = b[get_global_id(0)];
  a[get_global_id(0)] = x == x ? x : 0.0f;
}
/*@
  context \pointer_length(a) == get_global_size(0) ** \pointer_length(b) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write) ** Perm(&b[get_global_id(0)], read);
  ensures a[get_global_id(0)] == b[get_global_id(0)];
@*/
__kernel void multiplies_by_one(__global float* a, __global float* b) {
  a[get_global_id(0)] = b[get_global_id(0)] * 1.0f;
}
/*@
  context \pointer_length(a) == get_global_size(0) ** \pointer_length(b) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write) ** Perm(&b[get_global_id(0)], read);
@*/
__kernel void reads_out_of_bounds(__global float* a, __global float* b) {
  a[get_global_id(0)] = b[get_global_id(0) + 1] * 1.0f;
}
