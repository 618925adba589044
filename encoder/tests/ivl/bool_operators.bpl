// Boolean !, &&, ||, ==>, <==> with parentheses; valid formulas verify.
procedure Main(a: bool, b: bool, c: bool)
{
  var t: bool;
  assert !(a && b) <==> (!a || !b);
  assert (a ==> b) <==> (!a || b);
  assert (a && (b || c)) <==> ((a && b) || (a && c));
  assert a ==> b ==> a;
  assert (a <==> b) == (a == b);
  assert true && !false;
  t := a || !a;
  assert t;
  assert a != !a;
}
