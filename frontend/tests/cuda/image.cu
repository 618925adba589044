// Image kernels over a 2D grid of 2D blocks (blockIdx.y, threadIdx.y), guarded for images that
// are not whole blocks, as the CUDA samples' image filters write them. clampImage clamps every
// pixel into [lo, hi] through the local header's `__attribute__((always_inline))` template
// clampT, min(max(v, lo), hi); threshold binarises an 8-bit image with `static_cast`; rgbToGray
// converts interleaved 8-bit RGB pixels to luminance in fixed point, (77 r + 150 g + 29 b) >> 8,
// through a pointer to the pixel (the samples' uchar4 pixels are refused: arrays of CUDA's vector
// types and `uchar4 px = rgba[i];`; and an annotation macro's argument may not be another macro
// of several tokens, so CLAMPED_IN names its pixel itself). rgbToGray's precondition states that
// the 8-bit cells hold 8-bit values: lockstep does not assume that the cells of an array lie in
// its element type. The indices are non-linear in the sizes (the image must fit an int). The
// proofs show race freedom, bounds and every pixel.
//:: verdict verified
//:: run with --kernel clampImage --groups 2x2 --gsize 4x2 --param width=6 --param height=3 --param lo=-2 --param hi=5
//:: run with --kernel threshold --groups 1x3 --gsize 2x2 --param width=2 --param height=5 --param t=3
//:: run with --kernel rgbToGray --groups 1x3 --gsize 2x2 --param width=2 --param height=5
#include "common.h"

#define PX (blockIdx.x * blockDim.x + threadIdx.x)
#define PY (blockIdx.y * blockDim.y + threadIdx.y)
#define INSIDE (PX < width && PY < height)
#define PIXEL (PY * width + PX)
#define IN_PIXEL in[PIXEL]
#define CLAMPED_IN (IN_PIXEL < lo ? lo : IN_PIXEL > hi ? hi : IN_PIXEL)

/*@
  context width >= 0 && height >= 0 && width * height <= 2147483647 && lo <= hi;
  context \pointer_length(in) == width * height && \pointer_length(out) == width * height;
  context INSIDE ==> Perm(&in[PIXEL], read) ** Perm(&out[PIXEL], write);
  ensures INSIDE ==> out[PIXEL] == CLAMPED_IN;
@*/
__global__ void clampImage(const int *in, int *out, int width, int height, int lo, int hi) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    out[y * width + x] = clampT(in[y * width + x], lo, hi);
  }
}

static __device__ __forceinline__ unsigned char binarize(unsigned char v, unsigned char t) {
  return v > t ? static_cast<unsigned char>(255) : static_cast<unsigned char>(0);
}

/*@
  context width >= 0 && height >= 0 && width * height <= 2147483647;
  context \pointer_length(in) == width * height && \pointer_length(out) == width * height;
  context INSIDE ==> Perm(&in[PIXEL], read) ** Perm(&out[PIXEL], write);
  ensures INSIDE ==> out[PIXEL] == (in[PIXEL] > t ? 255 : 0);
@*/
__global__ void threshold(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int width,
                          int height, unsigned char t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  out[y * width + x] = binarize(in[y * width + x], t);
}

#define RGB(c) rgb[3 * PIXEL + (c)]

/*@
  context width >= 0 && height >= 0 && 3 * width * height <= 2147483647;
  context \pointer_length(rgb) == 3 * width * height && \pointer_length(gray) == width * height;
  context INSIDE ==> Perm(&RGB(0), read) ** Perm(&RGB(1), read) ** Perm(&RGB(2), read);
  context INSIDE ==> Perm(&gray[PIXEL], write);
  requires INSIDE ==> 0 <= RGB(0) && RGB(0) <= 255 && 0 <= RGB(1) && RGB(1) <= 255 && 0 <= RGB(2) && RGB(2) <= 255;
  ensures INSIDE ==> gray[PIXEL] == (77 * RGB(0) + 150 * RGB(1) + 29 * RGB(2)) >> 8;
@*/
__global__ void rgbToGray(const unsigned char *rgb, unsigned char *gray, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    int idx = y * width + x;
    const unsigned char *px = rgb + 3 * idx;
    gray[idx] = (unsigned char)((77 * px[0] + 150 * px[1] + 29 * px[2]) >> 8);
  }
}
