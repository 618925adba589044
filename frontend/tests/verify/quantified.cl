// A bound variable of an unsigned type ranges over its type: no instance or witness lies outside.
__kernel void no_negative_witness() {
  //@ assert !(\exists unsigned int j; j < 0u);
}

__kernel void a_witness() {
  //@ assert (\exists unsigned int j; j % 4u == 3u && j < 4u);
}

__kernel void no_such_witness() {
  //@ assert (\exists unsigned int j; j % 4u == 3u && j < 3u);
}
