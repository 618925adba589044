// Counters handing out slots: GPUVerify's refined atomic abstraction (frontend/tests/cli.rs).

// Each thread takes a slot of its own.
kernel void slots(global unsigned* next, global int* out) {
    unsigned slot = atomic_inc(next);
    out[slot] = get_global_id(0);
}

// Two slots each, from one counter.
kernel void two_slots(global unsigned* next, global int* out) {
    unsigned first = atomic_inc(next);
    unsigned second = atom_inc(next);
    out[first] = get_global_id(0);
    out[second] = 0;
}

// A local counter's slots are the group's own: two groups take the same ones.
kernel void local_counter_global_slots(local unsigned* next, global int* out) {
    unsigned slot = atomic_inc(next);
    out[slot] = get_global_id(0);
}

// ... which is right for the group's own local memory.
kernel void local_counter_local_slots(local unsigned* next, local int* tile) {
    unsigned slot = atomic_inc(next);
    tile[slot] = get_local_id(0);
}

// A counter per group, its slots interleaved with the other groups'.
kernel void counter_per_group(global unsigned* next, global int* out) {
    unsigned slot = atomic_inc(&next[get_group_id(0)]);
    out[slot * get_num_groups(0) + get_group_id(0)] = get_local_id(0);
}

// ... but not in 32 bits, where `slot * 3 + 0` and `slot' * 3 + 1` meet (3 has an inverse
// modulo 2^32).
kernel void counter_per_group_wrapping(global unsigned* next, global int* out) {
    unsigned slot = atomic_inc(&next[get_group_id(0)]);
    unsigned index = slot * 3u + get_group_id(0);
    out[index] = get_local_id(0);
}

// The next slot is another thread's.
kernel void next_slot_too(global unsigned* next, global int* out) {
    unsigned slot = atomic_inc(next);
    out[slot] = 1;
    out[slot + 1] = 2;
}

// Increments in a loop may run any number of times: their values are not known to differ.
kernel void in_loop(global unsigned* next, global int* out) {
    for (int k = 0; k < 2; k++) {
        unsigned slot = atomic_inc(next);
        out[slot] = k;
    }
}

// A counter also decremented hands out a value twice.
kernel void decremented_too(global unsigned* next, global int* out) {
    unsigned slot = atomic_inc(next);
    atomic_dec(next);
    out[slot] = 1;
}

// Thread 13 writes slot 12, which another thread may take.
kernel void fixed_slot_for_one(global unsigned* next, global int* out) {
    unsigned slot = 12;
    if (get_global_id(0) != 13) {
        slot = atomic_inc(next);
    }
    out[slot] = 1;
}

// A local counter one thread resets before the group counts: the barrier orders the reset
// before every increment.
kernel void reset_then_count(local int* tile) {
    local unsigned count;
    if (get_local_id(0) == 0) {
        count = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[atomic_inc(&count)] = get_local_id(0);
}

// Without the barrier the reset races with the increments.
kernel void reset_while_counting(local int* tile) {
    local unsigned count;
    if (get_local_id(0) == 0) {
        count = 0;
    }
    tile[atomic_inc(&count)] = get_local_id(0);
}

// A barrier that fences only global memory does not order the reset.
kernel void reset_unfenced(local int* tile) {
    local unsigned count;
    if (get_local_id(0) == 0) {
        count = 0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    tile[atomic_inc(&count)] = get_local_id(0);
}

// Reading the count after the increments is a plain access among atomic ones.
kernel void count_read_back(local int* tile, global unsigned* total) {
    local unsigned count;
    if (get_local_id(0) == 0) {
        count = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[atomic_inc(&count)] = get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    total[get_group_id(0)] = count;
}

// A global counter reset before a barrier: barriers do not order the groups.
kernel void global_reset(global unsigned* next, global int* out) {
    if (get_global_id(0) == 0) {
        next[0] = 0;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[atomic_inc(next)] = get_global_id(0);
}
