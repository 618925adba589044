//! Well-definedness everywhere (issue 23): every partial operator (an index, a division, a call
//! with a precondition) at every position a contract can hold it fails at its own obligation and
//! line, and the same clause guarded verifies. Each case is one small kernel.

use lockstep_encoder::run::Backend;
use lockstep_encoder::smt::Limits;
use lockstep_frontend::check_bytes;
use lockstep_frontend::verify::{self, Verdict};

/// The clause templates by position; `{}` is the fact.
const POSITIONS: &[(&str, &str)] = &[
    ("kernel requires", "  kernel requires {};"),
    ("kernel ensures", "  kernel ensures {};"),
    ("group requires", "  group requires {};"),
    ("group ensures", "  group ensures {};"),
    ("thread ensures under \\old", "  ensures \\old({});"),
];

/// (operator, obligation, the fact, the fact guarded). Each fact is a tautology where defined, so
/// that only its definedness can fail.
const OPERATORS: &[(&str, &str, &str, &str)] = &[
    ("index", "access.bounds", "a[n] == a[n]", "0 <= n && n < tcount ==> a[n] == a[n]"),
    ("division", "division.by.zero", "n / n == n / n", "n != 0 ==> n / n == n / n"),
    ("call", "call.pre", "half(n) == half(n)", "n > 0 ==> half(n) == half(n)"),
];

/// The line the clause is on in [`kernel`]'s text.
const CLAUSE_LINE: usize = 4;

fn kernel(clause: &str) -> String {
    format!(
        "pure int half(int n) requires n > 0; = n / 2;
kernel k(int n) {{
  global int[tcount] a;
{clause}
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  void main() {{ a[tid] := 1; }}
}}
"
    )
}

/// The failed obligations, as `id:line`.
fn failures(source: &str) -> Vec<String> {
    let checked = check_bytes("case.pvl", source.as_bytes().to_vec());
    let program = checked.program.unwrap_or_else(|| panic!("well formed:\n{source}\n{:?}", checked.diagnostics));
    let results = verify::program(&program, Backend::Z3, &Limits::default(), &Default::default()).expect("verifies");
    results
        .iter()
        .flat_map(|kernel| &kernel.results)
        .filter(|result| result.verdict != Verdict::Verified)
        .map(|result| {
            let line = checked.file.position(result.obligation.span.start).line;
            format!("{}:{line}", result.obligation.id.as_str())
        })
        .collect()
}

#[test]
fn every_partial_operator_at_every_position_fails_at_its_obligation_and_its_guarded_twin_verifies() {
    let mut wrong = Vec::new();
    for (position, template) in POSITIONS {
        for (operator, obligation, fact, guarded) in OPERATORS {
            let failing = failures(&kernel(&template.replace("{}", fact)));
            let expected = format!("{obligation}:{CLAUSE_LINE}");
            if !failing.contains(&expected) {
                wrong.push(format!("{operator} in {position}: expected {expected}, got {failing:?}"));
            }
            let twin = failures(&kernel(&template.replace("{}", guarded)));
            if !twin.is_empty() {
                wrong.push(format!("{operator} in {position}, guarded: expected no failure, got {twin:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
