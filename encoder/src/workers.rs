//! The threads that verify the procedures of a program ([`crate::run`]), each with one solver of
//! its own, and the solvers made ready ahead of need.
//!
//! A worker serves one job, procedures of one call that it verifies in order, and ends. Its
//! solver, and so for z3 the context of its thread, is new for the job: what a z3 context has met
//! steers its later searches, so an outcome is a function of the program, the limits and the seed
//! only if no two calls share one. Everything a job needs it owns, so the worker answers first and
//! frees its solver after: freeing a z3 context takes milliseconds that nobody waits for.
//!
//! Making a z3 context and solver costs some 12 ms (two 8 MiB hash tables written through at
//! creation, then z3's default tactic built at the first push), more than the checks of most
//! kernels take. [`prepare_up_to`] starts workers that pay it while the caller is still reading its
//! input; a call takes them in preference to new ones. A prepared worker does exactly what a new
//! one does first ([`Solver::prepare`]), only earlier, so its outcomes are the same. The workers of
//! a call take its jobs in the order given as each has its solver ready, so the first job (the
//! costliest, [`crate::run`]) goes to the first ready, whichever that is; which job a worker takes
//! changes no outcome, as every job's solver is new.

use crate::ivl::{Expr, Program};
use crate::run::{Backend, ProcedureOutcome};
use crate::smt::{Limits, Solver, SolverError};
use crate::vcgen;
use crate::verify::{self, Definition};
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// The stack of each worker: the verification condition is generated and translated by
/// recursion over expressions, whose depth grows with a kernel's contract (a permission on each of
/// a vector's cells nests its mask updates), and a thread's default 2 MiB overflowed in a debug
/// build. Memory is only taken as the stack grows.
const WORKER_STACK: usize = 256 << 20;

/// Makes the solver of a worker, in the worker's thread.
pub(crate) type NewSolver = Arc<dyn Fn() -> Box<dyn Solver> + Send + Sync>;

/// The procedures one worker verifies, with what it asks of each besides its checks.
pub(crate) struct Job {
    pub program: Arc<Program>,
    /// The positions, among the procedures with a body, of those this worker verifies, in order.
    pub procedures: Vec<usize>,
    /// For each of them: the expressions whose values a failure reports.
    pub requested: Vec<Vec<Expr>>,
    pub definitions: Arc<[Definition]>,
    pub probe: fn(&str) -> bool,
}

/// A job's outcomes, by the positions of its procedures.
type Answers = Vec<(usize, Result<ProcedureOutcome, SolverError>)>;

/// The jobs of a call, which its workers take from the front.
type Jobs = Arc<Mutex<VecDeque<Job>>>;

/// A worker waiting for its call, with its solver made.
pub(crate) struct Worker {
    calls: Sender<(Jobs, Sender<Answers>)>,
}

impl Worker {
    /// Starts a worker, which makes its solver at once.
    fn start(new_solver: NewSolver) -> Worker {
        let (calls, waiting) = mpsc::channel::<(Jobs, Sender<Answers>)>();
        std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let mut solver = new_solver();
                solver.prepare();
                // No call: the worker was prepared for a call that never came.
                let Ok((jobs, answer)) = waiting.recv() else { return };
                let job = jobs.lock().expect("no worker panicked taking a job").pop_front();
                let job = job.expect("a call starts one worker per job");
                // The caller may have stopped waiting (it panicked); the outcomes are dropped.
                let _ = answer.send(job.run(solver.as_mut()));
            })
            .expect("a worker thread starts");
        Worker { calls }
    }

    /// Sends the worker to take one of the call's `jobs`; the answers arrive on the receiver.
    fn join(self, jobs: &Jobs) -> Receiver<Answers> {
        let (answer, answers) = mpsc::channel();
        self.calls.send((jobs.clone(), answer)).expect("a worker waits for its call until it has one");
        answers
    }
}

