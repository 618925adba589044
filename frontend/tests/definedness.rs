//! Well-definedness everywhere (issue 23): every partial operator (an index, a division, a call
//! with a precondition) at every position a contract can hold it fails at its own obligation and
//! line, and the same clause guarded verifies. Each case is one small kernel: kernel, group,
//! thread, barrier and loop contracts, the location of a permission, code, `assert`, under `\old`
//! and quantifiers, and pure functions' contracts, measures and bodies.

use lockstep_frontend::verify::{self, Verdict};

/// A kernel with a clause of the kernel or group contract, `{}` its fact.
const LEVEL: &str = "pure int half(int n) requires n > 0; = n / 2;
kernel k(int n) {
  global int[tcount] a;
  CLAUSE
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  void main() { a[tid] := 1; }
}
";

/// A one-thread kernel (so that a guarded index names the thread's own cell, which it holds)
/// with `{}` somewhere in the thread's contract, code, loop or barrier.
const THREAD: &str = "pure int half(int n) requires n > 0; = n / 2;
kernel k(int n) {
  global int[tcount] a;
  global int[tcount] b;
  requires tcount == 1;
  requires Perm(a[tid], write);
  BODY
}
";

/// A kernel with a second function whose contract or body holds `{}` (over its parameter `n`).
const FUNCTION: &str = "pure int half(int n) requires n > 0; = n / 2;
FUNCTION
kernel k(int n) {
  global int[tcount] a;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  void main() { a[tid] := 1; }
}
";

/// Every position an expression can take, as a kernel with `{}` where the fact goes, and whether
/// the position may read memory (pure functions may not).
fn positions() -> Vec<(&'static str, String, bool)> {
    let level = |clause: &str| LEVEL.replace("CLAUSE", clause);
    let thread = |body: &str| THREAD.replace("BODY", body);
    let function = |declaration: &str| FUNCTION.replace("FUNCTION", declaration);
    let plain = "ensures Perm(a[tid], write);\n  void main() { a[tid] := 1; }";
    vec![
        ("kernel requires", level("kernel requires {};"), true),
        ("kernel ensures", level("kernel ensures {};"), true),
        ("group requires", level("group requires {};"), true),
        ("group ensures", level("group ensures {};"), true),
        ("thread ensures under \\old", level("ensures \\old({});"), true),
        ("thread requires", thread(&format!("requires {{}};\n  {plain}")), true),
        (
            "the location of a permission",
            thread(&format!("requires Perm(b[({{}}) ? tid : tid], write);\n  {plain}")),
            true,
        ),
        ("thread ensures", thread("ensures Perm(a[tid], write);\n  ensures {};\n  void main() { a[tid] := 1; }"), true),
        (
            "thread ensures under a quantifier",
            thread("ensures Perm(a[tid], write);\n  ensures (\\forall int j; 0 <= j && j < 2; {});\n  void main() { a[tid] := 1; }"),
            true,
        ),
        ("code condition", thread("ensures Perm(a[tid], write);\n  void main() {\n    if ({}) { a[tid] := 1; }\n  }"), true),
        ("assert", thread("ensures Perm(a[tid], write);\n  void main() {\n    assert {};\n  }"), true),
        (
            "loop invariant",
            thread(
                "ensures Perm(a[tid], write);
  void main() {
    int i := 0;
    loop_invariant Perm(a[tid], write) ** (0 <= i && i <= 1);
    loop_invariant {};
    while (i < 1) { i := i + 1; }
  }",
            ),
            true,
        ),
        (
            "barrier requires",
            thread(
                "ensures Perm(a[tid], write);
  void main() {
    barrier(global) {
      requires Perm(a[tid], write);
      requires {};
      ensures Perm(a[tid], write);
    }
  }",
            ),
            true,
        ),
        (
            "barrier ensures",
            thread(
                "ensures Perm(a[tid], write);
  void main() {
    barrier(global) {
      requires Perm(a[tid], write);
      ensures Perm(a[tid], write);
      ensures {};
    }
  }",
            ),
            true,
        ),
        ("function requires", function("pure int g(int n)\n  requires {}; = 0;"), false),
        ("function ensures", function("pure int g(int n)\n  ensures {}; = 0;"), false),
        ("function decreases", function("pure int g(int n)\n  decreases ({}) ? 1 : 0; = 0;"), false),
        ("function body", function("pure bool g(int n)\n  = {};"), false),
    ]
}

