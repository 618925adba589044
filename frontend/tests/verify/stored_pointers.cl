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
