// GPUVerify's `--global_size` with `--local_size`: the number of groups is their quotient.

__kernel void sizes(__global int* out) {
  __assert(get_num_groups(0) == 2);
  __assert(get_global_size(0) == 128);
  out[get_global_id(0)] = 1;
}
