// Invalid boolean laws fail: converse of an implication, and right-associativity of ==>.
procedure Main(a: bool, b: bool, c: bool)
  requires a ==> b;
{
  assert !b ==> !a;
  assert b ==> a; // fails: assert
  assert (a ==> b) ==> c; // fails: assert
  assert c ==> a; // fails: assert
  assert (a || b) && (!a || b) ==> b;
}
