//! What every backend must do besides deciding checks: return models for the values asked about,
//! and keep "undecided" apart from "failed" and "verified".

use lockstep_encoder::ivl::{self, Declaration, Expr, Program};
use lockstep_encoder::run::{self, Backend};
use lockstep_encoder::smt::process;
use lockstep_encoder::smt::smtlib::{Batches, Flavour, SmtLibSolver};
use lockstep_encoder::smt::z3_native::Z3Solver;
use lockstep_encoder::smt::{Answer, Cancel, Command, Limits, Script, Solver, SolverError, Term, Value};
use lockstep_encoder::vcgen;
use lockstep_encoder::verify::{self, Definition, Evaluation, Status};
use num_bigint::BigInt;
#[path = "support/z3_batches.rs"]
mod z3_batches;
use num_rational::BigRational;
use std::sync::Arc;
use z3_batches::Z3Batches;

fn program(text: &str) -> Program {
    let program = ivl::parse::program(text).expect("parses");
    ivl::check::program(&program).expect("well typed");
    program
}

fn backends(limits: Limits) -> Vec<(&'static str, Box<dyn Solver>)> {
    vec![
        ("z3 in-process", Box::new(Z3Solver::new(limits.clone()))),
        ("z3 process", Box::new(process::solver(Flavour::Z3, limits.clone()))),
        // As the playground reaches z3: batches of commands, evaluated at once.
        (
            "z3 in batches",
            Box::new(SmtLibSolver::new(Flavour::Z3, Box::new(Batches(Z3Batches::start)), limits.clone())),
        ),
        ("cvc5", Box::new(process::solver(Flavour::Cvc5, limits))),
    ]
}

fn statuses(program: &Program, solver: &mut dyn Solver, requested: &[Expr]) -> Vec<Status> {
    let Declaration::Procedure(procedure) = &program.declarations.last().expect("a procedure") else { panic!() };
    statuses_of(program, procedure, solver, requested, &[])
}

fn statuses_of(
    program: &Program,
    procedure: &ivl::Procedure,
    solver: &mut dyn Solver,
    requested: &[Expr],
    definitions: &[Definition],
) -> Vec<Status> {
    let vc = vcgen::procedure(program, procedure);
    verify::procedure(&vc, solver, requested, definitions, &|_| false)
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

/// The cubes of Fermat's last theorem: no solver here decides them in minutes.
const CUBES: &str =
    "procedure p(x: int, y: int, z: int)\n{\n  assume x > 1 && y > 1 && z > 1;\n  assert x * x * x + y * y * y != z * z * z;\n}\n";

#[test]
fn cancelled_checks_are_undecided() {
    let cancel = Cancel::default();
    cancel.cancel();
    let limits = Limits { cancel: Some(cancel), ..Limits::default() };
    for (name, mut solver) in backends(limits) {
        let found = statuses(&program(CUBES), solver.as_mut(), &[]);
        assert_eq!(found, [Status::Undecided("cancelled".into())], "{name}");
    }
}

#[test]
fn cancelling_stops_the_check_in_flight() {
    // Only a cancel can end this check before the test harness gives up on it.
    let cancel = Cancel::default();
    let limits =
        Limits { timeout: std::time::Duration::from_secs(3600), cancel: Some(cancel.clone()), ..Limits::default() };
    let mut solver = Z3Solver::new(limits);
    let found = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(200));
            cancel.cancel();
        });
        statuses(&program(CUBES), &mut solver, &[])
    });
    assert_eq!(found, [Status::Undecided("cancelled".into())]);
}

/// A solver that answers for another script than the one it was given: each integer literal
/// `from` becomes `to`. Its `sat` comes with a model of that other script, which may break the
/// given one, as z3's did after a resource limit (a launch with `gsize = 0`).
struct AnswersForAnotherScript {
    inner: Z3Solver,
    from: i64,
    to: i64,
}

fn replace_literal(term: &Term, from: &BigInt, to: &BigInt) -> Term {
    match term {
        Term::Int(value) if value == from => Term::Int(to.clone()),
        Term::App(op, args) => Term::App(op.clone(), args.iter().map(|arg| replace_literal(arg, from, to)).collect()),
        Term::Quantifier { forall, bound, patterns, body } => Term::Quantifier {
            forall: *forall,
            bound: bound.clone(),
            patterns: patterns.clone(),
            body: Box::new(replace_literal(body, from, to)),
        },
        Term::Lambda { bound, body } => {
            Term::Lambda { bound: bound.clone(), body: Box::new(replace_literal(body, from, to)) }
        }
        other => other.clone(),
    }
}

