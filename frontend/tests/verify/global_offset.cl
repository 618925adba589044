// lockstep's launches have no global offset: get_global_offset(d) is 0 on every axis.
__kernel void no_offset(__global int* a) {
  __assert(get_global_offset(0) == 0 && get_global_offset(1) == 0);
  __assert(get_global_offset(2) == 1);
}
