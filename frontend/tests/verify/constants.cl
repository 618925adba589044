// File-scope `__constant` arrays and variables: each thread reads its own copy.

__constant int squares[4] = {0, 1, 4, 9};
__constant int scale = 3;

int scaled(int i) {
  return scale * squares[i];
}

__kernel void tables() {
  int i = get_local_id(0) % 4;
  __assert(squares[i] == i * i);
  int s = scaled(i);
  __assert(s == 3 * i * i);
}

__kernel void outside() {
  int x = squares[get_global_id(0) + 1];
}