impl Solver for AnswersForAnotherScript {
    fn load(&mut self, script: &Script) -> Result<(), SolverError> {
        let (from, to) = (BigInt::from(self.from), BigInt::from(self.to));
        let commands = script
            .commands
            .iter()
            .map(|command| match command {
                Command::Assert(term) => Command::Assert(replace_literal(term, &from, &to)),
                other => other.clone(),
            })
            .collect();
        self.inner.load(&Script { commands })
    }

    fn check(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        self.inner.check(assumptions)
    }

    fn values(&mut self, terms: &[Term]) -> Result<Vec<Value>, SolverError> {
        self.inner.values(terms)
    }
}

/// A check fails only on a `sat` whose model satisfies the script: a model that breaks it (here
/// `x = 0` against `assume x > 5`) is no counterexample, and the check is undecided.
#[test]
fn a_sat_answer_whose_model_breaks_the_script_decides_nothing() {
    let program = program("procedure p(x: int)\n{\n  assume x > 5;\n  assert x > 3;\n}\n");
    let mut honest = AnswersForAnotherScript { inner: Z3Solver::new(Limits::default()), from: 5, to: 5 };
    assert_eq!(statuses(&program, &mut honest, &[Expr::var("x")]), [Status::Verified]);
    let mut lying = AnswersForAnotherScript { inner: Z3Solver::new(Limits::default()), from: 5, to: -100 };
    let found = statuses(&program, &mut lying, &[Expr::var("x")]);
    let [Status::Undecided(reason)] = found.as_slice() else { panic!("{found:?}") };
    assert!(reason.contains("breaks the script"), "{reason}");
}

#[test]
fn a_missing_solver_is_an_error_with_a_way_out() {
    // (An `assert true` would be settled by constant folding, without asking the solver.)
    let program = program("procedure p(x: int) { assert x == x; }\n");
    let Declaration::Procedure(procedure) = &program.declarations[0] else { panic!() };
    let vc = vcgen::procedure(&program, procedure);
    let mut solver = process::solver_at(Flavour::Cvc5, "/nonexistent/cvc5", Limits::default());
    let error = verify::procedure(&vc, &mut solver, &[], &[], &|_| false).unwrap_err();
    assert!(error.0.contains("apt-get install cvc5") && error.0.contains("LOCKSTEP_CVC5"), "{error}");
}

/// `sum(n) = n <= 0 ? 0 : n + sum(n - 1)`, axiomatised with fuel as the kernel encoder does
/// (`proofs/kernel.md`, E5): two unfoldings are not enough to compute `sum(30)`, so the solver
/// alone cannot decide either check.
const SUM: &str = "function succ(n: int): int;
function f_sum(fuel: int, n: int): int;
const defined_sum: bool;
const no_fuel: int;
axiom defined_sum ==> (forall fuel: int, n: int :: {f_sum(succ(fuel), n)} f_sum(succ(fuel), n) == (if n <= 0 then 0 else n + f_sum(fuel, n - 1)));
axiom defined_sum ==> (forall fuel: int, n: int :: {f_sum(succ(fuel), n)} f_sum(succ(fuel), n) == f_sum(fuel, n));
procedure right(n: int) { assume defined_sum; assume n == 30; assert f_sum(succ(succ(no_fuel)), n) == 465; }
procedure wrong(n: int) { assume defined_sum; assume n == 30; assert f_sum(succ(succ(no_fuel)), n) == 466; }
procedure quantified(n: int) {
  assume defined_sum; assume n == 30;
  assert (forall k: int :: 0 <= k && k <= n ==> f_sum(succ(succ(no_fuel)), k) <= 400);
}
";

/// cvc5 spends its whole time limit on the axioms of [`SUM`]; the ground questions without them
/// take milliseconds.
const SHORT: Limits = Limits { timeout: std::time::Duration::from_secs(2), resource_limit: 0, seed: 0, cancel: None };

fn sum_definition(evaluate: impl Fn(&[Value]) -> Evaluation + Send + Sync + 'static) -> Definition {
    Definition {
        function: "f_sum".into(),
        guard: "defined_sum".into(),
        ignored_arguments: 1,
        evaluate: Arc::new(evaluate),
    }
}

fn sum(args: &[Value]) -> Evaluation {
    let [Value::Int(n)] = args else { return Evaluation::Unknown };
    let n = n.max(&BigInt::from(0)).clone();
    Evaluation::Value(Value::Int(&n * (&n + 1) / 2))
}

