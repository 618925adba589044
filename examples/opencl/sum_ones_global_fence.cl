// sum_ones.cl whose rounds end with barrier(CLK_GLOBAL_MEM_FENCE): tmp lives in local memory,
// which that fence does not order, so the partial sum another work item wrote in the round may
// not be visible to the one that reads it next (a stale read).
//:: verdict failed
//:: run finds stale.read
//:: run with --groups 2 --gsize 16 --init in=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
#define GROUP 16

/*@
  context get_local_size(0) == GROUP;
  context \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_num_groups(0);
  requires Perm(&in[\gtid], read) ** in[\gtid] == 1;
  requires Perm(&tmp[\ltid], write);
  context \ltid == 0 ==> Perm(&out[get_group_id(0)], write);
  ensures \ltid == 0 ==> out[get_group_id(0)] == GROUP;
@*/
__kernel void sum_ones_global_fence(__global const int* in, __global int* out) {
  __local int tmp[GROUP];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  /*@
    requires tmp[\ltid] == 1;
    context \ltid == 0 ==> Perm(&out[get_group_id(0)], write);
    ensures \ltid < GROUP / 2 ==> Perm(&tmp[\ltid], write) ** Perm(&tmp[\ltid + GROUP / 2], read);
    ensures \ltid < GROUP / 2 ==> tmp[\ltid] == 1 && tmp[\ltid + GROUP / 2] == 1;
  @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  /*@
    loop_invariant s == 8 || s == 4 || s == 2 || s == 1 || s == 0;
    loop_invariant \ltid == 0 ==> Perm(&out[get_group_id(0)], write);
    loop_invariant \ltid < s ==> Perm(&tmp[\ltid], write) ** Perm(&tmp[\ltid + s], read);
    loop_invariant \ltid < s ==> tmp[\ltid] == GROUP / (2 * s) && tmp[\ltid + s] == GROUP / (2 * s);
    loop_invariant s == 0 && \ltid == 0 ==> Perm(&tmp[0], write) ** tmp[0] == GROUP;
  @*/
  for (unsigned int s = GROUP / 2; s > 0; s >>= 1) {
    if (l < s) {
      tmp[l] += tmp[l + s];
    }
    /*@
      requires s == 8 || s == 4 || s == 2 || s == 1;
      requires \ltid < s ==> tmp[\ltid] == GROUP / s;
      context \ltid == 0 ==> Perm(&out[get_group_id(0)], write);
      ensures \ltid < s / 2 ==> Perm(&tmp[\ltid], write) ** Perm(&tmp[\ltid + s / 2], read); //:: fails barrier.resources
      ensures \ltid < s / 2 ==> tmp[\ltid] == GROUP / s && tmp[\ltid + s / 2] == GROUP / s; //:: fails barrier.functional
      ensures s == 1 && \ltid == 0 ==> Perm(&tmp[0], write) ** tmp[0] == GROUP;
    @*/
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  if (l == 0) {
    out[get_group_id(0)] = tmp[0];
  }
}
