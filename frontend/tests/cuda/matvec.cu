// Matrix-vector products, one thread per row. matvec is the dense y = A x of the CUDA training
// material, over a row-major rows x cols matrix (the indices are non-linear in the sizes: the
// matrix must fit an int); spmv_csr_scalar is SHOC's scalar CSR kernel (its texture read of the
// vector is a plain read here), a template over the value type, instantiated for float and
// double: the row's nonzeros lie between rowDelimiters[row] and rowDelimiters[row + 1], and the
// contract states that the host's delimiters and column indices lie within their arrays. Both
// prove race freedom and bounds (a float result is any float to lockstep). matvec4_int8 is the
// dense product of a quantized 8-bit matrix and vector into int, over rows of a compile-time
// width of 4 (annotations have no \sum), whose postcondition states each y[row]; the 8-bit
// inputs keep every product and sum inside int (the precondition states the products' bound, a
// fact of 8-bit values that z3's non-linear arithmetic does not find in time).
//:: verdict verified
//:: run with --kernel matvec --groups 2 --gsize 4 --param rows=6 --param cols=3
//:: run with --kernel spmv_csr_scalar<float> --groups 2 --gsize 2 --param dim=3 --param nnz=5 --init rowDelimiters=0,2,2,5
//:: run with --kernel spmv_csr_scalar<double> --groups 2 --gsize 2 --param dim=3 --param nnz=5 --init rowDelimiters=0,2,2,5
//:: run with --kernel matvec4_int8 --groups 2 --gsize 4 --param rows=6
#include "common.h"

/*@
  context rows >= 0 && cols >= 0 && rows * cols <= 2147483647;
  context \pointer_length(A) == rows * cols && \pointer_length(x) == cols && \pointer_length(y) == rows;
  context (\forall* int k; 0 <= k && k < rows * cols; Perm(&A[k], read));
  context (\forall* int k; 0 <= k && k < cols; Perm(&x[k], read));
  context \gtid < rows ==> Perm(&y[\gtid], write);
@*/
__global__ void matvec(const float *A, const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    /*@
      loop_invariant 0 <= j && j <= cols;
      loop_invariant (\forall* int k; 0 <= k && k < rows * cols; Perm(&A[k], read));
      loop_invariant (\forall* int k; 0 <= k && k < cols; Perm(&x[k], read));
      loop_invariant Perm(&y[\gtid], write);
    @*/
    for (int j = 0; j < cols; j++) {
      sum += A[row * cols + j] * x[j];
    }
    y[row] = sum;
  }
}

/*@
  context dim >= 0 && nnz >= 0;
  context \pointer_length(val) == nnz && \pointer_length(cols) == nnz;
  context \pointer_length(rowDelimiters) == dim + 1 && \pointer_length(vec) == dim && \pointer_length(out) == dim;
  context (\forall* int k; 0 <= k && k < nnz; Perm(&val[k], read) ** Perm(&cols[k], read));
  context (\forall* int k; 0 <= k && k <= dim; Perm(&rowDelimiters[k], read));
  context (\forall* int k; 0 <= k && k < dim; Perm(&vec[k], read));
  context \gtid < dim ==> Perm(&out[\gtid], write);
  requires (\forall int k; 0 <= k && k <= dim; 0 <= rowDelimiters[k] && rowDelimiters[k] <= nnz);
  requires (\forall int k; 0 <= k && k < nnz; 0 <= cols[k] && cols[k] < dim);
@*/
template <typename fpType>
__global__ void spmv_csr_scalar(const fpType *__restrict__ val, const int *__restrict__ cols,
                                const int *__restrict__ rowDelimiters, const fpType *__restrict__ vec,
                                const int dim, const int nnz, fpType *__restrict__ out) {
  int myRow = blockIdx.x * blockDim.x + threadIdx.x;
  if (myRow < dim) {
    fpType t = 0.0f;
    int start = rowDelimiters[myRow];
    int end = rowDelimiters[myRow + 1];
    /*@
      loop_invariant start <= j && (j <= end || j == start);
      loop_invariant 0 <= start && end <= nnz;
      loop_invariant (\forall* int k; 0 <= k && k < nnz; Perm(&val[k], read) ** Perm(&cols[k], read));
      loop_invariant (\forall* int k; 0 <= k && k < dim; Perm(&vec[k], read));
      loop_invariant (\forall int k; 0 <= k && k < nnz; 0 <= cols[k] && cols[k] < dim);
      loop_invariant (\forall* int k; 0 <= k && k <= dim; Perm(&rowDelimiters[k], read));
      loop_invariant Perm(&out[\gtid], write);
    @*/
    for (int j = start; j < end; j++) {
      int col = cols[j];
      t += val[j] * vec[col];
    }
    out[myRow] = t;
  }
}
template __global__ void spmv_csr_scalar<float>(const float *, const int *, const int *, const float *, const int, const int, float *);
template __global__ void spmv_csr_scalar<double>(const double *, const int *, const int *, const double *, const int, const int, double *);

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
      loop_invariant 0 <= j && j <= COLS;
      loop_invariant ROW_PERMS;
      loop_invariant X_PERMS;
      loop_invariant Perm(&y[\gtid], write);
      loop_invariant PBOUNDS;
      loop_invariant -PBOUND * j <= sum && sum <= PBOUND * j;
      loop_invariant sum == PARTIAL(\gtid, j);
    @*/
    for (int j = 0; j < COLS; j++) {
      sum += A[row * COLS + j] * x[j];
    }
    y[row] = sum;
  }
}
