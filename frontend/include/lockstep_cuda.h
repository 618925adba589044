// lockstep_cuda.h: what CUDA's own headers give device code, declared for clang.
//
// lockstep hands a CUDA kernel to clang with `-nocudainc` (clang finds no CUDA installation, and
// needs none) and force-includes this header (`-include lockstep_cuda.h`), so that kernels
// compile as they are written: the execution-space macros, the vector types, the built-in
// variables, barriers, atomics, warp functions and the usual device math. Declarations only:
// clang checks the calls, and lockstep reads them from the AST by name.
//
// The built-in variables differ from clang's own CUDA headers on purpose: `threadIdx`,
// `blockIdx`, `blockDim` and `gridDim` are plain `extern const __device__` variables of a struct
// type with `unsigned int` fields `x`, `y`, `z`, so that `threadIdx.x` is a MemberExpr `x` over a
// DeclRefExpr `threadIdx` in the AST (clang's headers make them `__declspec(property)` objects,
// whose fields are calls of getter functions in the AST).
//
// Functions that the C library also declares for the host (math, `abs`, `printf`, `malloc`, ...)
// are declared for the device only, as clang's CUDA headers do: CUDA overloads on `__host__` and
// `__device__`, so a kernel that includes <math.h> or <stdio.h> still compiles.
//
// Each declaration is written out, and made `__device__` by `#pragma clang attribute` rather than
// by the macro `__device__`: clang's JSON AST dump records every location inside a macro
// expansion twice, which would double the size that this header adds to each dump.
#ifndef LOCKSTEP_CUDA_H
#define LOCKSTEP_CUDA_H

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif

// ---- Execution spaces and qualifiers ------------------------------------------------------

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define __cudart_builtin__
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))

typedef __SIZE_TYPE__ size_t;

// ---- Vector types ---------------------------------------------------------------------------

