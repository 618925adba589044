// GPUVerify's specification functions (`__spec...`): the contract stands for code lockstep
// cannot see; `__writes_to(p)` and `__reads_from(p)` say which cells it may touch.

// The function writes only the thread's own cell, which it then holds one more than before.
void __spec_increment(__global int* p) {
    __requires(p[get_global_id(0)] == get_global_id(0));
    __ensures(__write_implies(p, __write_offset_bytes(p)/sizeof(int) == get_global_id(0)));
    __ensures(p[get_global_id(0)] == __old_int(p[get_global_id(0)] + 1));
    __writes_to(p);
}

// Verified: the postcondition is assumed, and the writes are the thread's own.
__kernel void own(__global int* a) {
    a[get_global_id(0)] = get_global_id(0);
    __spec_increment(a);
    __assert(a[get_global_id(0)] == get_global_id(0) + 1);
}

// Fails: the precondition is checked where the function is called.
__kernel void unmet(__global int* a) {
    a[get_global_id(0)] = 0;
    __spec_increment(a);
}

// The function may write any cell.
void __spec_scribble(__local int* p) {
    __writes_to(p);
}

// Fails: every thread may write the cell another reads.
__kernel void scribbled(__local int* l, __global int* out) {
    __spec_scribble(l);
    out[get_global_id(0)] = l[get_local_id(0)];
}

// The function may read any cell.
void __spec_peek(__global int* p) {
    __reads_from(p);
}

// Fails: another thread writes a cell the function may read.
__kernel void peeked(__global int* a) {
    __spec_peek(a);
    a[get_global_id(0)] = 1;
}
