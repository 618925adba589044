// blur.cl without its barrier: a work item reads its neighbours' tile cells while they may not
// have written them yet, a race in local memory (the tile cells are read without permission).
//:: verdict failed
//:: run finds race, access.read
//:: run with --groups 2 --gsize 8
#define TILE 8
#define BOUND 100000

/*@
  context get_local_size(0) == TILE;
  context \pointer_length(in) == get_global_size(0) && \pointer_length(out) == get_global_size(0);
  context (\forall* int k; 0 <= k && k < get_global_size(0); Perm(&in[k], read));
  context Perm(&out[get_global_id(0)], write);
  requires Perm(&tile[get_local_id(0)], write);
  requires (\forall int k; 0 <= k && k < get_global_size(0); -BOUND <= in[k] && in[k] <= BOUND);
  ensures 0 < get_local_id(0) && get_local_id(0) < TILE - 1 ==> //:: fails thread.post
    out[get_global_id(0)] == in[get_global_id(0) - 1] + in[get_global_id(0)] + in[get_global_id(0) + 1];
@*/
__kernel void blur(__global const int* in, __global int* out) {
  __local int tile[TILE];
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  tile[l] = in[i];
  if (0 < l && l < TILE - 1) {
    out[i] = tile[l - 1] + tile[l] + tile[l + 1]; //:: fails access.read, arith.overflow
  }
}