struct char1 { signed char x; };
struct __attribute__((aligned(2))) char2 { signed char x, y; };
struct char3 { signed char x, y, z; };
struct __attribute__((aligned(4))) char4 { signed char x, y, z, w; };
struct uchar1 { unsigned char x; };
struct __attribute__((aligned(2))) uchar2 { unsigned char x, y; };
struct uchar3 { unsigned char x, y, z; };
struct __attribute__((aligned(4))) uchar4 { unsigned char x, y, z, w; };
struct short1 { short x; };
struct __attribute__((aligned(4))) short2 { short x, y; };
struct short3 { short x, y, z; };
struct __attribute__((aligned(8))) short4 { short x, y, z, w; };
struct ushort1 { unsigned short x; };
struct __attribute__((aligned(4))) ushort2 { unsigned short x, y; };
struct ushort3 { unsigned short x, y, z; };
struct __attribute__((aligned(8))) ushort4 { unsigned short x, y, z, w; };
struct int1 { int x; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct int3 { int x, y, z; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct uint1 { unsigned int x; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct uint3 { unsigned int x, y, z; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct long1 { long x; };
struct __attribute__((aligned(16))) long2 { long x, y; };
struct long3 { long x, y, z; };
struct __attribute__((aligned(16))) long4 { long x, y, z, w; };
struct ulong1 { unsigned long x; };
struct __attribute__((aligned(16))) ulong2 { unsigned long x, y; };
struct ulong3 { unsigned long x, y, z; };
struct __attribute__((aligned(16))) ulong4 { unsigned long x, y, z, w; };
struct longlong1 { long long x; };
struct __attribute__((aligned(16))) longlong2 { long long x, y; };
struct longlong3 { long long x, y, z; };
struct __attribute__((aligned(16))) longlong4 { long long x, y, z, w; };
struct ulonglong1 { unsigned long long x; };
struct __attribute__((aligned(16))) ulonglong2 { unsigned long long x, y; };
struct ulonglong3 { unsigned long long x, y, z; };
struct __attribute__((aligned(16))) ulonglong4 { unsigned long long x, y, z, w; };
struct float1 { float x; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct float3 { float x, y, z; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct double1 { double x; };
struct __attribute__((aligned(16))) double2 { double x, y; };
struct double3 { double x, y, z; };
struct __attribute__((aligned(16))) double4 { double x, y, z, w; };

// `dim3`: a `uint3` whose missing sizes are 1.
struct dim3 {
  unsigned int x, y, z;
  __attribute__((host, device)) constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __attribute__((host, device)) constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __attribute__((host, device)) constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Every function declared from here to the matching `pop` is `__device__`; those also marked
// `__attribute__((host))` are `__host__ __device__`.
#pragma clang attribute push(__attribute__((device)), apply_to = function)

// `make_int2(x, y)` and the like.
__attribute__((host)) char1 make_char1(signed char x);
__attribute__((host)) char2 make_char2(signed char x, signed char y);
__attribute__((host)) char3 make_char3(signed char x, signed char y, signed char z);
__attribute__((host)) char4 make_char4(signed char x, signed char y, signed char z, signed char w);
__attribute__((host)) uchar1 make_uchar1(unsigned char x);
__attribute__((host)) uchar2 make_uchar2(unsigned char x, unsigned char y);
__attribute__((host)) uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z);
__attribute__((host)) uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w);
__attribute__((host)) short1 make_short1(short x);
__attribute__((host)) short2 make_short2(short x, short y);
__attribute__((host)) short3 make_short3(short x, short y, short z);
__attribute__((host)) short4 make_short4(short x, short y, short z, short w);
__attribute__((host)) ushort1 make_ushort1(unsigned short x);
__attribute__((host)) ushort2 make_ushort2(unsigned short x, unsigned short y);
__attribute__((host)) ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z);
__attribute__((host)) ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w);
__attribute__((host)) int1 make_int1(int x);
__attribute__((host)) int2 make_int2(int x, int y);
__attribute__((host)) int3 make_int3(int x, int y, int z);
__attribute__((host)) int4 make_int4(int x, int y, int z, int w);
__attribute__((host)) uint1 make_uint1(unsigned int x);
__attribute__((host)) uint2 make_uint2(unsigned int x, unsigned int y);
__attribute__((host)) uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z);
__attribute__((host)) uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w);
__attribute__((host)) long1 make_long1(long x);
__attribute__((host)) long2 make_long2(long x, long y);
__attribute__((host)) long3 make_long3(long x, long y, long z);
__attribute__((host)) long4 make_long4(long x, long y, long z, long w);
__attribute__((host)) ulong1 make_ulong1(unsigned long x);
__attribute__((host)) ulong2 make_ulong2(unsigned long x, unsigned long y);
__attribute__((host)) ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z);
__attribute__((host)) ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w);
__attribute__((host)) longlong1 make_longlong1(long long x);
__attribute__((host)) longlong2 make_longlong2(long long x, long long y);
__attribute__((host)) longlong3 make_longlong3(long long x, long long y, long long z);
__attribute__((host)) longlong4 make_longlong4(long long x, long long y, long long z, long long w);
__attribute__((host)) ulonglong1 make_ulonglong1(unsigned long long x);
__attribute__((host)) ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y);
__attribute__((host)) ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z);
__attribute__((host)) ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w);
__attribute__((host)) float1 make_float1(float x);
__attribute__((host)) float2 make_float2(float x, float y);
__attribute__((host)) float3 make_float3(float x, float y, float z);
__attribute__((host)) float4 make_float4(float x, float y, float z, float w);
__attribute__((host)) double1 make_double1(double x);
__attribute__((host)) double2 make_double2(double x, double y);
__attribute__((host)) double3 make_double3(double x, double y, double z);
__attribute__((host)) double4 make_double4(double x, double y, double z, double w);

// ---- Built-in variables ---------------------------------------------------------------------

