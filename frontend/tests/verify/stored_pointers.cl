// A pointer field of structs in memory holds addresses, which lockstep copies and stores but never
// follows: a thread's own cell is race-free, and every thread storing into one cell races.
struct node {
  __global int *data;
  int n;
};

__kernel void copy(__global struct node *in, __global struct node *out) {
  out[get_global_id(0)].data = in[get_global_id(0)].data;
  out[get_global_id(0)].n = in[get_global_id(0)].n;
}

__kernel void store(__global int *p, __global struct node *out) {
  out[get_global_id(0)].data = p + get_global_id(0);
}

__kernel void racy_store(__global int *p, __global struct node *out) {
  out[0].data = p;
}

// The stored pointer is evaluated: its index reads `at`, and the null pointer is stored too.
__kernel void store_read_index(__global int *p, __global int *at, __global struct node *out) {
  out[get_global_id(0)].data = p + at[get_global_id(0)];
  out[get_global_id(0) + get_global_size(0)].data = NULL;
}

__kernel void store_racy_index(__global int *p, __global int *at, __global struct node *out) {
  out[get_global_id(0)].data = &p[at[0]];
  at[get_global_id(0)] = 1;
}
