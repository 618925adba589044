// old(e) inside a procedure body refers to the value of globals on entry.
var g: int;
var h: int;

procedure Main(x: int)
  requires x > 0;
  modifies g, h;
  ensures g == old(g) + x;
  ensures h == old(h); // fails: postcondition
{
  g := g + x;
  assert g - old(g) == x;
  assert old(g + h) == old(g) + old(h);
  h := h + 1;
  assert old(h) < h;
  assert g > x; // fails: assert
}
