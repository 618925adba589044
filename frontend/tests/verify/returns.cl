// A `return` inside a loop sets the kernel's return flag: the loop stops, and the code after it
// runs only in the threads that did not return.

// The write after the loop runs only where no return happened: even threads return and keep 1.
// `\returned` tells the loop's invariants whether the kernel has returned.
/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  ensures a[get_global_id(0)] == (get_global_id(0) % 2 == 0 ? 1 : 2);
@*/
__kernel void early_exit(__global int* a) {
  a[get_global_id(0)] = 1;
  /*@
    loop_invariant 0 <= i && i <= 4;
    loop_invariant Perm(&a[get_global_id(0)], write) ** a[get_global_id(0)] == 1;
    loop_invariant \returned ==> get_global_id(0) % 2 == 0;
    loop_invariant get_global_id(0) % 2 == 0 ==> \returned || i == 0;
  @*/
  for (int i = 0; i < 4; i++) {
    if (get_global_id(0) % 2 == 0) {
      return;
    }
  }
  a[get_global_id(0)] = 2;
}

// The code after the loop is still checked for the threads that do not return: a race on a[0].
/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
@*/
__kernel void write_after_loop(__global int* a) {
  /*@
    loop_invariant 0 <= i && i <= 4;
    loop_invariant Perm(&a[get_global_id(0)], write);
  @*/
  for (int i = 0; i < 4; i++) {
    if (get_global_id(0) == 1) {
      return;
    }
  }
  a[0] = 2;
}

// A barrier after a loop some threads return from is reached by the others only: divergence.
__kernel void barrier_after_return(__global int* a) {
  for (int i = 0; i < 2; i++) {
    if (get_local_id(0) == 0) {
      return;
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
}

// A helper's `return` inside its loop gives the call its value: the step does not run after it.
int below(int n) {
  /*@
    loop_invariant 0 <= i && i <= n;
    loop_invariant \returned ==> \result == i && i == 3;
    loop_invariant !\returned ==> i <= 3;
  @*/
  for (int i = 0; i < n; i++) {
    if (i >= 3) return i;
  }
  return n;
}

/*@
  context \pointer_length(a) == get_global_size(0);
  context Perm(&a[get_global_id(0)], write);
  ensures a[get_global_id(0)] == 3;
@*/
__kernel void helper_return(__global int* a) {
  a[get_global_id(0)] = below(8);
}
