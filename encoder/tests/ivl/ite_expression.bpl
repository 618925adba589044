// Conditional expressions (if c then a else b) in bodies, ensures and functions.
function Max(a: int, b: int): int { (if a >= b then a else b) }

procedure Main(x: int, y: int) returns (m: int)
  ensures m >= x && m >= y;
  ensures m == x || m == y;
  ensures m == (if x < y then y else x);
{
  var s: int;
  m := (if x > y then x else y);
  s := (if x < 0 then 0 - x else x);
  assert s >= 0 && (s == x || s == -x);
  assert Max(x, y) == m;
  assert Max(3, 9) == 9;
  assert (if x == y then 1 else 2) == 1; // fails: assert
}
