// GPUVerify's access logs: `__read(a)` may hold after a read of `a` since the last barrier that
// fences its memory, and `__read_offset_bytes(a)` is then the byte offset of one such read.
/*@
  context \pointer_length(p) == get_global_size(0) && \pointer_length(q) == get_global_size(0);
  context Perm(&p[get_global_id(0)], write) ** Perm(&q[get_global_id(0)], read);
@*/
__kernel void copy(__global int* p, __global int* q) {
  p[get_global_id(0)] = q[get_global_id(0)];
  __assert(!__read(p) && !__write(q));
  __assert(__implies(__read(q), __read_offset_bytes(q) == 4 * get_global_id(0)));
  __assert(__write_implies(p, __write_offset(p) == get_global_id(0)));
}

// A barrier that fences local memory empties the logs of local arrays, not of global ones.
/*@
  context \pointer_length(g) == get_global_size(0) && \pointer_length(s) == get_local_size(0);
  context Perm(&g[get_global_id(0)], write) ** Perm(&s[get_local_id(0)], write);
@*/
__kernel void barrier_empties(__global int* g, __local int* s) {
  s[get_local_id(0)] = 1;
  g[get_global_id(0)] = 2;
  /*@
    context Perm(&g[get_global_id(0)], write) ** Perm(&s[get_local_id(0)], write);
  @*/
  barrier(CLK_LOCAL_MEM_FENCE);
  __assert(!__write(s));
  __assert(!__write(g));
}

// The log takes some access, not always the last: the offset may be of the first write.
/*@
  context \pointer_length(g) == 2 * get_global_size(0);
  context Perm(&g[2 * get_global_id(0)], write) ** Perm(&g[2 * get_global_id(0) + 1], write);
@*/
__kernel void some_access(__global int* g) {
  g[2 * get_global_id(0)] = 1;
  g[2 * get_global_id(0) + 1] = 1;
  __assert(__implies(__write(g), __write_offset(g) == 2 * get_global_id(0) + 1));
}

// A helper's precondition over the logs is checked where it is called.
void untouched(__global int* a) {
  __requires(__no_read(a));
}

/*@
  context \pointer_length(g) == get_global_size(0);
  context Perm(&g[get_global_id(0)], read);
@*/
__kernel void read_before_call(__global int* g) {
  int x = g[get_global_id(0)];
  untouched(g);
}
