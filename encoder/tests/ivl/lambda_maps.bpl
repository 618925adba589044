// Maps defined by lambdas: read by substitution, with no quantified assumption, in the state
// where the lambda was evaluated. // cvc5 refuses: lambda
procedure Lambdas(n: int)
{
  var m: [int]int;
  var s: [int]int;
  m := (lambda i: int :: i + n);
  assert m[3] == 3 + n;
  s := (lambda k: int :: (if k < n then m[k] else 0));
  m := m[0 := 7];
  assert s[n - 1] == 2 * n - 1;
  assert s[n] == 0;
  assert m[0] == 7;
  assert s[0] == 7; // fails: assert
}
