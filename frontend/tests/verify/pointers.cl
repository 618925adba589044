// Pointer variables point into one array each (a private index), and a local scalar is one
// cell of the group's local memory.
/*@
  context \pointer_length(p) == get_global_size(0) ** \pointer_length(q) == get_global_size(0);
  context Perm(&p[get_global_id(0)], write) ** Perm(&q[get_global_id(0)], write);
  requires p[get_global_id(0)] == 1;
  ensures p[get_global_id(0)] == 2 && q[get_global_id(0)] == 3;
@*/
__kernel void aliases(__global int* p, __global int* q) {
  __global int* pAlias;
  __global int* qAlias = q;
  pAlias = p;
  pAlias[get_global_id(0)] = pAlias[get_global_id(0)] + 1;
  qAlias = qAlias + get_global_id(0);
  *qAlias = 3;
}

__kernel void counts(__global int* out) {
  __local int count;
  /*@ ensures get_local_id(0) == 0 ==> Perm(&count, write); @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) { count = 7; atomic_inc(&count); }
  /*@ requires get_local_id(0) == 0 ==> Perm(&count, write) ** count == 8;
      ensures Perm(&count, read) ** count == 8; @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  /*@ assert count == 8; @*/
}
/*@
  context \pointer_length(p) == get_global_size(0);
  context Perm(&p[get_global_id(0)], write);
@*/
__kernel void steps_past_its_cell(__global int* p) {
  __global int* cell = p + get_global_id(0);
  cell++;
  *cell = 1;
}