extern const __attribute__((device)) uint3 threadIdx;
extern const __attribute__((device)) uint3 blockIdx;
extern const __attribute__((device)) dim3 blockDim;
extern const __attribute__((device)) dim3 gridDim;
// The warp size is 32 on every NVIDIA GPU, and lockstep reads it so: a constant, as kernels use
// it (`threadIdx.x % warpSize`, `blockDim.x / warpSize`). lockstep knows no warps otherwise:
// threads of a warp are as unordered as any others.
#define warpSize 32

// ---- Barriers and fences --------------------------------------------------------------------

void __syncthreads(void);
int __syncthreads_count(int predicate);
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
void __syncwarp(unsigned int mask = 0xffffffffu);
void __threadfence(void);
void __threadfence_block(void);
void __threadfence_system(void);

// ---- Atomics --------------------------------------------------------------------------------

int atomicAdd(int *address, int val);
unsigned int atomicAdd(unsigned int *address, unsigned int val);
unsigned long long atomicAdd(unsigned long long *address, unsigned long long val);
float atomicAdd(float *address, float val);
double atomicAdd(double *address, double val);
int atomicSub(int *address, int val);
unsigned int atomicSub(unsigned int *address, unsigned int val);
int atomicExch(int *address, int val);
unsigned int atomicExch(unsigned int *address, unsigned int val);
unsigned long long atomicExch(unsigned long long *address, unsigned long long val);
float atomicExch(float *address, float val);
int atomicMin(int *address, int val);
unsigned int atomicMin(unsigned int *address, unsigned int val);
long long atomicMin(long long *address, long long val);
unsigned long long atomicMin(unsigned long long *address, unsigned long long val);
int atomicMax(int *address, int val);
unsigned int atomicMax(unsigned int *address, unsigned int val);
long long atomicMax(long long *address, long long val);
unsigned long long atomicMax(unsigned long long *address, unsigned long long val);
unsigned int atomicInc(unsigned int *address, unsigned int val);
unsigned int atomicDec(unsigned int *address, unsigned int val);
int atomicAnd(int *address, int val);
unsigned int atomicAnd(unsigned int *address, unsigned int val);
unsigned long long atomicAnd(unsigned long long *address, unsigned long long val);
int atomicOr(int *address, int val);
unsigned int atomicOr(unsigned int *address, unsigned int val);
unsigned long long atomicOr(unsigned long long *address, unsigned long long val);
int atomicXor(int *address, int val);
unsigned int atomicXor(unsigned int *address, unsigned int val);
unsigned long long atomicXor(unsigned long long *address, unsigned long long val);
int atomicCAS(int *address, int compare, int val);
unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int val);
unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare, unsigned long long val);
unsigned short atomicCAS(unsigned short *address, unsigned short compare, unsigned short val);

// ---- Warp functions -------------------------------------------------------------------------

