// `\old(e)` in a helper's contract is the value of `e` where the call starts.
/*@
  requires Perm(&a[i], write);
  ensures Perm(&a[i], write) ** a[i] == \old(a[i]) + 1;
@*/
void increment(__global int* a, int i) {
  a[i] = a[i] + 1;
}

/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  requires a[get_global_id(0)] == 5;
  ensures a[get_global_id(0)] == 7;
@*/
__kernel void twice(__global int* a) {
  increment(a, get_global_id(0));
  increment(a, get_global_id(0));
}

// A contract that claims the cell keeps its value, of a helper that changes it.
/*@
  requires Perm(&a[i], write);
  ensures Perm(&a[i], write) ** a[i] == \old(a[i]);
@*/
void unchanged(__global int* a, int i) {
  a[i] = a[i] + 1;
}

/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  requires a[get_global_id(0)] == 5;
@*/
__kernel void wrong(__global int* a) {
  unchanged(a, get_global_id(0));
}

// GPUVerify's `__old_int(e)` in a helper: the parameter as the call passed it.
void keep(int p) {
  __ensures(p == __old_int(p));
}

__kernel void gpuverify_old() {
  keep(4);
}
