// get_work_dim(): the launch's number of dimensions, 1 to 3, alike for every thread.
__kernel void bounded() {
  __assert(1 <= get_work_dim() && get_work_dim() <= 3);
}

__kernel void one_dimension(__global int *a) {
  size_t row = get_local_id(1);
  __assert(get_work_dim() == 1);
}

__kernel void at_least_two() {
  __assert(get_work_dim() >= 2);
}
