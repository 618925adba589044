//! Verifying a whole IVL program with a chosen backend: the engine behind `lockstep ivl`, and the
//! one the kernel verifier drives.

use crate::boogie;
use crate::ivl::{self, Declaration, Expr, Program};
use crate::smt::process;
use crate::smt::smtlib::{Flavour, SmtLibSolver, Transport};
#[cfg(feature = "z3-native")]
use crate::smt::z3_native::Z3Solver;
use crate::smt::{Limits, SolverError};
use crate::vcgen;
use crate::verify::{Definition, Outcome, Status};
use crate::workers::{self, Job, NewSolver};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Who decides the checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// z3 in this process: the default and fast path (with the `z3-native` feature).
    Z3,
    /// A solver process speaking SMT-LIB.
    Process(Flavour),
    /// A solver speaking SMT-LIB, reached through the transport given (the playground's z3 in
    /// the browser).
    SmtLib(Flavour, TransportRef),
    /// Real Boogie on the printed program: the reference.
    Boogie,
}

/// A transport for [`Backend::SmtLib`], which lives as long as the program.
#[derive(Clone, Copy)]
pub struct TransportRef(pub &'static (dyn Fn() -> Box<dyn Transport> + Sync));

/// Transports compare as the same function.
impl PartialEq for TransportRef {
    fn eq(&self, other: &TransportRef) -> bool {
        std::ptr::addr_eq(self.0, other.0)
    }
}

impl Eq for TransportRef {}

impl std::fmt::Debug for TransportRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a transport")
    }
}

/// The outcomes of one procedure's checks, in the order of the checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcedureOutcome {
    pub procedure: String,
    pub outcomes: Vec<Outcome>,
    /// The solver's work on the procedure ([`Solver::resources_used`]), if the backend reports it.
    pub resources: Option<u64>,
}

/// Verifies every procedure with a body. For a failure, the model gives the values of the
/// procedure's scalar parameters, results, locals and globals, in the failing state.
pub fn program(program: &Program, backend: Backend, limits: &Limits) -> Result<Vec<ProcedureOutcome>, SolverError> {
    program_requesting(program, backend, limits, &|_| Vec::new(), &[], |_| false)
}

/// Like [`program`], with `extra` expressions of each procedure whose values a failure reports
/// too (such as the array cells the failing assertion reads), and the `definitions` of functions
/// the program axiomatises, which settle checks the axioms leave undecided
/// ([`verify::procedure`]), and the tags of the probes (`probe`). Real Boogie gives no values,
/// uses no definitions and is not given the probes.
pub fn program_requesting(
    program: &Program,
    backend: Backend,
    limits: &Limits,
    extra: &(dyn Fn(&ivl::Procedure) -> Vec<Expr> + Sync),
    definitions: &[Definition],
    probe: fn(&str) -> bool,
) -> Result<Vec<ProcedureOutcome>, SolverError> {
    let questions = Questions { extra, definitions, probe };
    let run = |program: &Program| match (backend, new_solver(backend, limits)) {
        (Backend::Boogie, _) => with_boogie(&without_probes(program, &probe), limits),
        (_, Some(new_solver)) => with_solvers(program, backend, limits, new_solver, &questions),
        (_, None) => Err(SolverError("this build of lockstep has no z3 in-process (feature `z3-native`)".into())),
    };
    let provers: BTreeSet<&str> = procedures(program)
        .flat_map(|procedure| &procedure.requires)
        .flat_map(|spec| spec.proved_by.iter().map(String::as_str))
        .collect();
    if provers.is_empty() {
        return run(program);
    }
    // The procedures that show other procedures' assumptions go first, assuming none of those
    // themselves; then the rest, each assumption kept only if all its provers verified.
    let is_prover = |procedure: &ivl::Procedure| provers.contains(procedure.name.as_str());
    let first_phase = phase(program, is_prover, |_| false);
    let second_phase = |shown: &BTreeSet<String>| {
        phase(
            program,
            |procedure| !is_prover(procedure),
            |spec| spec.proved_by.iter().all(|prover| shown.contains(prover)),
        )
    };
    // Provers mostly verify, so the second phase starts at once, as if all had, beside the first
    // (with solvers of its own, made while the input was read); it is run again, as the first
    // phase's outcomes say, in the rare call where one did not.
    let (first, hoped) = if cfg!(target_family = "wasm") {
        (run(&first_phase), None)
    } else {
        if let Some(new_solver) = new_solver(backend, limits) {
            let second = procedures(program).filter(|procedure| !is_prover(procedure)).count();
            let count = workers_for(procedures(&first_phase).count()) + workers_for(second);
            workers::prepare_up_to(backend, limits, new_solver, count);
        }
        let all: BTreeSet<String> = provers.iter().map(|prover| prover.to_string()).collect();
        let hoped_phase = second_phase(&all);
        std::thread::scope(|scope| {
            let hoped = scope.spawn(|| run(&hoped_phase));
            let first = run(&first_phase);
            (first, Some((all, hoped.join().expect("a phase's verification does not panic"))))
        })
    };
    let first = first?;
    let shown: BTreeSet<String> = first
        .iter()
        .filter(|outcome| outcome.outcomes.iter().all(|outcome| outcome.status == Status::Verified))
        .map(|outcome| outcome.procedure.clone())
        .collect();
    let second = match hoped {
        Some((hoped_for, second)) if hoped_for == shown => second?,
        _ => run(&second_phase(&shown))?,
    };
    let mut outcomes: Vec<ProcedureOutcome> = first.into_iter().chain(second).collect();
    let order: Vec<&str> = procedures(program).map(|procedure| procedure.name.as_str()).collect();
    outcomes.sort_by_key(|outcome| order.iter().position(|name| *name == outcome.procedure));
    Ok(outcomes)
}

