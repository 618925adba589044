//! The IVL corpus: every program in `tests/ivl/` gets the outcome its markers say, from every
//! backend.
//!
//! A check expected to fail carries an end-of-line marker `// fails: KIND` (KIND is `assert`,
//! `precondition` on the call, `postcondition` on the `ensures`, `invariant-entry` or
//! `invariant-preserved` on the invariant); every other check must verify. The expectations were
//! taken from real Boogie; the tests hold the built-in engine (z3 in-process), z3 and cvc5 as
//! processes, and Boogie itself, on the printed text, to them.

use lockstep_encoder::boogie;
use lockstep_encoder::ivl::{self, Declaration, Program};
use lockstep_encoder::smt::process::{Flavour, ProcessSolver};
use lockstep_encoder::smt::z3_native::Z3Solver;
use lockstep_encoder::smt::{Limits, Solver};
use lockstep_encoder::vcgen::{self, CheckKind};
use lockstep_encoder::verify::{self, Status};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

type Failures = BTreeSet<(CheckKind, u32)>;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ivl");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/ivl exists")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "bpl"))
        .collect();
    files.sort();
    files
}

fn expected(text: &str) -> Failures {
    text.lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let marker = line.split("// fails: ").nth(1)?.trim();
            let kind = match marker {
                "assert" => CheckKind::Assertion,
                "precondition" => CheckKind::Precondition,
                "postcondition" => CheckKind::Postcondition,
                "invariant-entry" => CheckKind::InvariantEntry,
                "invariant-preserved" => CheckKind::InvariantPreserved,
                other => panic!("unknown marker `{other}` on line {}", index + 1),
            };
            Some((kind, index as u32 + 1))
        })
        .collect()
}

fn load(path: &Path) -> (String, Program) {
    let text = std::fs::read_to_string(path).expect("readable");
    let program =
        ivl::parse::program(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    if let Err(errors) = ivl::check::program(&program) {
        panic!("{}: {:?}", path.display(), errors);
    }
    (text, program)
}

/// The failing checks of a program under a solver; an undecided check fails the test.
fn failures(program: &Program, solver: &mut dyn Solver, name: &str) -> Failures {
    let mut found = Failures::new();
    for declaration in &program.declarations {
        let Declaration::Procedure(procedure) = declaration else {
            continue;
        };
        if procedure.body.is_none() {
            continue;
        }
        let vc = vcgen::procedure(program, procedure);
        for outcome in
            verify::procedure(&vc, solver, &[]).unwrap_or_else(|error| panic!("{name}: {error}"))
        {
            match outcome.status {
                Status::Verified => {}
                Status::Failed { .. } => {
                    found.insert((outcome.check.kind, outcome.check.position.line));
                }
                Status::Undecided(reason) => {
                    panic!("{name}: undecided {:?}: {reason}", outcome.check)
                }
            }
        }
    }
    found
}

fn limits() -> Limits {
    Limits {
        timeout: std::time::Duration::from_secs(20),
        ..Limits::default()
    }
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(corpus().len() >= 40, "only {} programs", corpus().len());
    let failing = corpus()
        .iter()
        .filter(|path| !expected(&std::fs::read_to_string(path).unwrap()).is_empty())
        .count();
    assert!(failing >= 15, "only {failing} programs expect a failure");
}

fn check_backend(make: impl Fn() -> Box<dyn Solver>) {
    let mut mismatches = Vec::new();
    for path in corpus() {
        let (text, program) = load(&path);
        let mut solver = make();
        let found = failures(&program, solver.as_mut(), &path.display().to_string());
        let wanted = expected(&text);
        if found != wanted {
            mismatches.push(format!(
                "{}: found {found:?}, expected {wanted:?}",
                path.display()
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn the_built_in_engine_gives_the_expected_outcomes() {
    check_backend(|| Box::new(Z3Solver::new(limits())));
}

#[test]
fn a_z3_process_gives_the_same_outcomes() {
    check_backend(|| Box::new(ProcessSolver::new(Flavour::Z3, limits())));
}

#[test]
fn cvc5_gives_the_same_outcomes() {
    check_backend(|| Box::new(ProcessSolver::new(Flavour::Cvc5, limits())));
}

#[test]
fn outcomes_do_not_depend_on_the_solver_seed() {
    for seed in 1..=10 {
        check_backend(|| Box::new(Z3Solver::new(Limits { seed, ..limits() })));
    }
}

#[test]
fn printing_is_stable_and_reads_back_as_the_same_program() {
    for path in corpus() {
        let (_, program) = load(&path);
        let printed = ivl::print::program(&program);
        let reread = ivl::parse::program(&printed)
            .unwrap_or_else(|error| panic!("{}: {error}\n{printed}", path.display()));
        assert_eq!(ivl::print::program(&reread), printed, "{}", path.display());
    }
}

/// Real Boogie on the printed program agrees with the built-in engine on the same text.
#[test]
fn real_boogie_agrees_on_the_printed_programs() {
    let files = corpus();
    let chunks: Vec<Vec<PathBuf>> = files
        .chunks(files.len().div_ceil(2).max(1))
        .map(<[PathBuf]>::to_vec)
        .collect();
    let mismatches: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(move || {
                    let mut mismatches = Vec::new();
                    for path in chunk {
                        let (_, program) = load(&path);
                        let printed = ivl::print::program(&program);
                        let numbered = ivl::parse::program(&printed).expect("printed text parses");
                        let ours = failures(
                            &numbered,
                            &mut Z3Solver::new(limits()),
                            &path.display().to_string(),
                        );
                        let report =
                            boogie::run(&printed, 20).unwrap_or_else(|error| panic!("{error}"));
                        let theirs: Failures = report
                            .failures
                            .iter()
                            .map(|failure| (failure.kind, failure.line))
                            .collect();
                        if !report.problems.is_empty() || report.timeouts > 0 || ours != theirs {
                            mismatches.push(format!(
                                "{}: built-in {ours:?}, Boogie {theirs:?}, problems {:?}",
                                path.display(),
                                report.problems
                            ));
                        }
                    }
                    mismatches
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("no panic"))
            .collect()
    });
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
