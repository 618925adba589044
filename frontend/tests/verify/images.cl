// OpenCL's images: a write touches its pixel's cell, a read gives any value and touches none.

// Verified: each thread writes its own pixel, with a value read from another image.
__kernel void copy(__write_only image2d_t dest, __read_only image2d_t src) {
    const sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    int2 pixel = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dest, pixel, read_imagef(src, sampler, pixel));
}

// Fails: the threads of a row write one pixel.
__kernel void one_column(__write_only image2d_t dest, __read_only image2d_t src) {
    const sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
    write_imagef(dest, (int2)(0, get_global_id(1)), read_imagef(src, sampler, (int2)(get_global_id(0), get_global_id(1))));
}

// Fails: the color reads a cell another thread writes.
__kernel void racy_color(__write_only image2d_t dest, __global float* a) {
    int2 pixel = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dest, pixel, (float4)(a[0], 0.0f, 0.0f, 1.0f));
    a[get_global_id(0) + get_global_id(1) * get_global_size(0)] = 1.0f;
}

// Verified: a read alone gives any value, of which nothing is claimed.
__kernel void texels(__read_only image2d_t src, sampler_t sampler, __global int* out) {
    int4 texel = read_imagei(src, sampler, (int2)(get_global_id(0), 0));
    out[get_global_id(0) + get_global_id(1) * get_global_size(0)] = texel.x;
}
