// lcg_step.cl whose postcondition forgets the wrap-around, as if uint arithmetic were
// mathematical: state[i] == old * 1664525 + 1013904223 fails wherever the product passes 2^32.
//:: verdict failed
//:: run finds thread.post
#define MULTIPLIER 1664525u
#define INCREMENT 1013904223u

//:: run with --groups 1 --gsize 4 --param n=4 --init state=3000,3000,3000,3000
/*@
  context \pointer_length(state) == n;
  context get_global_id(0) < n ==> Perm(&state[get_global_id(0)], write);
  requires get_global_id(0) < n ==> 0 <= state[get_global_id(0)] && state[get_global_id(0)] <= 4294967295;
  ensures get_global_id(0) < n ==> //:: fails thread.post
    state[get_global_id(0)] == \old(state[get_global_id(0)]) * 1664525 + 1013904223;
@*/
__kernel void lcg_step_without_wraparound(__global uint* state, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    state[i] = state[i] * MULTIPLIER + INCREMENT;
  }
}
