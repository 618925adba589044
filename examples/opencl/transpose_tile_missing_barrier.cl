// transpose_tile.cl without its barrier: a work item reads the block cell of its transposed
// partner, which that work item may not have written yet (a race in local memory, read without
// permission).
//:: verdict failed
//:: run finds race, access.read
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
__kernel void transpose_tile_missing_barrier(__global const int* in, __global int* out) {
  __local int block[TILE * (TILE + 1)];
  size_t l = get_local_id(0);
  size_t x = l % TILE;
  size_t y = l / TILE;
  block[y * (TILE + 1) + x] = in[get_global_id(0)];
  out[get_global_id(0)] = block[x * (TILE + 1) + y]; //:: fails access.read
}
