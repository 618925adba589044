// shift.cl done in place to save a buffer, a[i] = a[i - 1]: work item i overwrites a[i] while
// work item i + 1 reads it, in the same work group or the next one, with nothing ordering the two.
//:: verdict failed
//:: run finds race
/*@
  context \pointer_length(a) == n;
  context get_global_id(0) < n ==> Perm(&a[get_global_id(0)], write); //:: fails group.resources, kernel.resources
  context 0 < get_global_id(0) && get_global_id(0) < n ==> Perm(&a[get_global_id(0) - 1], read);
@*/
__kernel void shift_in_place(__global int* a, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    if (i > 0) {
      a[i] = a[i - 1];
    } else {
      a[i] = 0;
    }
  }
}
