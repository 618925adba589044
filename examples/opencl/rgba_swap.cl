// Swaps the red and blue channels of an image of int4 pixels (x red, y green, z blue, w alpha),
// as image kernels write it, with a swizzle: work item i owns pixel i, all four components of it
// (a permission on a vector is one on each of its components). An assignment to a vector reads
// every component before it writes one, so `img[i] = p.zyxw` swaps. The proof shows race freedom
// and that each pixel ends with its channels swapped.
//:: verdict verified
/*@
  context \pointer_length(img) == n;
  context get_global_id(0) < n ==> Perm(&img[get_global_id(0)], write);
  ensures get_global_id(0) < n ==> img[get_global_id(0)].x == \old(img[get_global_id(0)].z);
  ensures get_global_id(0) < n ==> img[get_global_id(0)].z == \old(img[get_global_id(0)].x);
  ensures get_global_id(0) < n ==> img[get_global_id(0)].y == \old(img[get_global_id(0)].y);
  ensures get_global_id(0) < n ==> img[get_global_id(0)].w == \old(img[get_global_id(0)].w);
@*/
__kernel void rgba_swap(__global int4* img, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    img[i] = img[i].zyxw;
  }
}
