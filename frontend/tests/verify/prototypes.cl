// Functions declared without a body: nothing says what they compute, so a call's result is an
// arbitrary value of its type, and its arguments are evaluated where C evaluates them. OpenCL's
// memory fences order a work-item's own accesses, which lockstep runs in order already.
unsigned bar(unsigned, unsigned);
void note(int);

__kernel void undefined_result(unsigned x, unsigned y) {
  unsigned z = bar(x, y);
  __assert(z >= x);
}

/*@ context \pointer_length(a) == get_global_size(0);
    context Perm(&a[get_global_id(0)], write); @*/
__kernel void arguments_are_evaluated(__global int* a) {
  note(a[get_global_id(0)]);
  note(a[0]);
}

__kernel void fenced() {
  int x = 1;
  mem_fence(CLK_LOCAL_MEM_FENCE);
  read_mem_fence(CLK_GLOBAL_MEM_FENCE);
  __assert(x == 1);
}