/// The statuses of the procedures `right`, `wrong` and `quantified` of [`SUM`].
fn sum_statuses(solver: &mut dyn Solver, definitions: &[Definition]) -> Vec<Vec<Status>> {
    let program = program(SUM);
    let procedures: Vec<&ivl::Procedure> = program
        .declarations
        .iter()
        .filter_map(|declaration| match declaration {
            Declaration::Procedure(procedure) => Some(procedure),
            _ => None,
        })
        .collect();
    procedures
        .iter()
        .map(|procedure| statuses_of(&program, procedure, solver, &[Expr::var("n")], definitions))
        .collect()
}

#[test]
fn a_recursive_definition_settles_what_its_axioms_leave_undecided() {
    let thirty = Value::Int(BigInt::from(30));
    for (name, mut solver) in backends(SHORT) {
        let alone = sum_statuses(solver.as_mut(), &[]);
        assert!(alone.iter().flatten().all(|status| matches!(status, Status::Undecided(_))), "{name}: {alone:?}");
        let found = sum_statuses(solver.as_mut(), &[sum_definition(sum)]);
        assert_eq!(found[0], [Status::Verified], "{name}: sum(30) == 465 holds");
        assert_eq!(found[1], [Status::Failed { model: vec![("n".into(), thirty.clone())] }], "{name}");
        // An application under a quantifier has instances the model does not show.
        assert!(matches!(found[2].as_slice(), [Status::Undecided(_)]), "{name}: {:?}", found[2]);
    }
}

#[test]
fn a_definition_that_cannot_be_computed_settles_nothing() {
    for (name, mut solver) in backends(SHORT) {
        let found = sum_statuses(solver.as_mut(), &[sum_definition(|_| Evaluation::Unknown)]);
        assert!(found.iter().flatten().all(|status| matches!(status, Status::Undecided(_))), "{name}: {found:?}");
    }
}

/// `{:proved_by}`: an assumption that other procedures show holds only if they all verify, in
/// every backend (real Boogie ignores the attribute, so `run` verifies the provers first and
/// drops the assumption of a failed one from the program it prints).
#[test]
fn an_assumption_is_kept_only_when_its_provers_verify() {
    let text = r#"
        const shown: bool;
        procedure holds() { assert true; }
        procedure fails() { assert false; }
        procedure relies_on_holds() free requires {:proved_by "holds"} shown; { assert shown; }
        procedure relies_on_fails() free requires {:proved_by "fails"} shown; { assert shown; }
        procedure relies_on_both() free requires {:proved_by "holds", "fails"} shown; { assert shown; }
    "#;
    let program = program(text);
    let printed = ivl::print::program(&program);
    assert!(printed.contains(r#"free requires {:proved_by "holds", "fails"} shown;"#), "{printed}");
    for backend in [Backend::Z3, Backend::Process(Flavour::Z3), Backend::Boogie] {
        let outcomes = run::program(&program, backend, &Limits::default()).expect("the backend runs");
        let verified: Vec<(&str, bool)> = outcomes
            .iter()
            .map(|outcome| {
                let verified = outcome.outcomes.iter().all(|check| check.status == Status::Verified);
                (outcome.procedure.as_str(), verified)
            })
            .collect();
        assert_eq!(
            verified,
            [
                ("holds", true),
                ("fails", false),
                ("relies_on_holds", true),
                ("relies_on_fails", false),
                ("relies_on_both", false)
            ],
            "{backend:?}"
        );
    }
}

#[test]
fn proved_by_names_other_procedures_with_bodies_on_free_requirements() {
    let text = r#"
        const shown: bool;
        procedure declared();
        procedure checked() requires {:proved_by "declared"} shown; { }
        procedure itself() free requires {:proved_by "itself"} shown; { }
        procedure unknown() free requires {:proved_by "nowhere"} shown; { }
    "#;
    let parsed = ivl::parse::program(text).expect("parses");
    let errors: Vec<String> =
        ivl::check::program(&parsed).expect_err("ill-formed").into_iter().map(|error| error.message).collect();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors[0].contains("belongs on a `free requires`"), "{errors:?}");
    assert!(errors[1].contains("`declared` is not another procedure with a body"), "{errors:?}");
    assert!(errors[2].contains("`itself` is not another"), "{errors:?}");
    assert!(errors[3].contains("`nowhere` is not another"), "{errors:?}");
}
