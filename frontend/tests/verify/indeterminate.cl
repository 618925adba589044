// A variable declared without a value holds a value of its type that nobody knows: an `int`'s
// lies in [INT_MIN, INT_MAX], so the asserts hold, and a sum of two may overflow (its
// counterexample shows values of the type).
__kernel void in_type(__global int *p) {
  int x;
  unsigned char c;
  int a[2];
  int2 v;
  __assert(x <= 2147483647 && x >= -2147483648);
  __assert(c < 256);
  __assert(a[1] >= -2147483648);
  __assert(v.y <= 2147483647);
}

__kernel void sum(__global int *p) {
  int x;
  int y;
  p[get_global_id(0)] = x + y;
}

// A kernel's struct argument is copied to each thread: its array field is a private array
// holding any values, which the thread may write, after GPUVerify's `__requires`.
struct s {
  int a[4];
  int n;
};

__kernel void copied(__global int *p, struct s q) {
  __requires(q.n == 3);
  q.a[get_local_id(0) % 4] = q.n;
  p[get_global_id(0)] = q.a[get_local_id(0) % 4];
  __assert(q.a[get_local_id(0) % 4] == 3);
  __assert(q.a[0] == 3);
}
