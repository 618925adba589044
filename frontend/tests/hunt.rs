//! A fixed slice of the soundness hunt (`lockstep_frontend::hunt`): random kernels and one-token
//! mutants of a verified example, each verified and run over a sweep of launches and schedules.
//! `verify` must never call a kernel verified in which a run finds a bug. The slice is fixed by its
//! seeds, so a failure here reproduces with `cargo run --release --bin lockstep-hunt -- --print
//! --seed S --generated 1`. Long hunts run from that command (see the README).

use lockstep_frontend::hunt::{self, generate, mutate, Judgement, Outcome, Settings};
use std::path::Path;

/// What a slice came to.
#[derive(Debug, Default)]
struct Tally {
    verified: usize,
    failed: usize,
    refused: usize,
    run_found_bug: usize,
    disagreements: Vec<String>,
}

fn judge_all(cases: impl IntoIterator<Item = (String, String)>) -> Tally {
    let settings = Settings::default();
    let mut tally = Tally::default();
    for (name, text) in cases {
        match hunt::judge(&text, &settings) {
            Judgement::Refused => tally.refused += 1,
            Judgement::Agree { verdict, run_found_bug } => {
                tally.verified += usize::from(verdict == Outcome::Verified);
                tally.failed += usize::from(verdict == Outcome::Failed);
                tally.run_found_bug += usize::from(run_found_bug);
            }
            Judgement::Disagree(what) => tally.disagreements.push(format!("{name}: {what}\n{text}")),
        }
    }
    tally
}

#[test]
fn random_kernels_that_verify_run_without_a_bug() {
    let tally = judge_all((0..24).map(|seed| (format!("seed {seed}"), generate::kernel(seed))));
    assert!(tally.disagreements.is_empty(), "{}", tally.disagreements.join("\n\n"));
    // The slice is worth running only when it holds both verdicts and kernels whose runs fail:
    // a generator that drifted to all-failed (or all-verified) kernels would test nothing.
    assert_eq!(tally.refused, 0, "{tally:?}");
    assert!(tally.verified >= 3 && tally.failed >= 3 && tally.run_found_bug >= 3, "{tally:?}");
}

/// The same random kernels with their annotations stripped: `verify` infers their permissions,
/// and must never call one verified in which a run finds a bug.
#[test]
fn unannotated_random_kernels_that_verify_run_without_a_bug() {
    let tally = judge_all(
        (0..24).map(|seed| (format!("seed {seed} unannotated"), generate::unannotated(&generate::kernel(seed)))),
    );
    assert!(tally.disagreements.is_empty(), "{}", tally.disagreements.join("\n\n"));
    assert_eq!(tally.refused, 0, "{tally:?}");
    assert!(tally.verified >= 3 && tally.failed >= 3 && tally.run_found_bug >= 3, "{tally:?}");
}

#[test]
fn one_token_mutants_of_a_verified_example_that_verify_run_without_a_bug() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/basic/shift.pvl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mutants = mutate::mutants(&text);
    // Every third mutant: the slice stays short and still reaches every line of the kernel.
    let tally = judge_all(
        mutants.into_iter().enumerate().step_by(3).map(|(index, mutant)| (format!("mutant {index}"), mutant)),
    );
    assert!(tally.disagreements.is_empty(), "{}", tally.disagreements.join("\n\n"));
    assert!(tally.verified >= 3 && tally.failed >= 3 && tally.run_found_bug >= 3, "{tally:?}");
}

#[test]
fn a_racy_kernel_is_judged_failed_with_a_bug_and_its_fix_verified_without_one() {
    let racy = "kernel k {\n  global int[tcount] a;\n  requires Perm(a[tid], write);\n  ensures Perm(a[tid], write);\n  void main() { a[0] := tid; }\n}\n";
    let fixed = racy.replace("a[0]", "a[tid]");
    let settings = Settings::default();
    assert_eq!(hunt::judge(racy, &settings), Judgement::Agree { verdict: Outcome::Failed, run_found_bug: true });
    assert_eq!(hunt::judge(&fixed, &settings), Judgement::Agree { verdict: Outcome::Verified, run_found_bug: false });
    assert_eq!(hunt::judge("kernel {", &settings), Judgement::Refused);
}
