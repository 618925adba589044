// Benign races: threads writing one value to one cell. They race by default; with
// `--benign-races` (GPUVerify's default) a write that every thread of a group, or every group,
// makes alike is made by the first one only, and the kernel verifies.

// Every thread clears the flag.
__kernel void clear_flag(__global int* flag) {
  flag[0] = 0;
}

// Every group writes the same row: the same value to each cell.
__kernel void same_row_each_group(__global int* row) {
  row[get_local_id(0)] = get_local_id(0);
}

// A value read from a global array the kernel never writes is the same in every thread.
__kernel void copy_first(__global const int* in, __local int* first, __global int* out) {
  if (in[0] > 0) {
    first[0] = in[0];
  }
  out[get_global_id(0)] = in[get_global_id(0)];
}

// Different values: a race either way.
__kernel void own_id(__global int* last) {
  last[0] = get_local_id(0);
}

// Reading back the shared cell meets the other threads' writes: a race either way.
__kernel void read_back(__global int* flag, __global int* out) {
  flag[0] = 1;
  out[get_global_id(0)] = flag[0];
}

// Local memory is never initialised, so two threads may read two values from one cell of it
// (GPUVerify's adversarial reading): a race either way.
__kernel void copy_uninitialised(__local int* scratch, __local int* first) {
  first[0] = scratch[0];
}

// Two values in one interval: the threads may interleave them, so a race either way.
__kernel void two_values(__global int* flag) {
  flag[0] = 1;
  flag[0] = 2;
}

// A value that changes each time round: a race either way.
__kernel void loop_values(__global int* flag) {
  for (int i = 0; i < 4; i++) {
    flag[0] = i;
  }
}

// The first thread reads the cell that the others clear in the same interval: a race either way.
__kernel void first_reads(__global int* flag, __global int* out) {
  int seen = 0;
  if (get_local_id(0) == 0) {
    seen = flag[0];
  }
  flag[0] = 0;
  out[get_global_id(0)] = seen;
}

// Read in one interval, cleared in the next: benign with a barrier that fences the group's local
// memory. (In global memory the other groups' reads would race with the clearing.)
__kernel void clear_after_reading(__local int* flag, __global int* out) {
  out[get_global_id(0)] = flag[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  flag[0] = 0;
}

// The barrier fences global memory only, so the reads and the writes of `flag` are not ordered.
__kernel void clear_after_reading_unfenced(__local int* flag, __global int* out) {
  out[get_global_id(0)] = flag[0];
  barrier(CLK_GLOBAL_MEM_FENCE);
  flag[0] = 0;
}

// The first group reads the row that every group then clears: the barrier orders the threads of
// one group only, so another group's clearing races with the reading (rewritten so that only the
// first group clears it, the race would not show).
__kernel void first_group_reads_row(__global int* row, __global int* out) {
  if (get_group_id(0) == 0) {
    out[get_local_id(0)] = row[get_local_id(0)];
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  row[get_local_id(0)] = 0;
}
