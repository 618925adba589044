// OpenCL's vector types, read one component at a time.

// An int3 takes four cells, as in OpenCL: work item i owns n[i], all of whose components it
// writes (the fourth cell of each is padding nobody touches).
/*@
  context \pointer_length(n) == get_global_size(0);
  context Perm(&n[get_global_id(0)], write);
  ensures n[get_global_id(0)].x == 7 && n[get_global_id(0)].z == 9;
@*/
__kernel void three_components(__global int3* n) {
  n[get_global_id(0)] = (int3)(7, (int2)(8, 9));
}

// A comparison of vectors is -1 where it holds and 0 elsewhere; select and shuffle pick
// components; an assignment reads every component before it writes one.
__kernel void operations(int k) {
  int4 v = (int4)(1, 2, 3, 4);
  int4 c = v < 3;
  __assert(c.x == -1 && c.y == -1 && c.z == 0 && c.w == 0);
  int4 s = select(v, (int4)(0), c);
  __assert(s.x == 0 && s.z == 3);
  uint4 mask = (uint4)(3, 2, 1, 0);
  int4 r = shuffle(v, mask);
  __assert(r.x == 4 && r.w == 1);
  v.xy = v.yx;
  __assert(v.x == 2 && v.y == 1);
  v += 1;
  __assert(v.s0 + v.s1 + v.s2 + v.s3 == 14);
  int4 w = -v.wzyx;
  __assert(w.lo.x == -5 && w.hi.y == -3);
  __assert(v.x == 2);
}

// vload2 and vstore2 read and write two consecutive cells.
/*@
  context \pointer_length(a) == 2 * get_global_size(0);
  context Perm(&a[2 * get_global_id(0)], write) ** Perm(&a[2 * get_global_id(0) + 1], write);
  requires a[2 * get_global_id(0)] == 5;
  ensures a[2 * get_global_id(0) + 1] == 5;
@*/
__kernel void pairs(__global int* a) {
  int2 p = vload2(get_global_id(0), a);
  vstore2(p.yx, get_global_id(0), a);
}

// A permission on one component is not one on the others.
/*@
  context \pointer_length(g) == get_global_size(0);
  context Perm(&g[get_global_id(0)].x, write);
@*/
__kernel void one_component(__global float4* g) {
  g[get_global_id(0)].y = g[get_global_id(0)].x;
}

// The components of a uchar4 are not promoted to int, as C's scalars are: a sum wraps at 256,
// and a comparison sees the wrapped value. select tests the top bit of an unsigned mask.
__kernel void narrow() {
  uchar4 v = (uchar4)(200, 1, 2, 3);
  uchar4 w = v + v;
  __assert(w.x == 144);
  char4 c = (v + v) > (uchar4)(150);
  __assert(c.x == 0 && c.y == 0);
  uint4 m = (uint4)(0x80000000u, 1u, 0u, 0xFFFFFFFFu);
  int4 s = select((int4)(1), (int4)(2), m);
  __assert(s.x == 2 && s.y == 1 && s.w == 2);
}
