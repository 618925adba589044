// An unannotated OpenCL kernel: c = a + b, one cell per thread.
__kernel void add(__global int* a, __global int* b, __global int* c) {
  unsigned int i = get_global_id(0);
  c[i] = a[i] + b[i];
}
