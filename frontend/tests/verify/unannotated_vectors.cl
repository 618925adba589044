// Unannotated OpenCL kernels over arrays of vectors: `verify` infers their permissions (with
// `--gsize 64`; any number of groups), and `infer` prints a vector's cells as C names them
// (`&v[i].w`).

// An array of vectors whose length nothing states has no bounds to check, as an array of
// scalars: each thread rounds its own `float4`.
__kernel void vector_round(__global float4* v) {
  v[get_global_id(0)] = ceil(v[get_global_id(0)]);
}

// Each group writes the same `int2` cells: a race between groups on the `.y` components.
__kernel void vector_same_cell_each_group(__global int2* v) {
  v[get_local_id(0)].y = 1;
}
