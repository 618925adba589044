// Structs and classes with member functions, as C++ CUDA code writes its small value types: a
// `class Point` whose const member function `dot` takes another point by reference, whose
// `shift` moves it (its second argument defaults to 0) and whose static `on_diagonal` makes no
// use of an object; and a struct `Counter` whose member functions call one another on `this`. A
// member function is read as a function of its own whose first parameter points to the object.
// The proof shows every value, the inputs bounded so that nothing overflows.
//:: verdict verified
//:: run with --groups 2 --gsize 4 --param n=7 --init xs=1,2,3,4,5,6,7 --init ys=7,6,5,4,3,2,1
#include "common.h"

class Point {
public:
  int x, y;
  __device__ int dot(const Point &other) const { return x * other.x + y * other.y; }
  __device__ void shift(int dx, int dy = 0) {
    x += dx;
    y += dy;
  }
  static __device__ bool on_diagonal(int a, int b) { return a == b; }
};

struct Counter {
  int count;
  __device__ void bump(int by) { count += by; }
  __device__ void bump_twice(int by) {
    bump(by);
    this->bump(by);
  }
};

/*@
  context \pointer_length(xs) == n && \pointer_length(ys) == n && \pointer_length(out) == n;
  context \gtid < n ==> Perm(&xs[\gtid], read) ** Perm(&ys[\gtid], read) ** Perm(&out[\gtid], write);
  requires \gtid < n ==> -SMALL_INT <= xs[\gtid] && xs[\gtid] <= SMALL_INT;
  requires \gtid < n ==> -SMALL_INT <= ys[\gtid] && ys[\gtid] <= SMALL_INT;
  ensures \gtid < n ==> out[\gtid] == (xs[\gtid] + 1) + 2 * ys[\gtid] + 4 + (xs[\gtid] == ys[\gtid] ? 1 : 0);
@*/
__global__ void dots(const int *xs, const int *ys, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Point p;
    p.x = xs[i];
    p.y = ys[i];
    Point unit;
    unit.x = 1;
    unit.y = 2;
    p.shift(1);
    Counter counter;
    counter.count = 0;
    counter.bump_twice(2);
    out[i] = p.dot(unit) + counter.count + (Point::on_diagonal(xs[i], ys[i]) ? 1 : 0);
  }
}
