//! The IVL corpus: every program in `tests/ivl/` gets the outcome its markers say, from every
//! backend.
//!
//! A check expected to fail carries an end-of-line marker `// fails: KIND` (KIND is `assert`,
//! `precondition` on the call, `postcondition` on the `ensures`, `invariant-entry` or
//! `invariant-preserved` on the invariant, comma-separated where one line has two); every other
//! check must verify. A check that does not
//! follow, but whose counterexample the solvers cannot build (it needs a model of a quantified
//! axiom), is marked `// undecided: KIND`: lockstep must call it undecided, and Boogie, which
//! reports an `unknown` as an error, must report an error there. The expectations were taken from
//! real Boogie; the tests hold the built-in engine (z3 in-process), z3 as a process, cvc5, and
//! Boogie itself on the printed text, to them.
//!
//! cvc5 (Debian's 1.0.3, and 1.4.2 where tried) cannot build the model a few failing checks need,
//! even with the portfolio of `smt::process`: each carries a second marker
//! `// cvc5 undecided: KIND`, and cvc5 must leave exactly those undecided. cvc5 1.0.3 reads no
//! lambda as an array: a program with `// cvc5 refuses: lambda` must get an error from it.

use lockstep_encoder::boogie;
use lockstep_encoder::ivl::{self, Declaration, Program};
use lockstep_encoder::smt::process;
use lockstep_encoder::smt::smtlib::Flavour;
use lockstep_encoder::smt::z3_native::Z3Solver;
use lockstep_encoder::smt::{Limits, Solver};
use lockstep_encoder::vcgen::{self, CheckKind};
use lockstep_encoder::verify::{self, Status};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

type Checks = BTreeSet<(CheckKind, u32)>;

/// The checks that fail and the checks left undecided.
#[derive(Debug, Default, PartialEq, Eq)]
struct Found {
    failed: Checks,
    undecided: Checks,
}

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

/// The checks a marker names: `// fails: KIND` or `// fails: KIND, KIND` (an invariant can fail both
/// on entry and when preserved).
fn marked(text: &str, marker: &str) -> Checks {
    let mut checks = Checks::new();
    for (index, line) in text.lines().enumerate() {
        let Some(kinds) = line.split(marker).nth(1) else { continue };
        // Another marker may follow on the same line.
        let kinds = kinds.split("//").next().unwrap_or_default();
        for kind in kinds.split(',') {
            let kind = match kind.trim() {
                "assert" => CheckKind::Assertion,
                "precondition" => CheckKind::Precondition,
                "postcondition" => CheckKind::Postcondition,
                "invariant-entry" => CheckKind::InvariantEntry,
                "invariant-preserved" => CheckKind::InvariantPreserved,
                other => panic!("unknown marker `{other}` on line {}", index + 1),
            };
            checks.insert((kind, index as u32 + 1));
        }
    }
    checks
}

fn expected(text: &str) -> Found {
    Found { failed: marked(text, "// fails: "), undecided: marked(text, "// undecided: ") }
}

