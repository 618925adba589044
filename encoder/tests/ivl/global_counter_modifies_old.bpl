// A counter kept in a global variable: modifies clauses and old() in postconditions.
var count: int;

procedure Incr()
  modifies count;
  ensures count == old(count) + 1;
{
  count := count + 1;
}

procedure Reset()
  modifies count;
  ensures count == 0;
{
  count := 0;
}

procedure Main()
  modifies count;
  ensures count == 3;
{
  call Reset();
  call Incr();
  call Incr();
  assert count == 2;
  call Incr();
}

procedure Twice()
  modifies count;
  ensures count == old(count) + 2;
  ensures count > old(count) + 2; // fails: postcondition
{
  call Incr();
  call Incr();
}
