// blur.cl with barrier(CLK_GLOBAL_MEM_FENCE), as when the fence is copied from a kernel that
// stages its data in global memory: the tile lives in local memory, which a global fence does
// not order, so the tile cells the neighbours wrote cannot be handed over, nor their values
// passed on (a stale read).
//:: verdict failed
//:: run finds stale.read
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
__kernel void blur_global_fence(__global const int* in, __global int* out) {
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
    ensures INTERIOR ==> Perm(&tile[\ltid - 1], read) ** Perm(&tile[\ltid + 1], read); //:: fails barrier.resources
    ensures tile[\ltid] == in[\gtid];
    ensures INTERIOR ==> tile[\ltid - 1] == in[\gtid - 1]; //:: fails barrier.functional
    ensures INTERIOR ==> tile[\ltid + 1] == in[\gtid + 1]; //:: fails barrier.functional
    ensures INTERIOR ==> -BOUND <= in[\gtid - 1] && in[\gtid - 1] <= BOUND;
    ensures INTERIOR ==> -BOUND <= in[\gtid + 1] && in[\gtid + 1] <= BOUND;
    ensures -BOUND <= in[\gtid] && in[\gtid] <= BOUND;
  @*/
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (0 < l && l < TILE - 1) {
    out[i] = tile[l - 1] + tile[l] + tile[l + 1];
  }
}