/// What [`with_solvers`] asks besides the checks: see [`program_requesting`].
struct Questions<'q> {
    extra: &'q (dyn Fn(&ivl::Procedure) -> Vec<Expr> + Sync),
    definitions: &'q [Definition],
    probe: fn(&str) -> bool,
}

/// How a worker makes its solver for `backend` (none for Boogie, which is no solver of lockstep's,
/// nor for z3 in a build without it).
fn new_solver(backend: Backend, limits: &Limits) -> Option<NewSolver> {
    let limits = limits.clone();
    match backend {
        #[cfg(feature = "z3-native")]
        Backend::Z3 => Some(Arc::new(move || Box::new(Z3Solver::new(limits.clone())))),
        #[cfg(not(feature = "z3-native"))]
        Backend::Z3 => None,
        Backend::SmtLib(flavour, TransportRef(transport)) => {
            Some(Arc::new(move || Box::new(SmtLibSolver::new(flavour, transport(), limits.clone()))))
        }
        Backend::Process(flavour) => Some(Arc::new(move || Box::new(process::solver(flavour, limits.clone())))),
        Backend::Boogie => None,
    }
}

/// Makes ready, ahead of the calls to come with this backend and these limits, the solvers of
/// their first [`WORKERS`] workers ([`workers`]): a command line calls it before it reads its files,
/// so that making z3's contexts overlaps reading them.
pub fn prepare(backend: Backend, limits: &Limits) {
    if cfg!(target_family = "wasm") {
        return;
    }
    if let Some(new_solver) = new_solver(backend, limits) {
        workers::prepare_up_to(backend, limits, new_solver, WORKERS);
    }
}

/// The program without its probes: each `if (*) { assert false; }` whose assertion's tag is a
/// probe's. They change nothing else (the other branch goes on), so the checks that remain are
/// the same. For Boogie, which bounds a procedure's time as a whole, and for a program printed
/// for users.
pub fn without_probes(program: &Program, probe: &dyn Fn(&str) -> bool) -> Program {
    fn is_probe(stmt: &ivl::Stmt, probe: &dyn Fn(&str) -> bool) -> bool {
        match &stmt.kind {
            ivl::StmtKind::If { cond: None, then_branch, else_branch } if else_branch.is_empty() => matches!(
                then_branch.as_slice(),
                [ivl::Stmt { kind: ivl::StmtKind::Assert { tag: Some(tag), .. }, .. }] if probe(tag)
            ),
            _ => false,
        }
    }
    rewrite_bodies(program.clone(), &|stmt| (!is_probe(&stmt, probe)).then_some(stmt))
}