int __shfl_sync(unsigned int mask, int var, int srcLane, int width = 32);
int __shfl_up_sync(unsigned int mask, int var, unsigned int delta, int width = 32);
int __shfl_down_sync(unsigned int mask, int var, unsigned int delta, int width = 32);
int __shfl_xor_sync(unsigned int mask, int var, int laneMask, int width = 32);
unsigned int __shfl_sync(unsigned int mask, unsigned int var, int srcLane, int width = 32);
unsigned int __shfl_up_sync(unsigned int mask, unsigned int var, unsigned int delta, int width = 32);
unsigned int __shfl_down_sync(unsigned int mask, unsigned int var, unsigned int delta, int width = 32);
unsigned int __shfl_xor_sync(unsigned int mask, unsigned int var, int laneMask, int width = 32);
long __shfl_sync(unsigned int mask, long var, int srcLane, int width = 32);
long __shfl_up_sync(unsigned int mask, long var, unsigned int delta, int width = 32);
long __shfl_down_sync(unsigned int mask, long var, unsigned int delta, int width = 32);
long __shfl_xor_sync(unsigned int mask, long var, int laneMask, int width = 32);
unsigned long __shfl_sync(unsigned int mask, unsigned long var, int srcLane, int width = 32);
unsigned long __shfl_up_sync(unsigned int mask, unsigned long var, unsigned int delta, int width = 32);
unsigned long __shfl_down_sync(unsigned int mask, unsigned long var, unsigned int delta, int width = 32);
unsigned long __shfl_xor_sync(unsigned int mask, unsigned long var, int laneMask, int width = 32);
long long __shfl_sync(unsigned int mask, long long var, int srcLane, int width = 32);
long long __shfl_up_sync(unsigned int mask, long long var, unsigned int delta, int width = 32);
long long __shfl_down_sync(unsigned int mask, long long var, unsigned int delta, int width = 32);
long long __shfl_xor_sync(unsigned int mask, long long var, int laneMask, int width = 32);
unsigned long long __shfl_sync(unsigned int mask, unsigned long long var, int srcLane, int width = 32);
unsigned long long __shfl_up_sync(unsigned int mask, unsigned long long var, unsigned int delta, int width = 32);
unsigned long long __shfl_down_sync(unsigned int mask, unsigned long long var, unsigned int delta, int width = 32);
unsigned long long __shfl_xor_sync(unsigned int mask, unsigned long long var, int laneMask, int width = 32);
float __shfl_sync(unsigned int mask, float var, int srcLane, int width = 32);
float __shfl_up_sync(unsigned int mask, float var, unsigned int delta, int width = 32);
float __shfl_down_sync(unsigned int mask, float var, unsigned int delta, int width = 32);
float __shfl_xor_sync(unsigned int mask, float var, int laneMask, int width = 32);
double __shfl_sync(unsigned int mask, double var, int srcLane, int width = 32);
double __shfl_up_sync(unsigned int mask, double var, unsigned int delta, int width = 32);
double __shfl_down_sync(unsigned int mask, double var, unsigned int delta, int width = 32);
double __shfl_xor_sync(unsigned int mask, double var, int laneMask, int width = 32);
unsigned int __ballot_sync(unsigned int mask, int predicate);
int __any_sync(unsigned int mask, int predicate);
int __all_sync(unsigned int mask, int predicate);
unsigned int __activemask(void);
int __any(int predicate);
unsigned int __ballot(int predicate);

// ---- Loads through the caches, timing, traps ------------------------------------------------

template <typename T> T __ldg(const T *ptr);
template <typename T> T __ldcg(const T *ptr);
template <typename T> T __ldca(const T *ptr);
template <typename T> T __ldcs(const T *ptr);
template <typename T> T __ldlu(const T *ptr);
template <typename T> T __ldcv(const T *ptr);
long clock(void);
long long clock64(void);
void __nanosleep(unsigned int ns);
void __trap(void);

// ---- Integer intrinsics ---------------------------------------------------------------------

int __mul24(int x, int y);
unsigned int __umul24(unsigned int x, unsigned int y);
int __mulhi(int x, int y);
unsigned int __umulhi(unsigned int x, unsigned int y);
long long __mul64hi(long long x, long long y);
unsigned long long __umul64hi(unsigned long long x, unsigned long long y);
int __popc(unsigned int x);
int __popcll(unsigned long long x);
int __clz(int x);
int __clzll(long long x);
int __ffs(int x);
int __ffsll(long long x);
unsigned int __brev(unsigned int x);
unsigned long long __brevll(unsigned long long x);
unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s);
int __hadd(int x, int y);
unsigned int __uhadd(unsigned int x, unsigned int y);
int __rhadd(int x, int y);
unsigned int __urhadd(unsigned int x, unsigned int y);
unsigned int __sad(int x, int y, unsigned int z);
unsigned int __usad(unsigned int x, unsigned int y, unsigned int z);
unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift);
unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift);