fn load(path: &Path) -> (String, Program) {
    let text = std::fs::read_to_string(path).expect("readable");
    let program = ivl::parse::program(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    if let Err(errors) = ivl::check::program(&program) {
        panic!("{}: {:?}", path.display(), errors);
    }
    (text, program)
}

fn outcomes(program: &Program, solver: &mut dyn Solver, name: &str) -> Found {
    let mut found = Found::default();
    for declaration in &program.declarations {
        let Declaration::Procedure(procedure) = declaration else {
            continue;
        };
        if procedure.body.is_none() {
            continue;
        }
        let vc = vcgen::procedure(program, procedure);
        let results =
            verify::procedure(&vc, solver, &[], &[], &|_| false).unwrap_or_else(|error| panic!("{name}: {error}"));
        for outcome in results {
            let key = (outcome.check.kind, outcome.check.position.line);
            match outcome.status {
                Status::Verified => {}
                Status::Failed { .. } => {
                    found.failed.insert(key);
                }
                Status::Undecided(_) => {
                    found.undecided.insert(key);
                }
            }
        }
    }
    found
}

/// Every check of the corpus is decided in milliseconds, or (a matching loop) never: three seconds
/// tell the two apart.
fn limits() -> Limits {
    Limits { timeout: std::time::Duration::from_secs(3), ..Limits::default() }
}

#[test]
fn the_corpus_is_large_enough() {
    let files = corpus();
    assert!(files.len() >= 40, "only {} programs", files.len());
    let failing =
        files.iter().filter(|path| !expected(&std::fs::read_to_string(path).unwrap()).failed.is_empty()).count();
    assert!(failing >= 15, "only {failing} programs expect a failure");
}

fn check_backend(make: impl Fn() -> Box<dyn Solver>) {
    let mut mismatches = Vec::new();
    for path in corpus() {
        let (text, program) = load(&path);
        let mut solver = make();
        let found = outcomes(&program, solver.as_mut(), &path.display().to_string());
        let wanted = expected(&text);
        if found != wanted {
            mismatches.push(format!("{}: found {found:?}, expected {wanted:?}", path.display()));
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
    check_backend(|| Box::new(process::solver(Flavour::Z3, limits())));
}

/// cvc5 gives the expected outcomes, except on the checks marked `// cvc5 undecided:`, which it
/// must leave undecided (never verified): failing checks whose counterexample needs a model of an
/// unbounded quantified formula that none of its configurations builds.
#[test]
fn cvc5_gives_the_same_outcomes_but_the_marked_undecided_checks() {
    let mut mismatches = Vec::new();
    for path in corpus() {
        let (text, program) = load(&path);
        if text.contains("// cvc5 refuses: lambda") {
            // cvc5 1.0.3 reads no SMT-LIB lambda as an array: the solver says so, nothing is verified.
            let refused = program.declarations.iter().any(|declaration| match declaration {
                Declaration::Procedure(procedure) if procedure.body.is_some() => {
                    let vc = vcgen::procedure(&program, procedure);
                    verify::procedure(&vc, &mut process::solver(Flavour::Cvc5, limits()), &[], &[], &|_| false).is_err()
                }
                _ => false,
            });
            assert!(refused, "{}: cvc5 was expected to refuse the lambdas", path.display());
            continue;
        }
        let mut solver = process::solver(Flavour::Cvc5, limits());
        let found = outcomes(&program, &mut solver, &path.display().to_string());
        let mut wanted = expected(&text);
        for check in marked(&text, "// cvc5 undecided: ") {
            assert!(
                wanted.failed.remove(&check),
                "{}: {check:?} is marked cvc5-undecided but not failing",
                path.display()
            );
            wanted.undecided.insert(check);
        }
        if found != wanted {
            mismatches.push(format!("{}: expected {wanted:?}, cvc5 gave {found:?}", path.display()));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
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
        let reread =
            ivl::parse::program(&printed).unwrap_or_else(|error| panic!("{}: {error}\n{printed}", path.display()));
        assert_eq!(ivl::print::program(&reread), printed, "{}", path.display());
    }
}

/// Real Boogie on the printed program agrees with the built-in engine on the same text.
#[test]
fn real_boogie_agrees_on_the_printed_programs() {
    let files = corpus();
    let chunks: Vec<Vec<PathBuf>> = files.chunks(files.len().div_ceil(2).max(1)).map(<[PathBuf]>::to_vec).collect();
    let mismatches: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(move || chunk.iter().filter_map(|path| boogie_mismatch(path)).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|handle| handle.join().expect("no panic")).collect()
    });
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

fn boogie_mismatch(path: &Path) -> Option<String> {
    let (_, program) = load(path);
    let printed = ivl::print::program(&program);
    let numbered = ivl::parse::program(&printed).expect("printed text parses");
    let found = outcomes(&numbered, &mut Z3Solver::new(limits()), &path.display().to_string());
    // Boogie reports what it cannot decide as an error.
    let ours: Checks = found.failed.union(&found.undecided).copied().collect();
    let report = boogie::run(&printed, 10).unwrap_or_else(|error| panic!("{error}"));
    let theirs: Checks = report.failures.iter().map(|failure| (failure.kind, failure.line)).collect();
    (!report.problems.is_empty() || report.timeouts > 0 || ours != theirs)
        .then(|| format!("{}: built-in {ours:?}, Boogie {theirs:?}, problems {:?}", path.display(), report.problems))
}
