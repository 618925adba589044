// Structs as the CUDA samples' particle and n-body codes use them: arrays of structs used by
// their names (`struct Particle { int x, y, vx, vy; };`, a `typedef struct __align__(16)`), a
// parameter struct passed by value to the kernel (`SimParams params`), a pointer to a struct
// (`p->x`) and a device helper that takes a struct by reference. Whole-struct copies (`Particle
// p = particles[i];`, `packed[i] = q;`, a struct passed by value to a helper) are refused in
// CUDA (C++ copies them through constructors and `operator=`), though OpenCL C reads them; the
// kernels go field by field. integrate moves each particle by its velocity and reflects it off
// the walls of the box, as the particles sample's integrate_functor does (in integers here, so
// that the postcondition can state the move); pack_positions copies the positions into an array
// of 16-byte aligned int4s; apply_gravity updates the velocities through a reference. The
// coordinates are bounded so that nothing overflows.
//:: verdict verified
#include "common.h"

#define COORD 1000000

struct Particle {
  int x, y;
  int vx, vy;
};

struct SimParams {
  int gravity;
  int boxMin;
  int boxMax;
};

typedef struct __align__(16) {
  int x, y, z, w;
} PackedPos;

// The position after one step along one axis, reflected off the walls.
#define MOVED(p, v, lo, hi) ((p) + (v) < (lo) ? (lo) : (p) + (v) > (hi) ? (hi) : (p) + (v))

static __device__ __forceinline__ int reflect(int pos, int lo, int hi) {
  return min(max(pos, lo), hi);
}

/*@
  context \pointer_length(particles) == n;
  context \gtid < n ==> Perm(&particles[\gtid], write);
  requires -COORD <= params.boxMin && params.boxMin <= params.boxMax && params.boxMax <= COORD;
  requires \gtid < n ==> -COORD <= particles[\gtid].x && particles[\gtid].x <= COORD && -COORD <= particles[\gtid].y && particles[\gtid].y <= COORD;
  requires \gtid < n ==> -COORD <= particles[\gtid].vx && particles[\gtid].vx <= COORD && -COORD <= particles[\gtid].vy && particles[\gtid].vy <= COORD;
  ensures \gtid < n ==> particles[\gtid].x == MOVED(\old(particles[\gtid].x), \old(particles[\gtid].vx), params.boxMin, params.boxMax);
  ensures \gtid < n ==> particles[\gtid].y == MOVED(\old(particles[\gtid].y), \old(particles[\gtid].vy), params.boxMin, params.boxMax);
  ensures \gtid < n ==> particles[\gtid].vx == \old(particles[\gtid].vx) && particles[\gtid].vy == \old(particles[\gtid].vy);
@*/
__global__ void integrate(Particle *particles, SimParams params, int n) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= n) return;
  Particle *p = &particles[index];
  p->x = reflect(p->x + p->vx, params.boxMin, params.boxMax);
  p->y = reflect(p->y + p->vy, params.boxMin, params.boxMax);
}

/*@
  context \pointer_length(particles) == n && \pointer_length(packed) == n;
  context \gtid < n ==> Perm(&particles[\gtid], read) ** Perm(&packed[\gtid], write);
  ensures \gtid < n ==> packed[\gtid].x == particles[\gtid].x && packed[\gtid].y == particles[\gtid].y;
  ensures \gtid < n ==> packed[\gtid].z == 0 && packed[\gtid].w == 1;
@*/
__global__ void pack_positions(const Particle *__restrict__ particles, PackedPos *__restrict__ packed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    packed[i].x = particles[i].x;
    packed[i].y = particles[i].y;
    packed[i].z = 0;
    packed[i].w = 1;
  }
}

static __device__ void accelerate(Particle &p, const int gravity) {
  p.vy = p.vy - gravity;
}

/*@
  context \pointer_length(particles) == n;
  context \gtid < n ==> Perm(&particles[\gtid], write);
  requires 0 <= params.gravity && params.gravity <= COORD;
  requires \gtid < n ==> -COORD <= particles[\gtid].vy && particles[\gtid].vy <= COORD;
  ensures \gtid < n ==> particles[\gtid].vy == \old(particles[\gtid].vy) - params.gravity;
  ensures \gtid < n ==> particles[\gtid].x == \old(particles[\gtid].x) && particles[\gtid].vx == \old(particles[\gtid].vx);
@*/
__global__ void apply_gravity(Particle *particles, SimParams params, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    accelerate(particles[i], params.gravity);
  }
}
