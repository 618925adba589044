// Functions with bodies are unfolded at call sites, including nested applications.
function Inc(x: int): int { x + 1 }
function Sq(x: int): int { x * x }
function IsPos(x: int): bool { x > 0 }
function Half(x: real): real { x / 2.0 }

procedure Main(a: int)
  requires IsPos(a);
{
  assert a >= 1;
  assert Inc(Inc(a)) == a + 2;
  assert Sq(3) == 9;
  assert Sq(Inc(a)) == a * a + 2 * a + 1;
  assert IsPos(Inc(a));
  assert Half(3.0) == 1.5;
  assert Half(real(a)) > 0.0;
  assert Sq(a) > a; // fails: assert
}
