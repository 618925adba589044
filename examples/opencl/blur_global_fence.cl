// blur.cl with barrier(CLK_GLOBAL_MEM_FENCE), as when the fence is copied from a kernel that
// stages its data in global memory: the tile lives in local memory, which a global fence does
// not order, so the tile cells the neighbours wrote cannot be handed over, nor their values
// passed on (a stale read).
//:: verdict failed
//:: run finds stale.read
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
  ensures 0 < get_local_id(0) && get_local_id(0) < TILE - 1 ==>
    out[get_global_id(0)] == in[get_global_id(0) - 1] + in[get_global_id(0)] + in[get_global_id(0) + 1];
@*/
__kernel void blur(__global const int* in, __global int* out) {
  __local int tile[TILE];
  size_t i = get_global_id(0);
  size_t l = get_local_id(0);
  tile[l] = in[i];
  /*@
    context (\forall* int k; 0 <= k && k < get_global_size(0); Perm(&in[k], read));
    context Perm(&out[get_global_id(0)], write);
    requires (\forall int k; 0 <= k && k < get_global_size(0); -BOUND <= in[k] && in[k] <= BOUND);
    requires Perm(&tile[get_local_id(0)], write) ** tile[get_local_id(0)] == in[get_global_id(0)];
    ensures (\forall int k; 0 <= k && k < get_global_size(0); -BOUND <= in[k] && in[k] <= BOUND);
    ensures (\forall* int k; 0 <= k && k < TILE; Perm(&tile[k], read)); //:: fails barrier.resources
    ensures (\forall int k; 0 <= k && k < TILE; tile[k] == in[get_group_id(0) * TILE + k]); //:: fails barrier.functional
  @*/
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (0 < l && l < TILE - 1) {
    out[i] = tile[l - 1] + tile[l] + tile[l + 1];
  }
}
