// A bool array holds 1 or 0 in each cell, as C stores a bool, and a cell reads as whether it is
// not 0.
/*@
  context \pointer_length(flags) == get_global_size(0);
  context Perm(&flags[get_global_id(0)], write);
  ensures flags[get_global_id(0)] == (get_global_id(0) % 2 == 0);
@*/
__kernel void parity(__global bool* flags) {
  flags[get_global_id(0)] = get_global_id(0) % 2 == 0;
}

// Whatever the host stored, a cell converts to the int 1 or 0; which one is not known.
/*@
  context \pointer_length(flags) == get_global_size(0);
  context Perm(&flags[get_global_id(0)], read);
@*/
__kernel void either(__global bool* flags) {
  int x = flags[get_global_id(0)];
  __assert(x == 0 || x == 1);
  __assert(x == 1);
}