impl Job {
    /// Verifies the job's procedures in order with `solver`.
    pub(crate) fn run(&self, solver: &mut dyn Solver) -> Answers {
        let procedures: Vec<&crate::ivl::Procedure> = crate::run::procedures(&self.program).collect();
        let generator = vcgen::Generator::of(&self.program);
        (self.procedures.iter().zip(&self.requested))
            .map(|(&index, requested)| {
                let procedure = procedures[index];
                let analysis = generator.analyse(procedure);
                let before = solver.resources_used();
                let outcomes = verify::procedure_in_parts(&analysis, solver, requested, &self.definitions, &self.probe);
                let resources = solver.resources_used().zip(before).map(|(after, before)| after - before);
                (
                    index,
                    outcomes.map(|outcomes| ProcedureOutcome {
                        procedure: procedure.name.clone(),
                        outcomes,
                        resources,
                    }),
                )
            })
            .collect()
    }
}

/// The workers prepared ([`prepare_up_to`]), with the backend and limits their solvers were made for.
static PREPARED: Mutex<Vec<(Backend, Limits, Worker)>> = Mutex::new(Vec::new());

/// Starts workers whose solvers are made now, for the calls to come with this backend and these
/// limits, so that `count` wait for them.
pub fn prepare_up_to(backend: Backend, limits: &Limits, new_solver: NewSolver, count: usize) {
    let mut prepared = PREPARED.lock().expect("no thread panicked holding the prepared workers");
    let waiting = prepared.iter().filter(|(b, l, _)| *b == backend && l == limits).count();
    let new = count.saturating_sub(waiting);
    prepared.extend((0..new).map(|_| (backend, limits.clone(), Worker::start(new_solver.clone()))));
}

/// Starts a worker for each job, a prepared one for this backend and limits where one waits, and
/// collects the outcomes in the procedures' order.
pub(crate) fn run(
    jobs: Vec<Job>,
    backend: Backend,
    limits: &Limits,
    new_solver: &NewSolver,
) -> Vec<Result<ProcedureOutcome, SolverError>> {
    let count: usize = jobs.iter().map(|job| job.procedures.len()).sum();
    let workers = jobs.len();
    let jobs: Jobs = Arc::new(Mutex::new(jobs.into()));
    let answers: Vec<Receiver<Answers>> = (0..workers)
        .map(|_| {
            let prepared = {
                let mut prepared = PREPARED.lock().expect("no thread panicked holding the prepared workers");
                let position = prepared.iter().position(|(b, l, _)| *b == backend && l == limits);
                position.map(|position| prepared.remove(position).2)
            };
            prepared.unwrap_or_else(|| Worker::start(new_solver.clone())).join(&jobs)
        })
        .collect();
    let mut results: Vec<Option<Result<ProcedureOutcome, SolverError>>> = (0..count).map(|_| None).collect();
    for answers in answers {
        for (index, result) in answers.recv().expect("a procedure's verification does not panic") {
            results[index] = Some(result);
        }
    }
    results.into_iter().map(|result| result.expect("every procedure was verified")).collect()
}

#[cfg(all(test, feature = "z3-native"))]
mod tests {
    use super::*;
    use crate::{ivl, run};

    /// How many prepared workers wait for calls with these limits.
    fn prepared_for(limits: &Limits) -> usize {
        PREPARED.lock().unwrap().iter().filter(|(_, prepared, _)| prepared == limits).count()
    }

    #[test]
    fn a_prepared_worker_is_taken_and_answers_as_a_new_one() {
        let program = ivl::parse::program(
            "procedure p(x: int) { assert x * x >= 0; assert x > 0; }
             procedure q(a: [int]int, i: int) { assume a[i] == 3; assert a[i] + 1 == 4; }
             procedure r(y: int) { assume y > 2; assert y * y > 4; assert y * y > 9; }",
        )
        .unwrap();
        // A seed no other test uses, so that only this test's workers are prepared for these limits.
        let limits = Limits { seed: 7_170_777, ..Limits::default() };
        let new = run::program(&program, Backend::Z3, &limits).unwrap();
        run::prepare(Backend::Z3, &limits);
        assert_eq!(prepared_for(&limits), run::WORKERS);
        let prepared = run::program(&program, Backend::Z3, &limits).unwrap();
        assert_eq!(prepared_for(&limits), 0, "the call took the prepared workers");
        assert_eq!(prepared, new, "the same outcomes, with the same solver work");
        assert!(new.iter().all(|outcome| outcome.resources.is_some_and(|work| work > 0)));
    }
}