// `min` and `max`, with CUDA's overloads for operands of mixed signedness.
__attribute__((host)) int min(int a, int b);
__attribute__((host)) int max(int a, int b);
__attribute__((host)) unsigned int min(unsigned int a, unsigned int b);
__attribute__((host)) unsigned int max(unsigned int a, unsigned int b);
__attribute__((host)) unsigned int min(int a, unsigned int b);
__attribute__((host)) unsigned int max(int a, unsigned int b);
__attribute__((host)) unsigned int min(unsigned int a, int b);
__attribute__((host)) unsigned int max(unsigned int a, int b);
__attribute__((host)) long min(long a, long b);
__attribute__((host)) long max(long a, long b);
__attribute__((host)) unsigned long min(unsigned long a, unsigned long b);
__attribute__((host)) unsigned long max(unsigned long a, unsigned long b);
__attribute__((host)) unsigned long min(long a, unsigned long b);
__attribute__((host)) unsigned long max(long a, unsigned long b);
__attribute__((host)) unsigned long min(unsigned long a, long b);
__attribute__((host)) unsigned long max(unsigned long a, long b);
__attribute__((host)) long long min(long long a, long long b);
__attribute__((host)) long long max(long long a, long long b);
__attribute__((host)) unsigned long long min(unsigned long long a, unsigned long long b);
__attribute__((host)) unsigned long long max(unsigned long long a, unsigned long long b);
__attribute__((host)) unsigned long long min(long long a, unsigned long long b);
__attribute__((host)) unsigned long long max(long long a, unsigned long long b);
__attribute__((host)) unsigned long long min(unsigned long long a, long long b);
__attribute__((host)) unsigned long long max(unsigned long long a, long long b);
__attribute__((host)) float min(float a, float b);
__attribute__((host)) float max(float a, float b);
__attribute__((host)) double min(double a, double b);
__attribute__((host)) double max(double a, double b);
__attribute__((host)) double min(float a, double b);
__attribute__((host)) double max(float a, double b);
__attribute__((host)) double min(double a, float b);
__attribute__((host)) double max(double a, float b);
unsigned int umin(unsigned int a, unsigned int b);
unsigned int umax(unsigned int a, unsigned int b);
long long llmin(long long a, long long b);
long long llmax(long long a, long long b);
unsigned long long ullmin(unsigned long long a, unsigned long long b);
unsigned long long ullmax(unsigned long long a, unsigned long long b);
int abs(int x);
long labs(long x);
long long llabs(long long x);
long abs(long x);
long long abs(long long x);

// ---- Floating-point math --------------------------------------------------------------------

