// transpose_tile.cl reading back the block cell it wrote itself, block[y * 17 + x], instead of the
// transposed one: race free, and a copy, not a transpose.
//:: verdict failed
//:: run finds thread.post
//:: run with --groups 2 --gsize 256
#define TILE 16
// The input cell whose transpose work item \ltid writes.
#define TRANSPOSED (get_group_id(0) * TILE * TILE + (\ltid % TILE) * TILE + \ltid / TILE)

/*@
  context get_local_size(0) == TILE * TILE;
  context \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_global_size(0);
  context Perm(&in[\gtid], read) ** Perm(&in[TRANSPOSED], read) ** Perm(&out[\gtid], write);
  requires Perm(&block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE], write);
  ensures out[\gtid] == in[TRANSPOSED]; //:: fails thread.post
@*/
__kernel void transpose_tile_not_transposed(__global const int* in, __global int* out) {
  __local int block[TILE * (TILE + 1)];
  size_t l = get_local_id(0);
  size_t x = l % TILE;
  size_t y = l / TILE;
  block[y * (TILE + 1) + x] = in[get_global_id(0)];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&in[TRANSPOSED], read) ** Perm(&out[\gtid], write);
    requires Perm(&block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE], write);
    requires block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE] == in[\gtid];
    ensures Perm(&block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE], read);
    ensures block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE] == in[\gtid];
  @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = block[y * (TILE + 1) + x];
}
