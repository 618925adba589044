// Recursive factorial: concrete values unfold; a general property needs induction and fails.
function fact(n: int): int { (if n <= 0 then 1 else n * fact(n - 1)) }

procedure Concrete()
{
  assert fact(0) == 1;
  assert fact(3) == 6;
  assert fact(5) == 120;
}

procedure OneStep(n: int)
  requires n > 0;
{
  assert fact(n) == n * fact(n - 1);
  assert fact(n + 1) == (n + 1) * n * fact(n - 1);
}

procedure NeedsInduction(n: int)
{
  assert fact(n) >= 1; // undecided: assert
}