// `sqrtf(float)`, `sqrt(double)` and C++'s `sqrt(float)`, for each of the usual functions.
float sqrtf(float x);
double sqrt(double x);
float sqrt(float x);
float rsqrtf(float x);
double rsqrt(double x);
float rsqrt(float x);
float cbrtf(float x);
double cbrt(double x);
float cbrt(float x);
float rcbrtf(float x);
double rcbrt(double x);
float rcbrt(float x);
float expf(float x);
double exp(double x);
float exp(float x);
float exp2f(float x);
double exp2(double x);
float exp2(float x);
float exp10f(float x);
double exp10(double x);
float exp10(float x);
float expm1f(float x);
double expm1(double x);
float expm1(float x);
float logf(float x);
double log(double x);
float log(float x);
float log2f(float x);
double log2(double x);
float log2(float x);
float log10f(float x);
double log10(double x);
float log10(float x);
float log1pf(float x);
double log1p(double x);
float log1p(float x);
float logbf(float x);
double logb(double x);
float logb(float x);
float sinf(float x);
double sin(double x);
float sin(float x);
float cosf(float x);
double cos(double x);
float cos(float x);
float tanf(float x);
double tan(double x);
float tan(float x);
float asinf(float x);
double asin(double x);
float asin(float x);
float acosf(float x);
double acos(double x);
float acos(float x);
float atanf(float x);
double atan(double x);
float atan(float x);
float sinhf(float x);
double sinh(double x);
float sinh(float x);
float coshf(float x);
double cosh(double x);
float cosh(float x);
float tanhf(float x);
double tanh(double x);
float tanh(float x);
float asinhf(float x);
double asinh(double x);
float asinh(float x);
float acoshf(float x);
double acosh(double x);
float acosh(float x);
float atanhf(float x);
double atanh(double x);
float atanh(float x);
float sinpif(float x);
double sinpi(double x);
float sinpi(float x);
float cospif(float x);
double cospi(double x);
float cospi(float x);
float fabsf(float x);
double fabs(double x);
float fabs(float x);
float floorf(float x);
double floor(double x);
float floor(float x);
float ceilf(float x);
double ceil(double x);
float ceil(float x);
float truncf(float x);
double trunc(double x);
float trunc(float x);
float roundf(float x);
double round(double x);
float round(float x);
float rintf(float x);
double rint(double x);
float rint(float x);
float nearbyintf(float x);
double nearbyint(double x);
float nearbyint(float x);
float erff(float x);
double erf(double x);
float erf(float x);
float erfcf(float x);
double erfc(double x);
float erfc(float x);
float lgammaf(float x);
double lgamma(double x);
float lgamma(float x);
float tgammaf(float x);
double tgamma(double x);
float tgamma(float x);
float normcdff(float x);
double normcdf(double x);
float normcdf(float x);
float powf(float x, float y);
double pow(double x, double y);
float pow(float x, float y);
float atan2f(float x, float y);
double atan2(double x, double y);
float atan2(float x, float y);
float fmodf(float x, float y);
double fmod(double x, double y);
float fmod(float x, float y);
float remainderf(float x, float y);
double remainder(double x, double y);
float remainder(float x, float y);
float fminf(float x, float y);
double fmin(double x, double y);
float fmin(float x, float y);
float fmaxf(float x, float y);
double fmax(double x, double y);
float fmax(float x, float y);
float fdimf(float x, float y);
double fdim(double x, double y);
float fdim(float x, float y);
float hypotf(float x, float y);
double hypot(double x, double y);
float hypot(float x, float y);
float copysignf(float x, float y);
double copysign(double x, double y);
float copysign(float x, float y);
float nextafterf(float x, float y);
double nextafter(double x, double y);
float nextafter(float x, float y);
float fmaf(float x, float y, float z);
double fma(double x, double y, double z);
float fma(float x, float y, float z);
float abs(float x);
double abs(double x);
float ldexpf(float x, int e);
double ldexp(double x, int e);
float frexpf(float x, int *e);
double frexp(double x, int *e);
float modff(float x, float *i);
double modf(double x, double *i);
void sincosf(float x, float *s, float *c);
void sincos(double x, double *s, double *c);
int ilogbf(float x);
int ilogb(double x);
long lroundf(float x);
long lround(double x);
long long llroundf(float x);
long long llround(double x);
float powif(float x, int y);
bool isnan(float x);
bool isnan(double x);
bool isinf(float x);
bool isinf(double x);
bool isfinite(float x);
bool isfinite(double x);
bool signbit(float x);
bool signbit(double x);

// Fast and correctly rounded intrinsics, conversions and reinterpretations.
float __fdividef(float x, float y);
float __expf(float x);
float __exp10f(float x);
float __logf(float x);
float __log2f(float x);
float __log10f(float x);
float __sinf(float x);
float __cosf(float x);
float __tanf(float x);
void __sincosf(float x, float *s, float *c);
float __powf(float x, float y);
float __saturatef(float x);
float __fadd_rn(float x, float y);
float __fsub_rn(float x, float y);
float __fmul_rn(float x, float y);
float __fdiv_rn(float x, float y);
float __fmaf_rn(float x, float y, float z);
float __fsqrt_rn(float x);
float __frsqrt_rn(float x);
float __frcp_rn(float x);
double __dadd_rn(double x, double y);
double __dsub_rn(double x, double y);
double __dmul_rn(double x, double y);
double __ddiv_rn(double x, double y);
double __fma_rn(double x, double y, double z);
double __dsqrt_rn(double x);
double __drcp_rn(double x);
int __float2int_rn(float x);
int __float2int_rz(float x);
unsigned int __float2uint_rn(float x);
unsigned int __float2uint_rz(float x);
float __int2float_rn(int x);
float __uint2float_rn(unsigned int x);
float __double2float_rn(double x);
int __double2int_rn(double x);
int __float_as_int(float x);
unsigned int __float_as_uint(float x);
float __int_as_float(int x);
float __uint_as_float(unsigned int x);
long long __double_as_longlong(double x);
double __longlong_as_double(long long x);

