// rgba_swap.cl whose contract gives each work item the red and blue channels of its pixel only:
// a permission on a component is not one on the others, and `img[i] = img[i].zyxw` writes all
// four (green and alpha with the values they had: still writes), reading green and alpha without
// permission first. A run meets the read without permission too.
//:: verdict failed
//:: run finds access.read
/*@
  context \pointer_length(img) == n;
  context get_global_id(0) < n ==> Perm(&img[get_global_id(0)].x, write) ** Perm(&img[get_global_id(0)].z, write);
@*/
__kernel void rgba_swap_two_channels(__global int4* img, int n) {
  size_t i = get_global_id(0);
  if (i < n) {
    img[i] = img[i].zyxw; //:: fails access.read, access.write
  }
}
