// Rotation by one over the whole launch: work item i moves in[i] to out[(i + 1) % n], where n is
// the number of work items (the host sizes both buffers to the global size). The proof shows
// that the output cells are disjoint (the rotation is a permutation of the global ids, across
// all work groups) and that each value lands where it should.
//:: verdict verified
/*@
  context n == get_global_size(0);
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context Perm(&in[get_global_id(0)], read) ** Perm(&out[(get_global_id(0) + 1) % n], write);
  ensures out[(get_global_id(0) + 1) % n] == in[get_global_id(0)];
@*/
__kernel void rotate(__global const int* in, __global int* out, int n) {
  size_t i = get_global_id(0);
  out[(i + 1) % n] = in[i];
}
