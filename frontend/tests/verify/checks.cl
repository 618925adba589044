// Kernels for `verify --only-intra-group` and `--only-divergence` (frontend/tests/cli.rs).

// Each group writes the same cells: a race between groups only.
kernel void between_groups(global int* p) {
    p[get_local_id(0)] = get_global_id(0);
}

// The threads of a group write one cell: a race inside the group.
kernel void inside_group(global int* p) {
    p[get_group_id(0)] = get_local_id(0);
}

// Racy, with every barrier reached alike.
kernel void racy_not_divergent(global int* restrict a, global int* restrict b) {
    int t = a[get_global_id(0)];
    barrier(CLK_GLOBAL_MEM_FENCE);
    b[0] = t;
}

// A barrier only some threads reach.
kernel void divergent(global int* restrict a, global int* restrict b) {
    int t = a[get_global_id(0)];
    if (t == 0) {
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    b[get_global_id(0)] = t;
}

// Free of races, with an assertion that fails.
kernel void false_assertion(global int* p) {
    p[get_global_id(0)] = 1;
    __assert(get_local_id(0) == 0);
}
