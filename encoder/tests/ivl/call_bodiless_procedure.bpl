// Calls to procedures without a body: only their specification is known.
procedure Choose(lo: int, hi: int) returns (r: int);
  requires lo <= hi;
  ensures lo <= r && r <= hi;

procedure Log(x: int);

procedure Main() returns (v: int)
  ensures 0 <= v && v <= 20;
{
  var a: int;
  call a := Choose(0, 10);
  call Log(a);
  assert a >= 0;
  call v := Choose(a, a + 10);
  assert v >= a;
  assert v == a; // fails: assert
}
