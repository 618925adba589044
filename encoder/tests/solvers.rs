//! What every backend must do besides deciding checks: return models for the values asked about,
//! and keep "undecided" apart from "failed" and "verified".

use lockstep_encoder::ivl::{self, Declaration, Expr, Program};
use lockstep_encoder::smt::process::{Flavour, ProcessSolver};
use lockstep_encoder::smt::z3_native::Z3Solver;
use lockstep_encoder::smt::{Limits, Solver, Value};
use lockstep_encoder::vcgen;
use lockstep_encoder::verify::{self, Status};
use num_bigint::BigInt;
use num_rational::BigRational;

fn program(text: &str) -> Program {
    let program = ivl::parse::program(text).expect("parses");
    ivl::check::program(&program).expect("well typed");
    program
}

fn backends(limits: Limits) -> Vec<(&'static str, Box<dyn Solver>)> {
    vec![
        ("z3 in-process", Box::new(Z3Solver::new(limits.clone()))),
        ("z3 process", Box::new(ProcessSolver::new(Flavour::Z3, limits.clone()))),
        ("cvc5", Box::new(ProcessSolver::new(Flavour::Cvc5, limits))),
    ]
}

fn statuses(program: &Program, solver: &mut dyn Solver, requested: &[Expr]) -> Vec<Status> {
    let Declaration::Procedure(procedure) = &program.declarations.last().expect("a procedure") else { panic!() };
    let vc = vcgen::procedure(program, procedure);
    verify::procedure(&vc, solver, requested)
        .expect("the solver runs")
        .into_iter()
        .map(|outcome| outcome.status)
        .collect()
}

#[test]
fn a_failure_comes_with_the_values_asked_for() {
    let program = program(
        "var H: [int]int;\nprocedure p(x: int, r: real) modifies H;\n{\n  assume 6 < x && x < 8 && r == 1.0 / 4.0;\n  H[x] := x + 1;\n  assert H[x] != 8;\n}\n",
    );
    let requested = [Expr::var("x"), Expr::var("r"), Expr::select(Expr::var("H"), Expr::var("x"))];
    for (name, mut solver) in backends(Limits::default()) {
        let found = statuses(&program, solver.as_mut(), &requested);
        let [Status::Failed { model }] = found.as_slice() else { panic!("{name}: {found:?}") };
        assert_eq!(
            model,
            &[
                ("x".to_string(), Value::Int(BigInt::from(7))),
                ("r".to_string(), Value::Real(BigRational::new(1.into(), 4.into()))),
                ("H[x]".to_string(), Value::Int(BigInt::from(8))),
            ],
            "{name}"
        );
    }
}

#[test]
fn a_solver_that_gives_up_leaves_the_checks_undecided() {
    // Nonlinear arithmetic under a resource limit of 1: no solver decides it, and it must say so.
    let program = program(
        "procedure p(x: int, y: int, z: int)\n{\n  assume x > 1 && y > 1 && z > 1;\n  assert x * x * x + y * y * y != z * z * z;\n  assert x * y * z > 0;\n}\n",
    );
    let limits = Limits { resource_limit: 1, ..Limits::default() };
    for (name, mut solver) in backends(limits) {
        let found = statuses(&program, solver.as_mut(), &[]);
        assert_eq!(found.len(), 2, "{name}");
        assert!(found.iter().all(|status| matches!(status, Status::Undecided(_))), "{name}: {found:?}");
    }
}

#[test]
fn a_timeout_is_undecided_too() {
    let program = program(
        "procedure p(x: int, y: int, z: int)\n{\n  assume x > 1 && y > 1 && z > 1;\n  assert x * x * x + y * y * y != z * z * z;\n}\n",
    );
    let limits = Limits { timeout: std::time::Duration::from_millis(1), ..Limits::default() };
    for (name, mut solver) in backends(limits) {
        let found = statuses(&program, solver.as_mut(), &[]);
        assert!(matches!(found.as_slice(), [Status::Undecided(_)]), "{name}: {found:?}");
    }
}

#[test]
fn a_missing_solver_is_an_error_with_a_way_out() {
    // (An `assert true` would be settled by constant folding, without asking the solver.)
    let program = program("procedure p(x: int) { assert x == x; }\n");
    let Declaration::Procedure(procedure) = &program.declarations[0] else { panic!() };
    let vc = vcgen::procedure(&program, procedure);
    let mut solver = ProcessSolver::with_program(Flavour::Cvc5, "/nonexistent/cvc5", Limits::default());
    let error = verify::procedure(&vc, &mut solver, &[]).unwrap_err();
    assert!(error.0.contains("apt-get install cvc5") && error.0.contains("LOCKSTEP_CVC5"), "{error}");
}
