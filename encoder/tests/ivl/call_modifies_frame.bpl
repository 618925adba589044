// A call may change only the globals in the callee's modifies clause.
var a: int;
var b: int;

procedure BumpA()
  modifies a;
  ensures a > old(a);
{
  a := a + 5;
}

procedure Main()
  modifies a, b;
{
  a := 0;
  b := 7;
  call BumpA();
  assert b == 7;
  assert a > 0;
  assert a == 5; // fails: assert
  b := a;
  assert b > 0;
}
