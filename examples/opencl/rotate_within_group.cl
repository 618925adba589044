// rotate.cl rotating by the local id, out[(get_local_id(0) + 1) % get_local_size(0)], as a kernel
// first written for one work group: with several groups, work item i and work item
// i + get_local_size(0) claim and write the same output cell.
//:: verdict failed
//:: run finds race
/*@
  context n == get_global_size(0);
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context Perm(&in[get_global_id(0)], read) ** Perm(&out[(get_local_id(0) + 1) % get_local_size(0)], write); //:: fails kernel.resources
  ensures out[(get_local_id(0) + 1) % get_local_size(0)] == in[get_global_id(0)];
@*/
__kernel void rotate_within_group(__global const int* in, __global int* out, int n) {
  size_t i = get_global_id(0);
  out[(get_local_id(0) + 1) % get_local_size(0)] = in[i];
}
