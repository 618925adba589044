// shift.cl without the test for the first work item: work item 0 reads in[i - 1], and i is a
// size_t, so i - 1 wraps to SIZE_MAX, far outside the array.
//:: verdict failed
//:: run finds access.bounds
/*@
  context \pointer_length(in) == n && \pointer_length(out) == n;
  context get_global_id(0) < n ==> Perm(&out[get_global_id(0)], write);
  context 0 < get_global_id(0) && get_global_id(0) < n ==> Perm(&in[get_global_id(0) - 1], read);
  ensures 0 < get_global_id(0) && get_global_id(0) < n ==> out[get_global_id(0)] == in[get_global_id(0) - 1];
  ensures get_global_id(0) == 0 && 0 < n ==> out[0] == 0;
@*/
__kernel void shift_missing_guard(__global const int* in, __global int* out, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    out[i] = in[i - 1]; //:: fails access.bounds
  }
}
