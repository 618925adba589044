// lcg_step.cl with the state kept in `int`, as when the generator is ported from code that
// declared it so: the product overflows int, and signed overflow is undefined behaviour in C
// (arith.overflow), where the unsigned product wraps around as the generator needs.
//:: verdict failed
//:: run finds arith.overflow
#define MULTIPLIER 1664525
#define INCREMENT 1013904223

//:: run with --groups 1 --gsize 4 --param n=4 --init state=1000,1000,1000,1000
/*@
  context \pointer_length(state) == n;
  context get_global_id(0) < n ==> Perm(&state[get_global_id(0)], write);
  requires get_global_id(0) < n ==> -2147483648 <= state[get_global_id(0)] && state[get_global_id(0)] <= 2147483647;
  ensures get_global_id(0) < n ==>
    state[get_global_id(0)] == (\old(state[get_global_id(0)]) * 1664525 + 1013904223) % 4294967296;
@*/
__kernel void lcg_step_signed_state(__global int* state, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    state[i] = state[i] * MULTIPLIER + INCREMENT; //:: fails arith.overflow
  }
}
