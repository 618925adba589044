// matvec.cu's quantized matvec4_int8 looping to `j <= COLS` instead of `j < COLS`: every row
// also multiplies the first element of the next row, which it holds no permission to, by
// x[COLS], one past the end of x (and the last row reads A one past its end).
//:: verdict failed
//:: run finds access.bounds
//:: run with --groups 2 --gsize 4 --param rows=6
#include "common.h"

#define COLS 4
// |a * b| for 8-bit a and b.
#define PBOUND 16384
#define ROW_PERMS Perm(&A[\gtid * COLS], read) ** Perm(&A[\gtid * COLS + 1], read) ** Perm(&A[\gtid * COLS + 2], read) ** Perm(&A[\gtid * COLS + 3], read)
#define X_PERMS Perm(&x[0], read) ** Perm(&x[1], read) ** Perm(&x[2], read) ** Perm(&x[3], read)
#define PB(c) -PBOUND <= A[\gtid * COLS + (c)] * x[c] && A[\gtid * COLS + (c)] * x[c] <= PBOUND
#define PBOUNDS (PB(0) && PB(1) && PB(2) && PB(3))
#define ROWSUM(r) (A[(r) * COLS] * x[0] + A[(r) * COLS + 1] * x[1] + A[(r) * COLS + 2] * x[2] + A[(r) * COLS + 3] * x[3])
// The first k terms of the row's sum.
#define TERM(r, c, k) ((c) < (k) ? A[(r) * COLS + (c)] * x[c] : 0)
#define PARTIAL(r, k) (TERM(r, 0, k) + TERM(r, 1, k) + TERM(r, 2, k) + TERM(r, 3, k))

/*@
  context 0 <= rows && rows <= 100000;
  context \pointer_length(A) == rows * COLS && \pointer_length(x) == COLS && \pointer_length(y) == rows;
  context \gtid < rows ==> ROW_PERMS;
  context X_PERMS;
  context \gtid < rows ==> Perm(&y[\gtid], write);
  requires \gtid < rows ==> PBOUNDS;
  ensures \gtid < rows ==> y[\gtid] == ROWSUM(\gtid);
@*/
__global__ void matvec4_int8(const signed char *A, const signed char *x, int *y, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    int sum = 0;
    /*@
      loop_invariant 0 <= j && j <= COLS + 1;
      loop_invariant ROW_PERMS;
      loop_invariant X_PERMS;
      loop_invariant Perm(&y[\gtid], write);
      loop_invariant PBOUNDS;
      loop_invariant -PBOUND * j <= sum && sum <= PBOUND * j;
      loop_invariant sum == PARTIAL(\gtid, j);
    @*/
    for (int j = 0; j <= COLS; j++) {
      sum += A[row * COLS + j] * x[j]; //:: fails access.bounds, access.read
    }
    y[row] = sum;
  }
}