/// The program with only the checks whose tags are `asked`: every other assertion becomes the
/// assumption that follows it (or nothing, where it is not assumed), and every other checked
/// postcondition or loop invariant a free one, so the state after each, and the outcome of every
/// check asked, is the same; a procedure left with nothing to check has no body. For questions
/// about a few checks of a large program (Houdini's rounds over candidate invariants).
pub fn asking_only(program: &Program, asked: &dyn Fn(&str) -> bool) -> Program {
    let is_asked = |tag: &Option<String>| tag.as_deref().is_some_and(asked);
    let free_unless_asked = |specs: &mut Vec<ivl::Spec>| {
        for spec in specs.iter_mut().filter(|spec| !is_asked(&spec.tag)) {
            spec.free = true;
        }
    };
    let rewritten = rewrite_bodies(program.clone(), &|mut stmt| match stmt.kind {
        ivl::StmtKind::Assert { expr, tag, assumed } if !is_asked(&tag) => {
            assumed.then_some(ivl::Stmt { kind: ivl::StmtKind::Assume(expr), ..stmt })
        }
        ivl::StmtKind::While { ref mut invariants, .. } => {
            free_unless_asked(invariants);
            Some(stmt)
        }
        _ => Some(stmt),
    });
    let declarations = rewritten.declarations.into_iter().map(|declaration| match declaration {
        Declaration::Procedure(mut procedure) => {
            free_unless_asked(&mut procedure.ensures);
            let checks = |body: &ivl::Body| checks(&body.stmts) > 0 || procedure.ensures.iter().any(|spec| !spec.free);
            if !procedure.body.as_ref().is_some_and(checks) {
                procedure.body = None;
            }
            Declaration::Procedure(procedure)
        }
        other => other,
    });
    Program { declarations: declarations.collect(), positions: program.positions.clone() }
}

/// How many assertions and checked loop invariants stand in `stmts`, at any depth.
fn checks(stmts: &[ivl::Stmt]) -> usize {
    stmts
        .iter()
        .map(|stmt| match &stmt.kind {
            ivl::StmtKind::Assert { .. } => 1,
            ivl::StmtKind::If { then_branch, else_branch, .. } => checks(then_branch) + checks(else_branch),
            ivl::StmtKind::While { invariants, body, .. } => {
                invariants.iter().filter(|spec| !spec.free).count() + checks(body)
            }
            _ => 0,
        })
        .sum()
}

/// The program with each statement of every procedure's body, at any depth, replaced by what
/// `rewrite` makes of it (nothing, for `None`); the branches and bodies of those it keeps are
/// rewritten in turn.
fn rewrite_bodies(mut program: Program, rewrite: &dyn Fn(ivl::Stmt) -> Option<ivl::Stmt>) -> Program {
    fn rewrite_all(stmts: Vec<ivl::Stmt>, rewrite: &dyn Fn(ivl::Stmt) -> Option<ivl::Stmt>) -> Vec<ivl::Stmt> {
        let mut rewritten: Vec<ivl::Stmt> = stmts.into_iter().filter_map(rewrite).collect();
        for stmt in &mut rewritten {
            match &mut stmt.kind {
                ivl::StmtKind::If { then_branch, else_branch, .. } => {
                    *then_branch = rewrite_all(std::mem::take(then_branch), rewrite);
                    *else_branch = rewrite_all(std::mem::take(else_branch), rewrite);
                }
                ivl::StmtKind::While { body, .. } => *body = rewrite_all(std::mem::take(body), rewrite),
                _ => {}
            }
        }
        rewritten
    }
    for declaration in &mut program.declarations {
        if let Declaration::Procedure(ivl::Procedure { body: Some(body), .. }) = declaration {
            body.stmts = rewrite_all(std::mem::take(&mut body.stmts), rewrite);
        }
    }
    program
}

/// The program with bodies only for the procedures `included`, and of their `{:proved_by}`
/// assumptions only those that `hold` (the rest dropped).
fn phase(program: &Program, included: impl Fn(&ivl::Procedure) -> bool, hold: impl Fn(&ivl::Spec) -> bool) -> Program {
    let declarations = program.declarations.iter().map(|declaration| match declaration {
        Declaration::Procedure(procedure) => {
            let mut procedure = procedure.clone();
            if !included(&procedure) {
                procedure.body = None;
            }
            procedure.requires.retain(|spec| spec.proved_by.is_empty() || hold(spec));
            Declaration::Procedure(procedure)
        }
        other => other.clone(),
    });
    Program { declarations: declarations.collect(), positions: program.positions.clone() }
}

pub(crate) fn procedures(program: &Program) -> impl Iterator<Item = &ivl::Procedure> {
    program.declarations.iter().filter_map(|declaration| match declaration {
        Declaration::Procedure(procedure) if procedure.body.is_some() => Some(procedure),
        _ => None,
    })
}

