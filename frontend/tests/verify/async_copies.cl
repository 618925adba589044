// Asynchronous copies (`async_work_group_copy`, `wait_group_events`): one unknown thread of the
// group moves the cells, where the copy starts and again at its wait.
#define N 8

// Verified: the threads read the copy after its wait and a barrier.
kernel void waited(global float* p, global float* q) {
    local float mine[N];
    event_t handle = async_work_group_copy(mine, p + N*get_group_id(0), N, 0);
    wait_group_events(1, &handle);
    barrier(CLK_LOCAL_MEM_FENCE);
    q[get_global_id(0)] = 2*mine[get_local_id(0)];
}

// Fails: no barrier after the wait, so another thread may still be moving `mine[lid]`.
kernel void unsynchronized(global float* p, global float* q) {
    local float mine[N];
    event_t handle = async_work_group_copy(mine, p + N*get_group_id(0), N, 0);
    wait_group_events(1, &handle);
    q[get_global_id(0)] = 2*mine[get_local_id(0)];
}

// Fails: the barrier comes before the wait, while the copy may still run.
kernel void barrier_before_wait(global float* p, global float* q) {
    local float mine[N];
    event_t handle = async_work_group_copy(mine, p + N*get_group_id(0), N, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    q[get_global_id(0)] = mine[get_local_id(0)];
    wait_group_events(1, &handle);
}

// Fails: the threads of a group start the copy from different places.
kernel void divergent(global float* p) {
    local float mine[N];
    event_t handle = async_work_group_copy(mine, p + get_local_id(0), N, 0);
    wait_group_events(1, &handle);
}

// Fails: every group copies into the same cells of `p`.
kernel void between_groups(global float* p) {
    local float mine[N];
    mine[get_local_id(0)] = get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t handle = async_work_group_copy(p, mine, N, 0);
    wait_group_events(1, &handle);
}

// Verified: the wait names both copies, through an array of events and a joined one.
kernel void joined(global float* p, global float* q, global float* r) {
    local float a[N];
    local float b[N];
    event_t handles[2];
    handles[0] = async_work_group_copy(a, p + N*get_group_id(0), N, 0);
    handles[1] = async_work_group_copy(b, q + N*get_group_id(0), N, handles[0]);
    wait_group_events(1, handles);
    barrier(CLK_LOCAL_MEM_FENCE);
    r[get_global_id(0)] = a[get_local_id(0)] + b[get_local_id(0)];
}

// Fails: the wait names only the first of two separate copies.
kernel void one_of_two(global float* p, global float* q, global float* r) {
    local float a[N];
    local float b[N];
    event_t handles[2];
    handles[0] = async_work_group_copy(a, p + N*get_group_id(0), N, 0);
    handles[1] = async_work_group_copy(b, q + N*get_group_id(0), N, 0);
    wait_group_events(1, handles);
    barrier(CLK_LOCAL_MEM_FENCE);
    r[get_global_id(0)] = a[get_local_id(0)] + b[get_local_id(0)];
}
