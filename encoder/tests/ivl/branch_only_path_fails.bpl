// A failing assert in a branch that is only reached when x is negative.
procedure Main(x: int) returns (r: int)
{
  r := x;
  if (x < 0) {
    r := r * r;
    assert r > x;
    assert r > 1; // fails: assert
  } else {
    r := r + 1;
    assert r > 0;
  }
  assert r >= 0;
}
