// Fig. 5.8 of the seed, the running example, written in OpenCL C: work item i writes a[i]; after
// a barrier that fences global memory it reads its neighbour's a[(i+1) % n] and writes b[i]. The
// one-group assumption of the figure is the contract's get_num_groups(0) == 1 (the figure's
// `tcount == gsize`), and its percentages are fractions (`perm(a[..],10)` is `Perm(&a[..], 1\10)`).
// The proof shows that the barrier hands each work item a read share of its neighbour's cell,
// whose value the neighbour's barrier precondition and the global fence pass on, so that
// b[i] == (i+1) % n for every work-group size n.
//:: verdict verified
/*@
  requires get_num_groups(0) == 1;
  requires \pointer_length(a) == get_local_size(0) && \pointer_length(b) == get_local_size(0);
  requires Perm(&a[get_local_id(0)], write) ** Perm(&b[get_local_id(0)], write);
  ensures Perm(&b[get_local_id(0)], write);
  ensures b[get_local_id(0)] == (get_local_id(0) + 1) % get_local_size(0);
@*/
__kernel void demo(__global int* a, __global int* b) {
  int i = get_local_id(0);
  int n = get_local_size(0);
  a[i] = i;
  /*@
    requires a[get_local_id(0)] == get_local_id(0);
    ensures Perm(&a[(get_local_id(0) + 1) % get_local_size(0)], 1\10) ** Perm(&b[get_local_id(0)], write);
    ensures a[(get_local_id(0) + 1) % get_local_size(0)] == (get_local_id(0) + 1) % get_local_size(0);
  @*/
  barrier(CLK_GLOBAL_MEM_FENCE);
  b[i] = a[(i + 1) % n];
}
