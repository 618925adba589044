// `break`, `continue` and `do ... while`, as C runs them: `break` skips the rest of the body and a
// `for` loop's step, `continue` skips the rest of the body and runs the step, `break` leaves only
// the loop it is in, and a `do` loop runs its body once before its condition is first evaluated.
// Each kernel writes what it counted, and its postcondition says what C computes. An iteration
// left by `break` ends like any other, so the invariant holds there too (`i <= 3` holds only
// because `break` skips `i++`), and after the loop only the invariant and the exit are known.

/*@ context \pointer_length(a) == get_global_size(0);
    context Perm(&a[get_global_id(0)], write);
    ensures a[get_global_id(0)] <= 3; @*/
__kernel void break_skips_the_step(__global int* a) {
  int i;
  /*@ loop_invariant 0 <= i && i <= 3; @*/
  for (i = 0; i < 10; i++) {
    if (i == 3) break;
  }
  a[get_global_id(0)] = i;
}

/*@ context \pointer_length(a) == get_global_size(0);
    context Perm(&a[get_global_id(0)], write);
    ensures a[get_global_id(0)] == 5; @*/
__kernel void continue_runs_the_step(__global int* a) {
  int s = 0;
  /*@ loop_invariant 0 <= i && i <= 10 && s == (i + 1) / 2; @*/
  for (int i = 0; i < 10; i++) {
    if (i % 2 == 1) continue;
    s++;
  }
  a[get_global_id(0)] = s;
}

/*@ context \pointer_length(a) == get_global_size(0);
    context Perm(&a[get_global_id(0)], write);
    ensures a[get_global_id(0)] == 4; @*/
__kernel void break_leaves_the_inner_loop(__global int* a) {
  int count = 0;
  /*@ loop_invariant 0 <= i && i <= 4 && count == i; @*/
  for (int i = 0; i < 4; i++) {
    /*@ loop_invariant 0 <= j && j <= 1; @*/
    for (int j = 0; ; j++) {
      if (j == 1) break;
    }
    count++;
  }
  a[get_global_id(0)] = count;
}

/*@ context \pointer_length(a) == get_global_size(0);
    context Perm(&a[get_global_id(0)], write);
    ensures a[get_global_id(0)] == 1; @*/
__kernel void do_runs_its_body_first(__global int* a) {
  int n = 0;
  /*@ loop_invariant n == 1; @*/
  do {
    n = n + 1;
  } while (n < 0);
  a[get_global_id(0)] = n;
}

// As C runs it the count is 3, not 4: the postcondition fails.
/*@ context \pointer_length(a) == get_global_size(0);
    context Perm(&a[get_global_id(0)], write);
    ensures a[get_global_id(0)] == 4; @*/
__kernel void break_does_not_count_its_iteration(__global int* a) {
  int i = 0;
  /*@ loop_invariant 0 <= i && i <= 3; @*/
  while (1) {
    if (i == 3) break;
    i++;
  }
  a[get_global_id(0)] = i;
}
