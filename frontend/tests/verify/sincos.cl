// OpenCL's `sincos(x, c)` stores the cosine at `c`: a store through the pointer, race-free at
// the thread's own cell and racy at one cell for all.
__kernel void own(__global float *x, __global float *c) {
  sincos(x[get_global_id(0)], c + get_global_id(0));
}

__kernel void racy(__global float *x, __global float *c) {
  sincos(x[get_global_id(0)], c);
}

__kernel void own_cell(__global float *x, __global float *c) {
  sincos(x[get_global_id(0)], &c[get_global_id(0)]);
}
