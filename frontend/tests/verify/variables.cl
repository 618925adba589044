// C's variables: a parameter the code assigns is a variable of the kernel, while the contract
// still speaks of the value it was called with; a name declared again in an inner block is
// another variable there.
/*@
  context \pointer_length(a) == 1 ** Perm(&a[0], write);
  requires n < 1000;
  ensures a[0] == n + 2;
@*/
__kernel void assigns_its_parameter(__global int* a, int n) {
  n = n + 1;
  n++;
  a[0] = n;
}
/*@
  context \pointer_length(a) == 1 ** Perm(&a[0], write);
  ensures a[0] == 7;
@*/
__kernel void shadows_a_name(__global int* a, int x) {
  {
    int x = 4;
    x = x + 3;
    a[0] = x;
  }
}
/*@
  context \pointer_length(a) == 1 ** Perm(&a[0], write);
  ensures a[0] == x;
@*/
__kernel void reads_the_inner_name(__global int* a, int x) {
  {
    int x = 4;
    a[0] = x;
  }
}

// A loop forgets the values of the variables it assigns, not their types: after it `x` is still
// an unsigned int, and `y` an int that a check kept from overflowing.
__kernel void loops_keep_types(uint n) {
  uint x = 0;
  int y = 0;
  for (uint i = 0; i < n; i++) {
    x = x * 3 + 1;
    if (y < 100) y++;
  }
  __assert(x <= 4294967295u);
  __assert(y >= -2147483647 - 1 && y <= 2147483647);
}