/// (operator, obligation, the fact, the fact guarded). Each fact is a tautology where defined, so
/// that only its definedness can fail.
const OPERATORS: &[(&str, &str, &str, &str)] = &[
    ("index", "access.bounds", "a[n] == a[n]", "0 <= n && n < tcount ==> a[n] == a[n]"),
    ("division", "division.by.zero", "n / n == n / n", "n != 0 ==> n / n == n / n"),
    ("call", "call.pre", "half(n) == half(n)", "n > 0 ==> half(n) == half(n)"),
];

/// The failed obligations, as `id:line`.
fn failures(source: &str) -> Vec<String> {
    let verification = verify::file("case.pvl", source.as_bytes().to_vec(), &verify::Settings::default());
    let diagnostics = &verification.checked.diagnostics;
    let results = verification.kernels.unwrap_or_else(|| panic!("well formed:\n{source}\n{diagnostics:?}"));
    let results = results.expect("verifies");
    results
        .iter()
        .flat_map(|kernel| &kernel.results)
        .filter(|result| result.verdict != Verdict::Verified)
        .map(|result| {
            let line = verification.checked.file.position(result.obligation.span.start).line;
            format!("{}:{line}", result.obligation.id.as_str())
        })
        .collect()
}

#[test]
fn every_partial_operator_at_every_position_fails_at_its_obligation_and_its_guarded_twin_verifies() {
    let mut wrong = Vec::new();
    for (position, template, reads_memory) in positions() {
        let line = template.lines().position(|line| line.contains("{}")).expect("a place for the fact") + 1;
        for (operator, obligation, fact, guarded) in OPERATORS {
            if *operator == "index" && !reads_memory {
                continue;
            }
            let failing = failures(&template.replace("{}", fact));
            let expected = format!("{obligation}:{line}");
            if !failing.contains(&expected) {
                wrong.push(format!("{operator} in {position}: expected {expected}, got {failing:?}"));
            }
            let twin = failures(&template.replace("{}", guarded));
            if !twin.is_empty() {
                wrong.push(format!("{operator} in {position}, guarded: expected no failure, got {twin:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The kernels of issue 23, which verified before: each fails exactly where its contract is
/// undefined, and its guarded twin verifies.
#[test]
fn the_issues_kernels_fail_where_their_contracts_are_undefined_and_their_twins_verify() {
    let kpre_oob = "kernel kpre_oob {
  global int[tcount] a;
  global int[tcount] b;
  kernel requires (\\forall int i; 0 <= i && i <= tcount; b[i] >= 0);
  requires Perm(a[tid], write) ** Perm(b[tid], read) ** b[tid] >= 0;
  ensures Perm(a[tid], write) ** a[tid] >= 0;
  void main() { a[tid] := b[tid]; }
}
";
    let kernel_division = "kernel kdiv(int n) {
  global int[tcount] a;
  kernel ensures (\\forall int i; 0 <= i && i < tcount; a[i] == i / n * n + i % n);
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write) ** a[tid] == tid;
  void main() { a[tid] := tid; }
}
";
    let kernel_call = "pure int half(int n) requires n > 0; = n / 2;
kernel kcall {
  global int[tcount] a;
  kernel ensures half(tcount - 1) >= 0;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  void main() { a[tid] := tid; }
}
";
    let old_past_end = "pure int min(int x, int y) = x < y ? x : y;
kernel old_past_end {
  global int[tcount] a;
  global int[tcount] b;
  requires Perm(a[tid], read) ** (tid + 1 < tcount -> Perm(a[tid + 1], read));
  requires Perm(b[tid], write);
  ensures Perm(b[tid], write);
  ensures b[tid] <= \\old(a[tid]);
  ensures b[tid] >= min(\\old(a[tid]), \\old(a[tid + 1]));
  void main() {
    if (tid + 1 < tcount) { b[tid] := min(a[tid], a[tid + 1]); } else { b[tid] := a[tid]; }
  }
}
";
    let cases = [
        (kpre_oob, "access.bounds:4", ("i <= tcount; b[i]", "i < tcount; b[i]")),
        (kernel_division, "division.by.zero:3", ("a[i] == i / n", "n != 0 ==> a[i] == i / n")),
        (kernel_call, "call.pre:4", ("half(tcount - 1) >= 0", "tcount > 1 ==> half(tcount - 1) >= 0")),
        (old_past_end, "access.bounds:9", ("ensures b[tid] >= min", "ensures tid + 1 < tcount ==> b[tid] >= min")),
    ];
    for (source, expected, (wrong, guarded)) in cases {
        assert_eq!(failures(source), [expected], "{source}");
        let twin = source.replacen(wrong, guarded, 1);
        assert_ne!(twin, source);
        assert_eq!(failures(&twin), Vec::<String>::new(), "{twin}");
    }
}

/// Bounds over a range are checked at its two ends (E1): that is exact, so every range that
/// reaches one cell past either end of the array fails, with a lower or upper bound written either
/// way round, strict or not, with a positive or negative coefficient, under `\forall` and `\sum`;
/// and the same ranges kept inside the array, or empty, verify.
#[test]
fn a_range_one_cell_past_either_end_fails_and_inside_verifies() {
    let kernel = |fact: &str| {
        format!(
            "kernel k(int n) {{
  global int[tcount] a;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  ensures {fact};
  void main() {{ a[tid] := 0; }}
}}
"
        )
    };
    // (past an end, inside): each pair differs in one bound, one index or one coefficient.
    let cases = [
        (
            "(\\forall int j; 0 <= j <= tcount; \\old(a[j]) == \\old(a[j]))",
            "(\\forall int j; 0 <= j < tcount; \\old(a[j]) == \\old(a[j]))",
        ),
        (
            "(\\forall int j; j > 0 && j <= tcount; \\old(a[j]) == \\old(a[j]))",
            "(\\forall int j; j > 0 && j <= tcount; \\old(a[j - 1]) == \\old(a[j - 1]))",
        ),
        (
            "(\\forall int j; tcount > j && j >= 0; \\old(a[tcount - j]) == \\old(a[tcount - j]))",
            "(\\forall int j; tcount > j && j >= 0; \\old(a[tcount - 1 - j]) == \\old(a[tcount - 1 - j]))",
        ),
        (
            "(\\forall int j; 0 <= j < tcount / 2 + 1; \\old(a[2 * j]) == \\old(a[2 * j]))",
            "(\\forall int j; 0 <= j < (tcount + 1) / 2; \\old(a[2 * j]) == \\old(a[2 * j]))",
        ),
        (
            "\\sum(int j; -1 <= j < tcount - 1; \\old(a[j])) == \\sum(int j; -1 <= j < tcount - 1; \\old(a[j]))",
            "\\sum(int j; 0 <= j < tcount; \\old(a[j])) == \\sum(int j; 0 <= j < tcount; \\old(a[j]))",
        ),
        (
            "(\\forall int j; 0 <= j < n; \\old(a[j + tcount]) == 0)",
            "(\\forall int j; 5 <= j < 5; \\old(a[j + tcount]) == 0)",
        ),
    ];
    let mut wrong = Vec::new();
    for (past, inside) in cases {
        let failing = failures(&kernel(past));
        if failing != ["access.bounds:5"] {
            wrong.push(format!("{past}: expected access.bounds:5, got {failing:?}"));
        }
        let failing = failures(&kernel(inside));
        if !failing.is_empty() {
            wrong.push(format!("{inside}: expected no failure, got {failing:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
