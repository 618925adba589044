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
