//! Vacuity warnings (`warning::vacuous`): assumptions that no state satisfies make every later
//! obligation hold without proof; `verify` says so at each place where that can happen, and stays
//! silent where it does not. (That `verify` prints them, with `check`'s warnings: `cli.rs`.)

use lockstep_frontend::source::SourceFile;
use lockstep_frontend::verify::{self, Verdict};

/// The verdict of a one-kernel file and its `warning::vacuous` lines, each with its message.
fn verify_text(text: &str) -> (Verdict, Vec<(usize, String)>) {
    let file = SourceFile::new("vacuity.pvl", text);
    let verification = verify::file("vacuity.pvl", text.as_bytes().to_vec(), &verify::Settings::default());
    let diagnostics = &verification.checked.diagnostics;
    let results = verification.kernels.unwrap_or_else(|| panic!("rejected: {diagnostics:?}"));
    let results = results.expect("verifies");
    let [kernel] = results.as_slice() else { panic!("one kernel") };
    let mut found = Vec::new();
    for warning in &kernel.warnings {
        assert_eq!(warning.code.as_str(), "warning::vacuous");
        assert!(warning.help.as_deref().is_some_and(|help| help.contains("contradictory")), "{warning:?}");
        found.push((file.position(warning.primary.span.start).line, warning.message.clone()));
    }
    (kernel.verdict(), found)
}

/// Each position of the issue, with a contradiction and with a satisfiable twin: the warning is
/// at the contradictory clause's line, with the position's words; the twin verifies without one.
#[test]
fn each_position_warns_of_contradictory_assumptions_and_only_then() {
    // (position, kernel, contradiction, its satisfiable twin, line, first words)
    let cases: [(&str, &str, &str, &str, usize, &str); 5] = [
        (
            "thread precondition",
            "kernel k {
  global int[tcount] a;
  requires Perm(a[tid], write) ** a[tid] > 0 ** COND;
  ensures Perm(a[tid], write) ** a[tid] > 0;
  void main() { }
}",
            "a[tid] < 0",
            "a[tid] < 1000",
            3,
            "this thread precondition",
        ),
        (
            "barrier postcondition",
            "kernel k {
  global int[tcount] a;
  requires tcount == gsize;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write) ** a[tid] > 0;
  void main() {
    a[tid] := 1;
    barrier(global) {
      requires a[tid] == 1;
      ensures Perm(a[tid], write) ** a[tid] > 0 ** COND;
    }
  }
}",
            "a[tid] < 0",
            "a[tid] < 1000",
            10,
            "this barrier postcondition",
        ),
        (
            "loop invariant",
            "kernel k {
  global int[tcount] a;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write) ** a[tid] == 42;
  void main() {
    int i := 0;
    a[tid] := 42;
    invariant Perm(a[tid], write) ** a[tid] == 42;
    invariant 0 <= i && COND;
    while (i < 10) { i := i + 1; }
  }
}",
            "i < 0",
            "i <= 10",
            8,
            "this loop invariant",
        ),
        (
            "written LEVEL precondition",
            "kernel k(int n) {
  global int[tcount] a;
  LEVEL requires n > 0 ** COND;
  LEVEL ensures n > 0;
  requires n > 0;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  void main() { a[tid] := n; }
}",
            "n < 0",
            "n < 1000",
            3,
            "this LEVEL precondition",
        ),
        (
            "assume",
            "kernel k {
  global int[tcount] a;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write) ** a[tid] > 0;
  void main() {
    a[tid] := 1;
    assume a[tid] > 0 && COND;
  }
}",
            "a[tid] < 0",
            "a[tid] < 1000",
            7,
            "this `assume`",
        ),
    ];
    // A written contract's case stands for the group's and the kernel's.
    let levels = |text: &str| -> Vec<String> {
        if text.contains("LEVEL") {
            ["group", "kernel"].iter().map(|level| text.replace("LEVEL", level)).collect()
        } else {
            vec![text.to_string()]
        }
    };
    let cases = cases.into_iter().flat_map(|(position, template, contradiction, satisfiable, line, words)| {
        levels(position)
            .into_iter()
            .zip(levels(template))
            .zip(levels(words))
            .map(move |((position, template), words)| (position, template, contradiction, satisfiable, line, words))
    });
    for (position, template, contradiction, satisfiable, line, words) in cases {
        let position = position.as_str();
        let (verdict, found) = verify_text(&template.replace("COND", contradiction));
        // A contradictory barrier postcondition cannot follow from the barrier's preconditions
        // (`barrier.functional` fails), nor an unsatisfiable invariant hold on entry
        // (`loop.invariant.entry`): the warning says why the rest verified. Every other
        // contradiction verifies, silently but for the warning.
        let fails = ["barrier postcondition", "loop invariant"].contains(&position);
        let expected = if fails { Verdict::Failed } else { Verdict::Verified };
        assert_eq!(verdict, expected, "{position}");
        assert_eq!(found.len(), 1, "{position}: {found:?}");
        assert_eq!(found[0].0, line, "{position}: {found:?}");
        assert!(found[0].1.starts_with(&words) && found[0].1.contains("vacuously"), "{position}: {found:?}");
        assert_eq!(
            verify_text(&template.replace("COND", satisfiable)),
            (Verdict::Verified, Vec::new()),
            "{position}: the twin"
        );
    }
}
