// Shift right by one over the whole launch: out[i] = in[i - 1], and out[0] = 0, for i < n.
// Neighbouring work items share the input cell between them with read permission. The proof
// shows that every index stays in bounds (i is a size_t, so i - 1 would wrap for i == 0), that
// the writes are disjoint, and the result.
//:: verdict verified
/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context get_global_id(0) < n ==> Perm(&out[get_global_id(0)], write);
  context 0 < get_global_id(0) && get_global_id(0) < n ==> Perm(&in[get_global_id(0) - 1], read);
  ensures 0 < get_global_id(0) && get_global_id(0) < n ==> out[get_global_id(0)] == in[get_global_id(0) - 1];
  ensures get_global_id(0) == 0 && 0 < n ==> out[0] == 0;
@*/
__kernel void shift(__global const int* in, __global int* out, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    if (i > 0) {
      out[i] = in[i - 1];
    } else {
      out[i] = 0;
    }
  }
}
