// Kernels without annotations: `verify` infers the permissions their accesses need.

__kernel void copy(__global const int* in, __global int* out) {
  size_t i = get_global_id(0);
  out[i] = in[i];
}

__kernel void one_cell(__global int* out) {
  out[0] = get_local_id(0);
}

__kernel void rotate(__global const int* in, __global int* out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[(l + 1) % 64];
}

__kernel void rotate_unsynced(__global const int* in, __global int* out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  tile[l] = in[get_global_id(0)];
  out[get_global_id(0)] = tile[(l + 1) % 64];
}

__kernel void guarded_first(__global int* out, int n) {
  if (get_global_id(0) == 0) {
    out[0] = n;
  }
}

__kernel void strided(__local int* s) {
  for (int i = 0; i < 4; i++) {
    s[i * 64 + get_local_id(0)] = i;
  }
}

__kernel void strided_overlap(__local int* s) {
  for (int i = 0; i < 4; i++) {
    s[i * 32 + get_local_id(0)] = i;
  }
}
