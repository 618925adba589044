// Matrix transpose through a local tile, as in the OpenCL SDK sample: work group g transposes the
// 16 x 16 tile stored row by row at in[g * 256 ..] into out[g * 256 ..]. Work item l = 16 * y + x
// copies element (y, x) into the local block, padded to 17 columns against bank conflicts; after
// barrier(CLK_LOCAL_MEM_FENCE) it writes element (x, y) of the block to out. The proof shows that
// the padded block indices stay in bounds and never collide (no race in local memory), that every
// work item writes only its own output cell, and that out is the transpose of in, tile by tile.
//:: verdict verified
//:: run with --groups 2 --gsize 256
#define TILE 16
// The input cell whose transpose work item \ltid writes.
#define TRANSPOSED (get_group_id(0) * TILE * TILE + (\ltid % TILE) * TILE + \ltid / TILE)

/*@
  context get_local_size(0) == TILE * TILE;
  context \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_global_size(0);
  context Perm(&in[\gtid], read) ** Perm(&in[TRANSPOSED], read) ** Perm(&out[\gtid], write);
  requires Perm(&block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE], write);
  ensures out[\gtid] == in[TRANSPOSED];
@*/
__kernel void transpose_tile(__global const int* in, __global int* out) {
  __local int block[TILE * (TILE + 1)];
  size_t l = get_local_id(0);
  size_t x = l % TILE;
  size_t y = l / TILE;
  block[y * (TILE + 1) + x] = in[get_global_id(0)];
  /*@
    context Perm(&in[\gtid], read) ** Perm(&in[TRANSPOSED], read) ** Perm(&out[\gtid], write);
    requires Perm(&block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE], write);
    requires block[(\ltid / TILE) * (TILE + 1) + \ltid % TILE] == in[\gtid];
    ensures Perm(&block[(\ltid % TILE) * (TILE + 1) + \ltid / TILE], read);
    ensures block[(\ltid % TILE) * (TILE + 1) + \ltid / TILE] == in[TRANSPOSED];
  @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = block[x * (TILE + 1) + y];
}
