// A counter handing out slots in CUDA: `atomicAdd(p, 1)` is an increment (frontend/tests/cli.rs).

__global__ void slots(unsigned* next, int* out) {
    unsigned slot = atomicAdd(next, 1);
    out[slot] = threadIdx.x;
}

// Adding 2 is no increment: two threads may get values that differ by one.
__global__ void by_two(unsigned* next, int* out) {
    unsigned slot = atomicAdd(next, 2);
    out[slot] = threadIdx.x;
}
