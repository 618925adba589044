// GPUVerify's `__ptr_offset_bytes(p)`: how far `p` points from its array's start, in bytes.

void bar(__global int* p) {
    __requires(__ptr_offset_bytes(p) == 4);
    __global int* q = p + 1;
    __assert(__ptr_offset_bytes(q) == 8);
}

// Verified: `a + 1` is 4 bytes into `a`.
__kernel void bytes(__global int* a) {
    bar(a + 1);
}

// Fails: `a + 2` is 8 bytes into `a`, not 4.
__kernel void elements(__global int* a) {
    bar(a + 2);
}
