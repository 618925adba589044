// rgba_swap.cl written one channel at a time, in place: `x = z` overwrites red before `z = x`
// reads it, so blue ends as it was and red is lost; the postcondition on blue fails. A run shows
// it on the first pixel whose red and blue differ.
//:: verdict failed
//:: run with --init img=iota
//:: run finds thread.post
/*@
  context \pointer_length(img) == n;
  context get_global_id(0) < n ==> Perm(&img[get_global_id(0)], write);
  ensures get_global_id(0) < n ==> img[get_global_id(0)].x == \old(img[get_global_id(0)].z);
  ensures get_global_id(0) < n ==> img[get_global_id(0)].z == \old(img[get_global_id(0)].x); //:: fails thread.post
@*/
__kernel void rgba_swap_in_place(__global int4* img, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    img[i].x = img[i].z;
    img[i].z = img[i].x;
  }
}
