// Kernels verified for given values of their scalar parameters: `verify --kernel-args`
// (frontend/tests/cli.rs).

struct pair { int a; int b; };
struct mixed { char c; int i; };

// Race-free only where x is 3.
kernel void branch(local int* A, int x) {
    if (x == 3) {
        A[get_local_id(0)] = 3;
    } else {
        A[0] = get_local_id(0);
    }
}

// A struct's bytes: `a` the low four, `b` the next four.
kernel void fields(struct pair p) {
    __assert(p.a == 3);
    __assert(p.b == 4);
}

// `i` lies at the next offset that four divides, after `c`.
kernel void aligned(struct mixed m) {
    __assert(m.c == 1);
    __assert(m.i == 2);
}

// A vector's components one after the other; the bits of a negative `int`.
kernel void components(int2 v, uint n) {
    __assert(v.x == 5 && v.y == -1);
    __assert(n == 7);
}
