// Private memory: a thread's own arrays, and scalars whose address is taken.

__kernel void tables() {
  int squares[] = {0, 1, 4, 9};
  int grid[2][3] = {{1, 2}, {3}};
  bool seen[4];
  int i = get_local_id(0) % 4;
  seen[i] = true;
  __assert(squares[i] == i * i);
  __assert(grid[0][1] == 2 && grid[0][2] == 0 && grid[1][0] == 3 && grid[1][2] == 0);
  __assert(seen[i]);
}

__kernel void out_of_bounds() {
  int t[4];
  t[get_global_id(0) + 1] = 1;
}

void increment(int* p) {
  *p = *p + 1;
}

void set(int* p, int value) {
  p[0] = value;
}

__kernel void through_pointers() {
  int x = 4;
  increment(&x);
  __assert(x == 5);
  int y;
  int* p = &y;
  *p = 3;
  __assert(y == 3);
  int pair[2] = {7, 8};
  set(pair + 1, 9);
  __assert(pair[0] == 7 && pair[1] == 9);
}

__kernel void written_through_pointer() {
  int x = 4;
  set(&x, 6);
  __assert(x == 4);
}

__kernel void counts() {
  int counts[2] = {0, 0};
  //@ loop_invariant 0 <= i && i <= 6 && counts[0] == (i + 1) / 2 && counts[1] == i / 2;
  for (int i = 0; i < 6; i++) {
    counts[i % 2] += 1;
  }
  __assert(counts[0] + counts[1] == 6);
}

__kernel void rows() {
  int pairs[][2] = {1, 2, 3, 4, 5};
  int i = get_local_id(0) % 3;
  __assert(pairs[2][0] == 5 && pairs[2][1] == 0);
  __assert(i == 2 || pairs[i][1] == 2 * i + 2);
}

// Braces left out, or around a scalar, as C allows: Clang gives each value its cell.
__kernel void elided_braces() {
  int g[2][3] = {1, {2}, 3};
  int i = get_local_id(0) % 3;
  __assert(g[0][0] == 1 && g[0][1] == 2 && g[0][2] == 3);
  __assert(g[1][i] == 0);
}
