// A read before a barrier that does not fence its memory, and another thread's write after it:
// a race under OpenCL's memory model, which `.cl` files follow; not under the seed's.

__kernel void read_then_write(__local int* s, __global int* out) {
  size_t l = get_local_id(0);
  out[get_global_id(0)] = s[(l + 1) % get_local_size(0)];
  barrier(CLK_GLOBAL_MEM_FENCE);
  s[l] = 1;
}
