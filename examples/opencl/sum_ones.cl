// Tree reduction in local memory, one partial sum per work group, in the shape of the OpenCL and
// CUDA reduction samples: each work item copies its input into the local array tmp; in each round
// of the loop, work item l < s adds tmp[l + s] into tmp[l], and a barrier ends the round; work
// item 0 writes the group's sum to out[get_group_id(0)]. The work groups have GROUP = 16 work items
// (reqd_work_group_size), and every input is 1, so that the result can be stated without a sum:
// each round, the live cells each hold GROUP / (2 * s). The proof shows race freedom inside a group
// (on tmp) and across groups (on out), no barrier divergence, and out[g] == GROUP.
//:: verdict verified
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
__kernel void sum_ones(__global const int* in, __global int* out) {
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
      ensures \ltid < s / 2 ==> Perm(&tmp[\ltid], write) ** Perm(&tmp[\ltid + s / 2], read);
      ensures \ltid < s / 2 ==> tmp[\ltid] == GROUP / s && tmp[\ltid + s / 2] == GROUP / s;
      ensures s == 1 && \ltid == 0 ==> Perm(&tmp[0], write) ** tmp[0] == GROUP;
    @*/
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    out[get_group_id(0)] = tmp[0];
  }
}
