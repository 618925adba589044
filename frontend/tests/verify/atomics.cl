// Atomic operations: a read and a write of the cell by one thread, which must hold write
// permission on it; the value written is C's (wrapping), and the call returns the old value.
/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  requires a[get_global_id(0)] == 5;
  ensures a[get_global_id(0)] == 7;
@*/
__kernel void counts_its_own_cell(__global int* a) {
  int old = atomic_add(&a[get_global_id(0)], 3);
  atomic_dec(a + get_global_id(0));
  if (old != 5) { a[get_global_id(0)] = 0; }
  atomic_cmpxchg(&a[get_global_id(0)], 6, 7);
}
/*@
  context \pointer_length(c) == get_global_size(0);
  context Perm(&c[get_global_id(0)], write);
  requires c[get_global_id(0)] == 4294967295;
  ensures c[get_global_id(0)] == 0;
@*/
__kernel void wraps_around(__global unsigned int* c) {
  atomic_inc(&c[get_global_id(0)]);
}
/*@
  context \pointer_length(c) == 1;
@*/
__kernel void shares_a_counter(__global int* c) {
  atomic_inc(c);
}
/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  requires a[get_global_id(0)] == 5;
  ensures a[get_global_id(0)] == 5;
@*/
__kernel void adds_one_to_the_old_value(__global int* a) {
  int old = atomic_xchg(&a[get_global_id(0)], 9);
  a[get_global_id(0)] = old + 1;
}
