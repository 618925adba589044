// else-if chain computing the sign of an integer.
procedure Sign(x: int) returns (s: int)
  ensures s == -1 || s == 0 || s == 1;
  ensures x > 0 ==> s == 1;
  ensures x < 0 ==> s == -1;
  ensures s == 0 <==> x == 0;
{
  if (x > 0) {
    s := 1;
  } else if (x == 0) {
    s := 0;
  } else {
    s := -1;
  }
}

procedure Classify(x: int) returns (s: int)
  ensures s > 0; // fails: postcondition
{
  if (x > 10) {
    s := 2;
  } else if (x > 0) {
    s := 1;
  } else {
    s := 0;
  }
}
