// blur.cl without its barrier: a work item reads its neighbours' tile cells while they may not
// have written them yet, a race in local memory (the tile cells are read without permission).
//:: verdict failed
//:: run finds race, access.read
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
  ensures INTERIOR ==> //:: fails thread.post
    out[\gtid] == in[\gtid - 1] + in[\gtid] + in[\gtid + 1];
@*/
__kernel void blur_missing_barrier(__global const int* in, __global int* out) {
  __local int tile[TILE];
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  tile[l] = in[i];
  if (0 < l && l < TILE - 1) {
    out[i] = tile[l - 1] + tile[l] + tile[l + 1]; //:: fails access.read, arith.overflow
  }
}