// ---- Device-side C library ------------------------------------------------------------------

extern "C" {
int printf(const char *format, ...);
void *malloc(size_t size);
void free(void *ptr);
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int value, size_t n);
// What glibc's `assert` macro calls, if the kernel includes <assert.h>.
void __assert_fail(const char *message, const char *file, unsigned int line,
                   const char *function);
}
// `assert(e)` in device code: a call of `assert` in the AST, unless <assert.h> redefines it as
// glibc's macro.
#ifndef assert
void assert(bool condition);
#endif

#pragma clang attribute pop

// ---- Kernel launches in host code -----------------------------------------------------------

// `k<<<grid, block>>>(...)` in host code (a `main` beside the kernels) needs this declared:
// clang parses host code too, though lockstep reads only device code.
typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
extern "C" __attribute__((host)) cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0,
                                                               cudaStream_t stream = 0);

// ---- What lockstep refuses by name ----------------------------------------------------------

// Declared so that a kernel using them compiles, and lockstep can say what it does not verify
// (`kernel::unsupported`, each with its own help) rather than show a compiler error: textures
// and surfaces, cuRAND, cooperative groups. A kernel launched from a kernel (dynamic
// parallelism) needs nothing declared: lockstep refuses the launch.
template <class T, int dim = 1, int mode = 0> struct __attribute__((device_builtin_texture_type)) texture { int channel; };
template <class T, int dim = 1> struct __attribute__((device_builtin_surface_type)) surface { int channel; };
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
#pragma clang attribute push(__attribute__((device)), apply_to = function)
template <class T, int dim, int mode> T tex1Dfetch(texture<T, dim, mode> texture, int x);
template <class T, int dim, int mode> T tex1D(texture<T, dim, mode> texture, float x);
template <class T, int dim, int mode> T tex2D(texture<T, dim, mode> texture, float x, float y);
template <class T, int dim, int mode> T tex3D(texture<T, dim, mode> texture, float x, float y, float z);
template <class T> T tex1Dfetch(cudaTextureObject_t texture, int x);
template <class T> T tex1D(cudaTextureObject_t texture, float x);
template <class T> T tex2D(cudaTextureObject_t texture, float x, float y);
template <class T> T tex3D(cudaTextureObject_t texture, float x, float y, float z);
template <class T> void surf1Dwrite(T value, cudaSurfaceObject_t surface, int x);
template <class T> void surf2Dwrite(T value, cudaSurfaceObject_t surface, int x, int y);
template <class T> T surf1Dread(cudaSurfaceObject_t surface, int x);
template <class T> T surf2Dread(cudaSurfaceObject_t surface, int x, int y);

struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag; float boxmuller_extra; };
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                 curandState *state);
unsigned int curand(curandState *state);
float curand_uniform(curandState *state);
float curand_normal(curandState *state);
double curand_uniform_double(curandState *state);
double curand_normal_double(curandState *state);
#pragma clang attribute pop

// A launch in device code (dynamic parallelism) calls these, with `-fgpu-rdc`.
extern "C" __attribute__((device)) void *cudaGetParameterBuffer(size_t alignment, size_t size);
extern "C" __attribute__((device)) cudaError_t cudaLaunchDevice(void *function, void *parameters, dim3 grid,
                                                               dim3 block, unsigned int shared, cudaStream_t stream);

namespace cooperative_groups {
struct thread_group {
  __attribute__((device)) void sync() const;
  __attribute__((device)) unsigned int size() const;
  __attribute__((device)) unsigned int thread_rank() const;
};
struct thread_block : thread_group {};
struct grid_group : thread_group {};
__attribute__((device)) thread_block this_thread_block();
__attribute__((device)) grid_group this_grid();
__attribute__((device)) void sync(const thread_group &group);
}  // namespace cooperative_groups

#endif // LOCKSTEP_CUDA_H
