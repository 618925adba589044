// Pointers into arrays of vectors: an index through one counts vectors.

kernel void own(global float4* p, global float4* q) {
    global float4 *r;
    if (get_group_id(0) == 1) { r = p; } else { r = q; }
    r[get_global_id(0)] = 2*r[get_global_id(0)];
    r[get_global_id(0)].y = 1.0f;
}
kernel void racy(global float4* p) {
    global float4 *r = p + 1;
    r[get_global_id(0)].x = 1.0f;
    p[get_global_id(0)].x = 2.0f;
}
