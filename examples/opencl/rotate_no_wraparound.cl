// rotate.cl without the wrap-around, out[i + 1] = in[i]: the last work item writes past the end
// of out, and work item i writes the cell work item i + 1 was given.
//:: verdict failed
//:: run finds access.bounds, access.write
/*@
  context n == get_global_size(0);
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context Perm(&in[get_global_id(0)], read) ** Perm(&out[(get_global_id(0) + 1) % n], write);
  ensures out[(get_global_id(0) + 1) % n] == in[get_global_id(0)];
@*/
__kernel void rotate_no_wraparound(__global const int* in, __global int* out, int n) {
  size_t i = get_global_id(0);
  out[i + 1] = in[i]; //:: fails access.bounds
}