/// The variables whose values a counterexample shows.
fn visible_variables(program: &Program, procedure: &ivl::Procedure) -> Vec<Expr> {
    let globals = program.declarations.iter().filter_map(|declaration| match declaration {
        Declaration::Var(binding) | Declaration::Const(binding) => Some(binding),
        _ => None,
    });
    let locals = procedure.body.iter().flat_map(|body| &body.locals);
    procedure
        .params
        .iter()
        .chain(&procedure.returns)
        .chain(locals)
        .chain(globals)
        // A whole map is no readable value, and z3 can spend gigabytes spelling one out.
        .filter(|binding| !matches!(binding.ty, ivl::Type::Map(..)))
        .map(|binding| Expr::var(binding.name.clone()))
        .collect()
}

/// How many workers verify the procedures of a program. A fixed number, not the machine's cores:
/// a worker's solver (and the z3 context of its thread) carries what it met in one procedure into
/// the next, which steers the solver's search, so the outcomes are a function of the program, the
/// limits and the seed only if which procedures share a worker is too. Two: each worker's z3
/// context costs some 25 ms of CPU to create, more than the checks of most kernels take, so on
/// the two-core machines lockstep's CI runs on, four workers made GPUVerify's suite 20 % slower
/// per kernel (median 123 ms against 102 ms, with verdicts the same).
pub const WORKERS: usize = 2;

/// How many workers verify `procedures` procedures: none for none.
fn workers_for(procedures: usize) -> usize {
    WORKERS.min(procedures)
}

/// What a procedure is guessed to cost its worker: its checks (each an assertion or a checked
/// loop invariant), at least one. The solver's work is not known before it is done; this guess
/// only balances the shares, it decides no outcome.
fn cost(procedure: &ivl::Procedure) -> usize {
    let ensured = procedure.ensures.iter().filter(|spec| !spec.free).count();
    procedure.body.as_ref().map_or(0, |body| checks(&body.stmts)) + ensured + 1
}

/// The procedures (by position) of each of `workers` shares, the costliest share first: worker
/// `k`'s share is the procedures `k`, `k + workers`, ... in order. Which procedures share a solver
/// steers its searches (a procedure's time went from 0.4 s to 7 s when the costliest procedures
/// were given shares of their own), so the shares stay these; only the order in which workers
/// take them follows the costs, the costliest to the worker ready first ([`workers::run`]).
fn shares(costs: &[usize], workers: usize) -> Vec<Vec<usize>> {
    let mut shares: Vec<Vec<usize>> =
        (0..workers).map(|worker| (worker..costs.len()).step_by(workers).collect()).collect();
    shares.sort_by_key(|share| std::cmp::Reverse(share.iter().map(|&procedure| costs[procedure]).sum::<usize>()));
    shares
}

/// Verifies the procedures in parallel: each worker takes a share of them ([`shares`]) and verifies
/// it in order, with one solver, in a thread of its own (so with a fresh z3 context) that may have
/// been [`prepare`]d ([`workers`]).
fn with_solvers(
    program: &Program,
    backend: Backend,
    limits: &Limits,
    new_solver: NewSolver,
    questions: &Questions,
) -> Result<Vec<ProcedureOutcome>, SolverError> {
    let requested: Vec<Vec<Expr>> = procedures(program)
        .map(|procedure| {
            let mut requested = visible_variables(program, procedure);
            requested.extend((questions.extra)(procedure));
            requested
        })
        .collect();
    if requested.is_empty() {
        return Ok(Vec::new());
    }
    // WebAssembly in the browser has no threads: one solver takes the procedures in order.
    let workers = if cfg!(target_family = "wasm") { 1 } else { workers_for(requested.len()) };
    let (program, definitions) = (Arc::new(program.clone()), Arc::<[Definition]>::from(questions.definitions));
    let mut requested: Vec<Option<Vec<Expr>>> = requested.into_iter().map(Some).collect();
    let costs: Vec<usize> = procedures(&program).map(cost).collect();
    let jobs: Vec<Job> = shares(&costs, workers)
        .into_iter()
        .map(|procedures| {
            let requested = procedures.iter().map(|&index| requested[index].take().unwrap_or_default()).collect();
            Job {
                program: program.clone(),
                procedures,
                requested,
                definitions: definitions.clone(),
                probe: questions.probe,
            }
        })
        .collect();
    if cfg!(target_family = "wasm") {
        let mut solver = new_solver();
        return jobs.iter().flat_map(|job| job.run(solver.as_mut())).map(|(_, outcome)| outcome).collect();
    }
    workers::run(jobs, backend, limits, &new_solver).into_iter().collect()
}

