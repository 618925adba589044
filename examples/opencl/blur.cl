// A three-point blur through local memory, as OpenCL stencils are written: each work item copies
// its input cell into the group's tile, and after barrier(CLK_LOCAL_MEM_FENCE) the work items
// inside the tile add up their own and their neighbours' tile cells. The work-group size is fixed
// to TILE (reqd_work_group_size). The proof shows that the tile hand-over is race free, that every
// work item writes only its own output cell, and that the interior results are
// in[i - 1] + in[i] + in[i + 1]; the inputs are bounded so that the sum fits in an int.
//:: verdict verified
//:: run with --groups 2 --gsize 8
#define TILE 8
#define BOUND 100000
// The work items whose two neighbours are in their own tile.
#define INTERIOR (0 < \ltid && \ltid < TILE - 1)

/*@
  context get_local_size(0) == TILE;
  context \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_global_size(0);
  context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
  context INTERIOR ==> Perm(&in[\gtid - 1], read) ** Perm(&in[\gtid + 1], read);
  requires Perm(&tile[\ltid], write);
  requires -BOUND <= in[\gtid] && in[\gtid] <= BOUND;
  requires INTERIOR ==> -BOUND <= in[\gtid - 1] && in[\gtid - 1] <= BOUND;
  requires INTERIOR ==> -BOUND <= in[\gtid + 1] && in[\gtid + 1] <= BOUND;
  ensures INTERIOR ==>
    out[\gtid] == in[\gtid - 1] + in[\gtid] + in[\gtid + 1];
@*/
__kernel void blur(__global const int* in, __global int* out) {
  __local int tile[TILE];
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  tile[l] = in[i];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&out[\gtid], write);
    context INTERIOR ==> Perm(&in[\gtid - 1], read) ** Perm(&in[\gtid + 1], read);
    requires -BOUND <= in[\gtid] && in[\gtid] <= BOUND;
    requires Perm(&tile[\ltid], write) ** tile[\ltid] == in[\gtid];
    ensures Perm(&tile[\ltid], read);
    ensures INTERIOR ==> Perm(&tile[\ltid - 1], read) ** Perm(&tile[\ltid + 1], read);
    ensures tile[\ltid] == in[\gtid];
    ensures INTERIOR ==> tile[\ltid - 1] == in[\gtid - 1];
    ensures INTERIOR ==> tile[\ltid + 1] == in[\gtid + 1];
    ensures INTERIOR ==> -BOUND <= in[\gtid - 1] && in[\gtid - 1] <= BOUND;
    ensures INTERIOR ==> -BOUND <= in[\gtid + 1] && in[\gtid + 1] <= BOUND;
    ensures -BOUND <= in[\gtid] && in[\gtid] <= BOUND;
  @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  if (0 < l && l < TILE - 1) {
    out[i] = tile[l - 1] + tile[l] + tile[l + 1];
  }
}
