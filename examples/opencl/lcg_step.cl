// One step of a linear congruential generator per work item, the random number generator of
// many simulations: state[i] = state[i] * 1664525u + 1013904223u (Numerical Recipes' constants).
// The arithmetic is on `uint`, so it wraps around modulo 2^32 as C defines it, and that is what
// the generator relies on. The postcondition states the modular result; the proof shows it, and
// that the wrap-around is no error (only signed overflow is).
//:: verdict verified
#define MULTIPLIER 1664525u
#define INCREMENT 1013904223u

/*@
  context \pointer_length(state) == n;
  context get_global_id(0) < n ==> Perm(&state[get_global_id(0)], write);
  requires get_global_id(0) < n ==> 0 <= state[get_global_id(0)] && state[get_global_id(0)] <= 4294967295;
  ensures get_global_id(0) < n ==>
    state[get_global_id(0)] == (\old(state[get_global_id(0)]) * 1664525 + 1013904223) % 4294967296;
@*/
__kernel void lcg_step(__global uint* state, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    state[i] = state[i] * MULTIPLIER + INCREMENT;
  }
}