/// Boogie checks the printed text; its failures are matched to the checks of the printed program by
/// kind and line, and those checks are the checks of `program` in the same order.
fn with_boogie(program: &Program, limits: &Limits) -> Result<Vec<ProcedureOutcome>, SolverError> {
    let printed = ivl::print::program(program);
    let numbered = ivl::parse::program(&printed)
        .map_err(|error| SolverError(format!("the printed program does not parse: {error}")))?;
    let seconds = u32::try_from(limits.timeout.as_secs().max(1)).unwrap_or(u32::MAX);
    let report = boogie::run(&printed, seconds).map_err(SolverError)?;
    if !report.problems.is_empty() {
        return Err(SolverError(format!("Boogie: {}", report.problems.join("; "))));
    }
    let failed: BTreeSet<(vcgen::CheckKind, u32, Option<u32>)> =
        report.failures.iter().map(|failure| (failure.kind, failure.line, failure.related_line)).collect();
    procedures(program)
        .zip(procedures(&numbered))
        .map(|(procedure, printed_procedure)| {
            let original = vcgen::procedure(program, procedure);
            let renumbered = vcgen::procedure(&numbered, printed_procedure);
            let outcomes = original
                .checks
                .iter()
                .zip(&renumbered.checks)
                .map(|(check, printed_check)| {
                    let key = (
                        printed_check.kind,
                        printed_check.position.line,
                        printed_check.related.map(|related| related.line),
                    );
                    let status = if failed.contains(&key) {
                        Status::Failed { model: Vec::new() }
                    } else if report.timeouts > 0 {
                        // Boogie does not say which checks a timeout left open: none is verified.
                        Status::Undecided("Boogie timed out".into())
                    } else {
                        Status::Verified
                    };
                    Outcome { check: check.clone(), status }
                })
                .collect();
            Ok(ProcedureOutcome { procedure: procedure.name.clone(), outcomes, resources: None })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statuses(program: &Program) -> Vec<(String, Option<String>, bool)> {
        let outcomes = super::program(program, Backend::Z3, &Limits::default()).expect("z3 answers");
        outcomes
            .into_iter()
            .flat_map(|procedure| {
                let name = procedure.procedure;
                procedure
                    .outcomes
                    .into_iter()
                    .map(move |outcome| (name.clone(), outcome.check.tag.clone(), outcome.status == Status::Verified))
            })
            .collect()
    }

    #[test]
    fn workers_take_the_procedures_in_turn_the_costliest_share_first() {
        assert_eq!(shares(&[1, 10, 1, 1, 1], 2), [vec![1, 3], vec![0, 2, 4]]);
        assert_eq!(shares(&[3, 1, 1, 1], 2), [vec![0, 2], vec![1, 3]]);
        assert_eq!(shares(&[2, 2], 2), [vec![0], vec![1]], "a tie keeps the procedures' order");
        let program = ivl::parse::program(
            "procedure p(x: int) ensures x > 0; { assume x > 1; assert x > 0; while (x > 0) invariant x >= 0; { x := x - 1; } }",
        )
        .expect("a valid program");
        let costs: Vec<usize> = procedures(&program).map(cost).collect();
        assert_eq!(costs, [4], "an assertion, an invariant, a postcondition, and one");
    }

    #[test]
    fn asking_only_some_checks_gives_them_the_outcomes_they_have_among_all() {
        let program = ivl::parse::program(
            "procedure p(x: int) {\n  assert {:tag \"a\"} x > 0;\n  assert {:tag \"b\"} x > 1;\n  assert {:tag \"c\"} x > 0;\n}\n\
             procedure q(y: int) {\n  assert {:tag \"d\"} y > 0;\n}\n",
        )
        .expect("a valid program");
        let all = statuses(&program);
        assert_eq!(all.len(), 4, "{all:?}");
        let asked = |tag: &str| tag == "b" || tag == "c";
        let some = statuses(&asking_only(&program, &asked));
        let expected: Vec<_> = all.into_iter().filter(|(_, tag, _)| tag.as_deref().is_some_and(asked)).collect();
        // `b` fails (`x == 1`: `a` is assumed, not asked), `c` holds after `a`; `q` asks nothing.
        assert_eq!(some, expected);
        assert_eq!(some.iter().map(|(_, _, verified)| *verified).collect::<Vec<_>>(), [false, true]);
    }
}
