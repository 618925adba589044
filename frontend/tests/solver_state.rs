//! A solver that gave up must not decide later checks with what it learnt before: every `sat`
//! answer after an `unknown` comes with a model of the script (`proofs/vcgen.md`, V7).

use lockstep_encoder::ivl::Declaration;
use lockstep_encoder::kernel;
use lockstep_encoder::smt::z3_native::Z3Solver;
use lockstep_encoder::smt::{Answer, Limits, Solver, Term, Value};
use lockstep_encoder::vcgen::{self, enabled_symbol};
use lockstep_frontend::check_file;
use lockstep_frontend::source::SourceFile;

/// The seed's binomial kernel, whose thread procedure z3 cannot settle within 10000 resource
/// units. z3 4.8's incremental solver, asked about single checks after giving up on all of them
/// at once, answered `sat` with models in which `tcount = 0` beside `gsize = 2`, which the
/// launch facts exclude; the native backend now rebuilds its solver after every `unknown`.
#[test]
fn after_giving_up_the_solver_answers_sat_only_with_models_of_the_script() {
    let path = "examples/seed/binomial.pvl";
    let text = std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).expect("the example");
    let checked = check_file(SourceFile::new(path, &text));
    let program = checked.program.expect("the example checks");
    let outline = lockstep_logic::outline::Outline::of(&program, &program.kernels[0], Default::default());
    let encoding = kernel::encode(&outline);
    let limits = Limits { resource_limit: 10_000, ..Limits::default() };
    let mut sat_answers = 0;
    for declaration in &encoding.program.declarations {
        let Declaration::Procedure(procedure) = declaration else { continue };
        let vc = vcgen::procedure(&encoding.program, procedure);
        let assertions: Vec<Term> = vc.script.assertions().cloned().collect();
        let mut solver = Z3Solver::new(limits.clone());
        solver.load(&vc.script).expect("loads");
        let only = |check: usize| -> Vec<(String, bool)> {
            (0..vc.checks.len()).map(|other| (enabled_symbol(other), other == check)).collect()
        };
        let all: Vec<(String, bool)> = (0..vc.checks.len()).map(|check| (enabled_symbol(check), true)).collect();
        if !matches!(solver.check(&all).expect("checks"), Answer::Unknown(_)) {
            continue;
        }
        for check in 0..vc.checks.len() {
            if solver.check(&only(check)).expect("checks") == Answer::Sat {
                sat_answers += 1;
                let values = solver.values(&assertions).expect("a model");
                assert!(
                    !values.contains(&Value::Bool(false)),
                    "{}: check {check} answered sat with a model that breaks the script",
                    procedure.name
                );
            }
        }
    }
    // The procedures z3 gave up on hold, so no single check should be `sat` either.
    assert_eq!(sat_answers, 0);
}
