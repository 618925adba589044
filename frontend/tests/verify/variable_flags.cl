// A barrier whose flags are a variable fences no memory (warning::variable-flags).

__kernel void variable_flags(__local int* p) {
  int flags = CLK_LOCAL_MEM_FENCE;
  if (get_local_id(0) == 0) {
    p[0] = 1;
  }
  barrier(flags);
  int y = p[0];
}

__kernel void constant_flags(__local int* p) {
  if (get_local_id(0) == 0) {
    p[0] = 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  int y = p[0];
}
