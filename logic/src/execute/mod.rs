//! Concrete execution of a kernel on one launch: the small-step semantics of Fig. 5.3 of the seed
//! (threads interleave freely between barriers; a group's threads wait at a barrier until all of
//! them have reached it), with the checks a run can make.
//!
//! A run reports the bugs it meets:
//! - a **data race**: two accesses of different threads to one location, at least one a write, in
//!   the same barrier interval of their group, or in different groups (which nothing orders), or
//!   separated only by barriers that do not fence the location's memory, when the later one writes:
//!   a write after another thread's write under the seed's memory model, after any access of it
//!   under OpenCL's (`--memory-model`, [`MemoryModel::conflict`]; DESIGN.md §4). Races are found
//!   from the accesses, whatever the permissions say;
//! - a **stale read**: a thread reads a cell another thread of its group wrote before a barrier, but
//!   no barrier since fences the cell's memory, so on a GPU the reader may see the old value (the
//!   wrong-fence bug, which the verifier reports as `barrier.functional`);
//! - **barrier divergence**: the threads of a group wait at different barriers, or some wait while
//!   others have finished;
//! - an access outside its array, a division by zero, a failed `assert`, a call that breaks a pure
//!   function's `requires`;
//! - a violated contract: barrier `requires` on arrival, barrier `ensures` after it, loop
//!   invariants before each test of the condition, thread `ensures` when all threads have finished;
//! - **permissions as ownership**: each thread holds what its precondition gives, then at each
//!   barrier what the barrier's `ensures` give (the seed's rule: a barrier takes all a thread holds).
//!   A read needs some permission, a write all of it (`access.read`, `access.write`); the threads
//!   may not claim more than all of a cell at the launch (`group.resources`, `kernel.resources`) nor
//!   a barrier hand out more than the group owns (`barrier.resources`); a contract's permissions
//!   must be held where it is checked. `read` is an amount as small as needed. A kernel that names
//!   no permission anywhere (no `Perm`, `perm` or `\forall*` in any contract, invariant or
//!   `assert`) is run as owning all memory in every thread: no permission is checked, and its
//!   races, stale reads and divergence are found from the accesses alone.
//!
//! A violated contract or assert does not stop the run: a race met later is the likelier cause,
//! and is reported instead. Any other bug stops it.
//!
//! Races do not depend on the schedule. If the run under one schedule has no race, the threads' steps
//! of any other schedule read the same values (the first read that differed would have to see a
//! write of another thread in the same barrier interval: a race in the first run), so every
//! schedule behaves alike; and a race in any schedule is a race in every one. So one schedule
//! decides a launch ([`Schedule::Canonical`]: each thread in turn runs to its next barrier), and
//! [`Outcome::interleavings`] counts the interleavings it stands for (`proofs/run.md`, R2 and R3).
//! Other schedules ([`Schedule::Random`], [`Schedule::Exhaustive`]) exist to show that in a run, and
//! to check it.
//!
//! A statement is one step: its reads and its write happen together. A finer interleaving could not
//! hide a race, which is a pair of accesses, not an order.

use crate::eval::{EvalError, Evaluator, Memo, Value};
use crate::fences::MemoryModel;
use crate::outline::{resources_written, Level as OutlineLevel};
use crate::{
    ArrayId, Assertion, AssertionKind, BarrierId, Builtin, Clause, ExprKind, Kernel, Memory, ObligationId, Program,
    Span, Stmt, StmtKind, VarId,
};
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

mod accesses;
mod interleavings;
mod schedule;
mod scope;

use accesses::{AccessLog, Conflict};
pub use interleavings::Interleavings;
use schedule::Runnable;
pub use schedule::SplitMix64;

pub use scope::Share;
use scope::{total, Claim, Failure, Level, Reads, View};

/// The steps a run may take (statements, over all threads) before it gives up: a kernel whose loop
/// never ends must not hang the run.
pub const MAX_STEPS: u64 = 5_000_000;
/// The steps one expression's evaluation may take (its function calls included).
const EXPRESSION_STEPS: u64 = 1_000_000;
/// The steps a run goes on for after a check failed, to see whether a race it caused follows
/// (which outranks it): enough for the rest of the barrier interval and the next in any small
/// launch, and far short of [`MAX_STEPS`], which a kernel whose failed check sends it into a loop
/// that never ends would otherwise take seconds to reach.
const STEPS_AFTER_A_FAILURE: usize = 100_000;

/// Where a kernel runs: its groups, their size, its parameters and its initial memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub groups: u32,
    pub gsize: u32,
    /// The shape of the groups and of each group along the axes: their products are `groups` and
    /// `gsize`.
    pub axes: Axes,
    /// One value per kernel parameter, in [`Kernel::params`] order.
    pub params: Vec<Value>,
    /// The initial contents of each array (indexed by [`ArrayId`]), of its size (see
    /// [`array_sizes`]). A local array starts with the same contents in every group.
    pub memory: Vec<Vec<BigInt>>,
}

/// The extents of a launch along the axes `x`, `y` and `z`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axes {
    pub groups: [u32; 3],
    pub gsize: [u32; 3],
}

impl Axes {
    /// A launch of one dimension.
    pub fn linear(groups: u32, gsize: u32) -> Axes {
        Axes { groups: [groups, 1, 1], gsize: [gsize, 1, 1] }
    }
}

impl Launch {
    /// The threads of the launch (saturating: a launch that large cannot be run anyway).
    pub fn tcount(&self) -> u32 {
        self.groups.saturating_mul(self.gsize)
    }
}

/// The order in which threads take steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Each thread in turn (by `tid`) runs until it waits at a barrier or ends; then the barriers
    /// open. It decides the launch (see the module documentation).
    Canonical,
    /// The canonical schedule, except that the threads `first` (by `tid`, in this order) take their
    /// turns before the others, in each round and in every check of all threads: where several
    /// threads fail alike, the run meets the failure of these. A replay uses it to look for the
    /// failure of its counterexample's threads.
    Favouring { first: Vec<u32> },
    /// At each step, a thread drawn at random among those that can run.
    Random { seed: u64 },
    /// Every interleaving of the threads' steps, up to `limit` complete runs.
    Exhaustive { limit: u64 },
}

/// One thread's ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadIds {
    pub tid: u32,
    pub gid: u32,
    pub lid: u32,
}

/// A location of memory: a local array's cells are one per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub array: ArrayId,
    /// The group whose copy of a local array this is; `None` for a global array.
    pub group: Option<u32>,
    pub index: usize,
}

/// One access to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub thread: ThreadIds,
    pub write: bool,
    pub span: Span,
    /// How many barriers the thread's group had passed.
    pub interval: u32,
    /// The last of them, which opened the access's barrier interval (`None` before the first).
    pub after: Option<BarrierId>,
    /// How many of them fence the location's memory.
    fenced: u32,
}

/// What a run found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bug {
    /// Two accesses of different threads, at least one a write, that nothing orders: in one
    /// barrier interval, in different groups, or (`first` before `second`) separated only by
    /// barriers that do not fence the location's memory, where the memory model says such accesses
    /// conflict ([`MemoryModel::conflict`]).
    Race { location: Location, first: Access, second: Access },
    /// A read (`read`) of a cell another thread of the group wrote (`write`) before a barrier, with
    /// no barrier since that fences the cell's memory.
    StaleRead { location: Location, write: Access, read: Access },
    /// Threads of a group at different barriers (`waiting`), or some waiting while others have
    /// finished.
    Divergence { group: u32, waiting: Vec<(ThreadIds, BarrierId, Span)>, finished: Vec<ThreadIds> },
    /// A check failed in one thread: the obligation it breaks, where, and what happened.
    Failed { obligation: ObligationId, thread: ThreadIds, span: Span, detail: String },
}

/// Why a launch could not be run to the end: not a bug of the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The launch breaks the kernel's precondition (or a size is negative): the kernel promises
    /// nothing for it.
    Precondition { thread: Option<ThreadIds>, span: Span, detail: String },
    /// More steps than [`MAX_STEPS`], an expression beyond the evaluator's reach (see
    /// [`beyond_reach`]; `span` is the expression or clause), or too many schedules.
    GaveUp { detail: String, span: Option<Span> },
    /// `assume` was false: the run ends without a verdict on what follows.
    Assumed { thread: ThreadIds, span: Span },
    /// The launch does not fit the kernel (parameter count, memory sizes).
    Mismatch { detail: String },
}

/// The result of running a launch under a schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The first bug met, with the steps taken up to it (as the tids of the threads that took
    /// them, in order).
    pub bug: Option<(Bug, Vec<u32>)>,
    /// Complete runs explored: one except for [`Schedule::Exhaustive`].
    pub schedules: u64,
    /// How many interleavings of the threads' steps the run stands for: those that take, in each
    /// barrier interval, the same steps in any order. Meaningful when no bug was found.
    pub interleavings: Interleavings,
    /// The memory at the end (global arrays; local arrays of group 0), when no bug was found.
    pub memory: Vec<Vec<BigInt>>,
}

/// The number of cells of each array under a launch.
pub fn array_sizes(program: &Program, kernel: &Kernel, launch: &Launch) -> Result<Vec<usize>, RunError> {
    let scope = LaunchScope { kernel, launch };
    kernel
        .arrays
        .iter()
        .map(|array| {
            let evaluator = Evaluator::new(&program.functions, EXPRESSION_STEPS);
            let size = evaluator.expr(&array.size, &scope).map_err(|error| {
                if beyond_reach(&error) {
                    return unevaluated(&error, array.span, &format!("the size of `{}`", array.name));
                }
                RunError::Precondition {
                    thread: None,
                    span: array.span,
                    detail: format!("the size of `{}` has no value: {}", array.name, describe(&error)),
                }
            })?;
            match size {
                Value::Int(size) => size.to_usize().ok_or_else(|| RunError::Precondition {
                    thread: None,
                    span: array.span,
                    detail: format!("`{}` would have {size} cells", array.name),
                }),
                Value::Bool(_) => Err(RunError::Mismatch { detail: format!("the size of `{}` is no int", array.name) }),
            }
        })
        .collect()
}

/// Sets each parameter not `given` that a thread precondition pins with an equation `p == e` (a
/// conjunct at the top of a clause, `e` over the sizes and other parameters) to the value of `e`.
pub fn satisfy_parameter_equations(
    program: &Program,
    kernel: &Kernel,
    launch: &mut Launch,
    given: &[bool],
) -> Result<(), RunError> {
    let mut facts: Vec<&crate::Expr> = Vec::new();
    let mut pending: Vec<&Assertion> = kernel.thread_contract.requires.iter().map(|clause| &clause.assertion).collect();
    while let Some(assertion) = pending.pop() {
        match &assertion.kind {
            AssertionKind::Star(left, right) => pending.extend([left.as_ref(), right.as_ref()]),
            AssertionKind::Pure(fact) => facts.push(fact),
            _ => {}
        }
    }
    // Clauses in source order; within a fact, its equations last to first.
    for (lhs, rhs) in facts.into_iter().rev().flat_map(|fact| equations(fact).into_iter().rev()) {
        for (side, value) in [(lhs, rhs), (rhs, lhs)] {
            let ExprKind::Var(var) = side.kind else { continue };
            let Some(position) = kernel.params.iter().position(|param| *param == var) else { continue };
            if given[position] {
                continue;
            }
            let evaluated =
                Evaluator::new(&program.functions, EXPRESSION_STEPS).expr(value, &LaunchScope { kernel, launch });
            match evaluated {
                Ok(value) => {
                    launch.params[position] = value;
                    break;
                }
                Err(error) if beyond_reach(&error) => return Err(unevaluated(&error, value.span, "this equation")),
                // `e` may need a parameter not pinned yet, or the equation pins the other side.
                Err(_) => {}
            }
        }
    }
    Ok(())
}

/// The equations `lhs == rhs` among the conjuncts (`&&`) of a fact, in order.
fn equations(fact: &crate::Expr) -> Vec<(&crate::Expr, &crate::Expr)> {
    let ExprKind::Binary { op, lhs, rhs } = &fact.kind else { return Vec::new() };
    match op {
        crate::BinaryOp::And => equations(lhs).into_iter().chain(equations(rhs)).collect(),
        crate::BinaryOp::Eq => vec![(lhs.as_ref(), rhs.as_ref())],
        _ => Vec::new(),
    }
}

/// Sets the cells that the thread preconditions pin with an equation `a[i] == e` (at the top of a
/// clause, under a true guard, or in a `\forall*`) to the value they must have, so that a launch
/// with arbitrary memory meets them. Equations are taken in thread order, clause order.
pub fn satisfy_memory_equations(program: &Program, kernel: &Kernel, launch: &mut Launch) -> Result<(), RunError> {
    let sizes = array_sizes(program, kernel, launch)?;
    check_memory(kernel, launch, &sizes)?;
    let mut machine = Machine::new(program, kernel, launch.clone(), MemoryModel::default());
    for thread in 0..machine.threads.len() {
        for clause in &kernel.thread_contract.requires {
            machine.pin(thread, clause)?;
        }
    }
    launch.memory = machine.memory.seen_by(kernel, 0);
    Ok(())
}

/// Runs a launch under a schedule; the memory model says which accesses a barrier that does not
/// fence their memory leaves unordered.
pub fn run(
    program: &Program,
    kernel: &Kernel,
    launch: &Launch,
    schedule: &Schedule,
    memory_model: MemoryModel,
) -> Result<Outcome, RunError> {
    let sizes = array_sizes(program, kernel, launch)?;
    check_memory(kernel, launch, &sizes)?;
    let mut machine = Machine::new(program, kernel, launch.clone(), memory_model);
    if let Schedule::Favouring { first } = schedule {
        machine.favour(first);
    }
    machine.check_preconditions()?;
    machine.distribute()?;
    match schedule {
        Schedule::Canonical | Schedule::Favouring { .. } => machine.run_canonical(),
        Schedule::Random { seed } => machine.run_random(*seed),
        Schedule::Exhaustive { limit } => machine.run_exhaustive(*limit),
    }
}

fn check_memory(kernel: &Kernel, launch: &Launch, sizes: &[usize]) -> Result<(), RunError> {
    if launch.memory.len() != kernel.arrays.len() {
        return Err(RunError::Mismatch { detail: "the launch gives memory for a different number of arrays".into() });
    }
    if launch.params.len() != kernel.params.len() {
        return Err(RunError::Mismatch {
            detail: format!(
                "the kernel has {} parameters, the launch gives {}",
                kernel.params.len(),
                launch.params.len()
            ),
        });
    }
    for ((array, cells), size) in kernel.arrays.iter().zip(&launch.memory).zip(sizes) {
        if cells.len() != *size {
            return Err(RunError::Mismatch {
                detail: format!("`{}` has {size} cells, the launch gives {}", array.name, cells.len()),
            });
        }
    }
    Ok(())
}

/// Whether an evaluation error is a limit of the evaluator rather than a fault of the kernel: the
/// expression has a value in the logic, which the run could not compute (within its budget of
/// steps, or over a quantifier's range with no finite bounds). The run then ends without a verdict
/// ([`RunError::GaveUp`]), wherever the expression is: code, contracts, pinned equations.
fn beyond_reach(error: &EvalError) -> bool {
    matches!(error, EvalError::OutOfSteps | EvalError::UnboundedQuantifier { .. } | EvalError::TooLarge { .. })
}

/// The run gives up on `what` (at `span`), beyond the evaluator's reach.
fn unevaluated(error: &EvalError, span: Span, what: &str) -> RunError {
    RunError::GaveUp { detail: format!("cannot evaluate {what}: {}", describe(error)), span: Some(span) }
}

/// The words of an evaluation error, for a diagnostic.
pub fn describe(error: &EvalError) -> String {
    match error {
        EvalError::DivisionByZero { .. } => "a division by zero".into(),
        EvalError::Overflow { value, int, .. } => {
            format!("an overflow of `{}` (the exact result is {value})", int.name())
        }
        EvalError::PreconditionFailed { .. } => "a call breaks the function's precondition".into(),
        EvalError::PostconditionFailed { .. } => "a call's value breaks the function's postcondition".into(),
        EvalError::OutOfSteps => format!("the evaluation took more than {EXPRESSION_STEPS} steps"),
        EvalError::UnboundedQuantifier { .. } => "a quantifier whose range has no finite bounds".into(),
        EvalError::TooLarge { .. } => format!("a value of more than {} bits", crate::eval::MAX_VALUE_BITS),
        EvalError::OutOfBounds { index, size, .. } => format!("index {index} lies outside the array's {size} cells"),
        EvalError::OutsidePrivateArray { index, length, .. } => {
            format!("index {index} lies outside the private array's {length} cells")
        }
        EvalError::NonPositiveAmount { divisor, .. } => format!("the permission amount divides by {divisor}"),
        EvalError::Unavailable { what, .. } => format!("{what} has no value here"),
        EvalError::IllTyped { .. } => "an operand of the wrong type".into(),
    }
}

/// The scope of array sizes: the launch's sizes and parameters.
struct LaunchScope<'a> {
    kernel: &'a Kernel,
    launch: &'a Launch,
}

impl crate::eval::Env for LaunchScope<'_> {
    fn builtin(&self, builtin: Builtin, span: Span) -> Result<Value, EvalError> {
        match builtin {
            Builtin::Gsize => Ok(Value::int(self.launch.gsize)),
            Builtin::Tcount => Ok(Value::int(self.launch.tcount())),
            Builtin::GroupSize(axis) => Ok(Value::int(self.launch.axes.gsize[axis as usize])),
            Builtin::Groups(axis) => Ok(Value::int(self.launch.axes.groups[axis as usize])),
            _ => Err(EvalError::Unavailable { span, what: format!("`{}`", builtin.name()) }),
        }
    }

    fn var(&self, var: VarId, span: Span) -> Result<Value, EvalError> {
        match self.kernel.params.iter().position(|param| *param == var) {
            Some(position) => Ok(self.launch.params[position].clone()),
            None => Err(EvalError::Unavailable { span, what: format!("`{}`", self.kernel.var(var).name) }),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Running,
    Waiting(BarrierId, Span),
    Finished,
}

/// What a thread has left to do, innermost last.
#[derive(Clone, Debug)]
enum Frame<'k> {
    Block {
        stmts: &'k [Stmt],
        next: usize,
    },
    /// A loop whose condition is to be tested next; `entered` once the body has run.
    Loop {
        stmt: &'k Stmt,
        entered: bool,
    },
}

#[derive(Clone, Debug)]
struct Thread<'k> {
    ids: ThreadIds,
    /// The values of the kernel's variables (parameters and privates), by [`VarId`].
    vars: Vec<Option<Value>>,
    frames: Vec<Frame<'k>>,
    state: State,
}

/// The memory of a launch.
#[derive(Clone, Debug)]
struct Store {
    /// By array; a local array's entry is unused.
    global: Vec<Vec<BigInt>>,
    /// By group, then array; a global array's entry is unused.
    local: Vec<Vec<Vec<BigInt>>>,
}

impl Store {
    /// The memory of a launch: each array's initial contents, a local array's once per group.
    fn new(kernel: &Kernel, launch: &Launch) -> Store {
        let of = |memory: Memory| -> Vec<Vec<BigInt>> {
            kernel
                .arrays
                .iter()
                .zip(&launch.memory)
                .map(|(array, cells)| if array.memory == memory { cells.clone() } else { Vec::new() })
                .collect()
        };
        Store { global: of(Memory::Global), local: vec![of(Memory::Local); launch.groups as usize] }
    }

    /// Every array's contents as one group sees them (global arrays, and the group's local ones).
    fn seen_by(&self, kernel: &Kernel, group: u32) -> Vec<Vec<BigInt>> {
        (0..kernel.arrays.len()).map(|array| self.cells(kernel, ArrayId(array as u32), group).to_vec()).collect()
    }

    fn cells(&self, kernel: &Kernel, array: ArrayId, group: u32) -> &[BigInt] {
        match kernel.array(array).memory {
            Memory::Global => &self.global[array.index()],
            Memory::Local => &self.local[group as usize][array.index()],
        }
    }
}

/// Barriers passed by a group: all of them, and those fencing each memory; the last one.
#[derive(Clone, Copy, Debug, Default)]
struct Intervals {
    all: u32,
    local: u32,
    global: u32,
    last: Option<BarrierId>,
}

#[derive(Clone)]
struct Machine<'k> {
    program: &'k Program,
    kernel: &'k Kernel,
    launch: Launch,
    memory_model: MemoryModel,
    memory: Store,
    initial: Store,
    threads: Vec<Thread<'k>>,
    /// The threads whose state is [`State::Running`].
    runnable: Runnable,
    /// The order in which the canonical schedule and the checks of all threads take the threads
    /// (by index): by `tid`, unless a schedule favours some.
    order: Vec<usize>,
    /// The groups in the order their first threads come in `order`, and each group's threads in
    /// `order`: set with `order` ([`Machine::arrange`]), read at every barrier.
    group_order: Vec<u32>,
    members: Vec<Vec<usize>>,
    intervals: Vec<Intervals>,
    /// The accesses to each location so far.
    accesses: AccessLog,
    /// The first contract or assert that failed, with the steps up to it.
    failure: Option<(Bug, Vec<u32>)>,
    /// The permissions each thread holds.
    held: Vec<HashMap<Location, Share>>,
    /// The kernel names no permission anywhere: every thread owns all memory, and only the
    /// accesses themselves are checked (races, stale reads, bounds).
    owns_everything: bool,
    /// The global permissions each group owns: what its threads' preconditions claim.
    owned: Vec<HashMap<Location, Share>>,
    /// The tids of the threads that took the steps so far.
    steps: Vec<u32>,
    /// Per group: the steps of each thread in the current barrier interval, and the steps before
    /// it.
    interval_steps: Vec<Vec<u64>>,
    group_steps: Vec<u64>,
    /// The interleavings of the groups' barrier intervals before their current ones.
    interleavings: Interleavings,
    /// The values of pure function calls, for every expression of the run (and of its copies:
    /// the functions are pure, so a value holds for the whole program).
    memo: Rc<Memo>,
    /// The values the counters' increments ([`crate::ExprKind::Ticket`]) have returned.
    tickets: RefCell<Tickets>,
}

/// The increments of counters a run has made: each a value of its own, handed out in the order
/// the threads evaluate them, counting up from the cell's value (which nothing else changes while
/// they run), as the atomic operations would in that order.
#[derive(Clone, Debug, Default)]
struct Tickets {
    /// How many increments each counter cell (by group, for local memory) has had.
    made: HashMap<Location, u64>,
    /// The value each thread's increment got, by thread, counter cell and site: evaluated again,
    /// it is the same.
    given: HashMap<(usize, Location, u32), BigInt>,
}

/// Who claims the permissions [`Machine::overclaim`] adds up: threads, or a level's resources.
#[derive(Clone, Copy)]
enum Claimants {
    Threads,
    Level(&'static str),
}

/// Why a step stopped the run.
enum Stop {
    /// Boxed: a bug is large and stops a run only once.
    Bug(Box<Bug>),
    Error(RunError),
}

impl From<RunError> for Stop {
    fn from(error: RunError) -> Stop {
        Stop::Error(error)
    }
}

impl<'k> Machine<'k> {
    fn new(program: &'k Program, kernel: &'k Kernel, launch: Launch, memory_model: MemoryModel) -> Self {
        let memory = Store::new(kernel, &launch);
        let mut threads = Vec::new();
        for gid in 0..launch.groups {
            for lid in 0..launch.gsize {
                let mut vars = vec![None; kernel.vars.len()];
                for (param, value) in kernel.params.iter().zip(&launch.params) {
                    vars[param.index()] = Some(value.clone());
                }
                threads.push(Thread {
                    ids: ThreadIds { tid: gid * launch.gsize + lid, gid, lid },
                    vars,
                    frames: vec![Frame::Block { stmts: &kernel.body.stmts, next: 0 }],
                    state: State::Running,
                });
            }
        }
        let groups = launch.groups as usize;
        let gsize = launch.gsize as usize;
        let count = threads.len();
        let mut machine = Machine {
            program,
            kernel,
            initial: memory.clone(),
            memory,
            order: Vec::new(),
            group_order: Vec::new(),
            members: Vec::new(),
            threads,
            runnable: Runnable::all(groups, gsize),
            intervals: vec![Intervals::default(); groups],
            accesses: AccessLog::new(kernel.arrays.iter().zip(&launch.memory).map(|(array, cells)| {
                let copies = if array.memory == Memory::Local { groups } else { 1 };
                (cells.len(), copies)
            })),
            failure: None,
            held: vec![HashMap::new(); groups * gsize],
            owns_everything: !kernel.has_permissions(),
            owned: vec![HashMap::new(); groups],
            steps: Vec::new(),
            interval_steps: vec![vec![0; gsize]; groups],
            group_steps: vec![0; groups],
            interleavings: Interleavings::default(),
            memo: Rc::default(),
            tickets: RefCell::default(),
            launch,
            memory_model,
        };
        machine.arrange((0..count).collect());
        machine
    }

    /// Takes the threads in `order` from now on, and the groups in the order of their first threads.
    fn arrange(&mut self, order: Vec<usize>) {
        let mut seen = vec![false; self.launch.groups as usize];
        self.group_order.clear();
        self.members = vec![Vec::new(); self.launch.groups as usize];
        for &thread in &order {
            let group = self.ids(thread).gid;
            if !std::mem::replace(&mut seen[group as usize], true) {
                self.group_order.push(group);
            }
            self.members[group as usize].push(thread);
        }
        self.order = order;
    }

    /// Puts the threads `first` (by `tid`; those the launch has) ahead of the others in `order`,
    /// then the rest of their groups: a race of a favoured thread is with a thread of its group.
    fn favour(&mut self, first: &[u32]) {
        let mut order: Vec<usize> = Vec::new();
        for thread in first.iter().map(|&tid| tid as usize).filter(|&thread| thread < self.threads.len()) {
            if !order.contains(&thread) {
                order.push(thread);
            }
        }
        let groups: Vec<u32> = order.iter().map(|&thread| self.ids(thread).gid).collect();
        let (in_groups, rest): (Vec<usize>, Vec<usize>) = self
            .order
            .iter()
            .copied()
            .filter(|thread| !order.contains(thread))
            .partition(|&thread| groups.contains(&self.ids(thread).gid));
        order.extend(in_groups);
        order.extend(rest);
        self.arrange(order);
    }

    fn evaluator(&self) -> Evaluator<'k> {
        Evaluator::sharing(&self.program.functions, EXPRESSION_STEPS, Rc::clone(&self.memo))
    }

    /// The scope of an expression of thread `thread`; `reads` collects the memory it reads, for
    /// code (contracts read without being accesses).
    fn view<'a>(&'a self, thread: usize, reads: Option<&'a Reads>) -> View<'a, 'k> {
        let bound = Rc::new(RefCell::new(Vec::new()));
        // `\old` reads the initial memory; it is no access (the cells were written before the launch).
        let old = View {
            machine: self,
            thread,
            reads: None,
            bound: Rc::clone(&bound),
            old: None,
            level: Level::Thread,
            claimed: Cell::new(0),
        };
        View {
            machine: self,
            thread,
            reads,
            bound,
            old: Some(Box::new(old)),
            level: Level::Thread,
            claimed: Cell::new(0),
        }
    }

    fn ids(&self, thread: usize) -> ThreadIds {
        self.threads[thread].ids
    }

    /// Evaluates code of a thread, recording its reads as accesses.
    fn code(&mut self, thread: usize, expr: &crate::Expr) -> Result<Value, Stop> {
        let reads = RefCell::new(Vec::new());
        let value = self.evaluator().expr(expr, &self.view(thread, Some(&reads)));
        let value = value.map_err(|error| self.evaluation_bug(thread, expr.span, error))?;
        for (array, index, span, _) in reads.into_inner() {
            self.access(thread, array, index, false, span)?;
        }
        Ok(value)
    }

    /// What an error met evaluating the expression at `at` in a thread's code means for the run.
    fn evaluation_bug(&self, thread: usize, at: Span, error: EvalError) -> Stop {
        if beyond_reach(&error) {
            let what = format!("this expression in thread {}", self.ids(thread).tid);
            return Stop::Error(unevaluated(&error, at, &what));
        }
        let thread = self.ids(thread);
        let failed =
            |obligation, span, detail: String| Stop::Bug(Box::new(Bug::Failed { obligation, thread, span, detail }));
        match error {
            EvalError::DivisionByZero { span } => failed(ObligationId::DivisionByZero, span, "divides by zero".into()),
            EvalError::Overflow { value, int, span } => failed(
                ObligationId::ArithOverflow,
                span,
                format!("overflows `{}`: the exact result {value} lies outside its range", int.name()),
            ),
            EvalError::PreconditionFailed { function, call, .. } => failed(
                ObligationId::CallPre,
                call,
                format!("this call breaks the precondition of `{}`", self.program.functions[function.index()].name),
            ),
            EvalError::PostconditionFailed { function, promise, .. } => failed(
                ObligationId::FunctionPost,
                promise,
                format!(
                    "a call of `{}` returns a value this postcondition rules out",
                    self.program.functions[function.index()].name
                ),
            ),
            EvalError::OutOfBounds { array, index, size, span } => failed(
                ObligationId::AccessBounds,
                span,
                format!("reads `{}[{index}]`, outside its {size} cells", self.kernel.array(array).name),
            ),
            EvalError::OutsidePrivateArray { length: 0, span, .. } => {
                failed(ObligationId::AccessBounds, span, "accesses memory through a null pointer".into())
            }
            EvalError::OutsidePrivateArray { index, length, span } => failed(
                ObligationId::AccessBounds,
                span,
                format!("indexes cell {index} of a private array of {length} cells"),
            ),
            other => Stop::Error(RunError::GaveUp { detail: describe(&other), span: None }),
        }
    }

    /// Records an access, and reports a race with an earlier one.
    fn access(&mut self, thread: usize, array: ArrayId, index: usize, write: bool, span: Span) -> Result<(), Stop> {
        let ids = self.ids(thread);
        let memory = self.kernel.array(array).memory;
        let intervals = self.intervals[ids.gid as usize];
        let fenced = match memory {
            Memory::Local => intervals.local,
            Memory::Global => intervals.global,
        };
        let location = Location { array, group: (memory == Memory::Local).then_some(ids.gid), index };
        self.permitted(thread, location, write, span);
        let access = Access { thread: ids, write, span, interval: intervals.all, after: intervals.last, fenced };
        match self.accesses.record(location, access, self.memory_model) {
            Some(Conflict::Race(first)) => Err(Stop::Bug(Box::new(Bug::Race { location, first, second: access }))),
            Some(Conflict::StaleRead(write)) => {
                Err(Stop::Bug(Box::new(Bug::StaleRead { location, write, read: access })))
            }
            None => Ok(()),
        }
    }

    /// The launch meets the outermost precondition written (the kernel's, else the groups', else
    /// the threads'), or it is refused; the inner levels' preconditions must then follow from it,
    /// or the contract that should give them fails (`kernel.pre`, `group.pre`).
    fn check_preconditions(&mut self) -> Result<(), RunError> {
        let kernel = self.kernel;
        let levels = [
            (
                Level::Kernel,
                kernel.kernel_contract.as_ref().map(|contract| &contract.requires),
                ObligationId::KernelPre,
            ),
            (Level::Group, kernel.group_contract.as_ref().map(|contract| &contract.requires), ObligationId::GroupPre),
            (Level::Thread, Some(&kernel.thread_contract.requires), ObligationId::GroupPre),
        ];
        // The obligation of the innermost written level above: what breaks when a level's
        // precondition does not follow from it.
        let mut outer: Option<ObligationId> = None;
        for (level, clauses, obligation) in levels {
            let Some(clauses) = clauses else { continue };
            if let Some((thread, span, detail)) = self.level_failures(level, clauses, true)?.into_iter().next() {
                match outer {
                    None => {
                        let whom = self.whom(level, thread);
                        return Err(RunError::Precondition {
                            thread: (level == Level::Thread).then(|| self.ids(thread)),
                            span,
                            detail: format!("this precondition {detail}{whom}"),
                        });
                    }
                    Some(outer) => {
                        let detail = format!("this precondition {detail}, though the launch meets the one above it");
                        self.fail(Bug::Failed { obligation: outer, thread: self.ids(thread), span, detail });
                        return Ok(());
                    }
                }
            }
            outer = Some(if level == Level::Kernel { ObligationId::KernelPre } else { obligation });
        }
        Ok(())
    }

    /// Where a level's clause is checked by `thread` (its representative above the thread level),
    /// in words: ` in group 1`, ` in thread 5`, or nothing for the kernel.
    fn whom(&self, level: Level, thread: usize) -> String {
        match level {
            Level::Kernel => String::new(),
            Level::Group => format!(" in group {}", self.ids(thread).gid),
            Level::Thread => format!(" in thread {}", self.ids(thread).tid),
        }
    }

    /// The threads (one per group, or one in all, above the thread level) where the pure facts of
    /// a level's clauses fail: the thread, the place and what went wrong.
    ///
    /// A cell outside its array is the kernel's bug: in a precondition `distribute` reports it
    /// (`access.bounds`), in a postcondition it is the postcondition's failure.
    fn level_failures(
        &self,
        level: Level,
        clauses: &[Clause],
        precondition: bool,
    ) -> Result<Vec<(usize, Span, String)>, RunError> {
        let representatives: Vec<usize> = match level {
            Level::Kernel => vec![0],
            Level::Group => self.group_order.iter().map(|&group| self.members[group as usize][0]).collect(),
            Level::Thread => self.order.clone(),
        };
        let mut failures = Vec::new();
        for thread in representatives {
            let view = View { level, ..self.view(thread, None) };
            for clause in clauses {
                let failure = match view.assertion(&self.evaluator(), &clause.assertion, &mut Vec::new()) {
                    Ok(()) => continue,
                    Err(Failure::False(span)) => (thread, span, "is false".to_string()),
                    Err(Failure::Error(EvalError::OutOfBounds { .. })) if precondition => continue,
                    Err(Failure::Error(error)) if beyond_reach(&error) => {
                        let what = format!("this clause{}", self.whom(level, thread));
                        return Err(unevaluated(&error, clause.span, &what));
                    }
                    Err(Failure::Error(error)) => (thread, clause.span, format!("has no value ({})", describe(&error))),
                };
                failures.push(failure);
                break;
            }
        }
        Ok(failures)
    }

    /// Checks the pure facts of contract clauses in a thread, as the obligation `obligation`, and
    /// gathers their permissions. A failure is recorded (the first one is kept) and the run goes on;
    /// a clause beyond the evaluator's reach ends it.
    ///
    /// Every cell the clauses read must be covered by a permission (`frame`): one they name, or,
    /// with `framed_by_held`, one the thread holds.
    fn gather(
        &mut self,
        thread: usize,
        level: Level,
        clauses: &[Clause],
        obligation: ObligationId,
        framed_by_held: bool,
    ) -> Result<Vec<Claim>, RunError> {
        let mut claims = Vec::new();
        for clause in clauses {
            let reads = RefCell::new(Vec::new());
            let gathered = {
                let view = View { level, ..self.view(thread, Some(&reads)) };
                let mut more = Vec::new();
                view.assertion(&self.evaluator(), &clause.assertion, &mut more).map(|()| more)
            };
            let earlier = claims.len();
            match gathered {
                Ok(mut more) => claims.append(&mut more),
                Err(Failure::Error(error)) if beyond_reach(&error) => {
                    let what = format!("this clause in thread {}", self.ids(thread).tid);
                    return Err(unevaluated(&error, clause.span, &what));
                }
                Err(failure) => {
                    let (obligation, span, detail) = match failure {
                        Failure::False(span) => (obligation, span, "this fact is false".to_string()),
                        // A permission or a read outside its array.
                        Failure::Error(error @ EvalError::OutOfBounds { span, .. }) => {
                            (ObligationId::AccessBounds, span, describe(&error))
                        }
                        Failure::Error(error @ EvalError::NonPositiveAmount { span, .. }) => {
                            (ObligationId::AmountPositive, span, describe(&error))
                        }
                        Failure::Error(error) => {
                            (obligation, clause.span, format!("this clause has no value: {}", describe(&error)))
                        }
                    };
                    self.fail(Bug::Failed { obligation, thread: self.ids(thread), span, detail });
                    return Ok(claims);
                }
            }
            // Read left to right: a read may use what the clause names before it, or an earlier
            // clause.
            let reads = reads.into_inner();
            if let Some((location, span)) = self.unframed(thread, &reads, &claims, earlier, framed_by_held) {
                let detail = format!("this reads `{}` without any permission to it", self.cell_name(location));
                self.fail(Bug::Failed { obligation: ObligationId::Frame, thread: self.ids(thread), span, detail });
                return Ok(claims);
            }
        }
        Ok(claims)
    }

    /// The first read no permission covers: none named before it (the first `earlier` of `claims`,
    /// from earlier clauses, and as many of the rest as the read records), nor (with
    /// `framed_by_held`) one the thread holds.
    fn unframed(
        &self,
        thread: usize,
        reads: &[(ArrayId, usize, Span, usize)],
        claims: &[Claim],
        earlier: usize,
        framed_by_held: bool,
    ) -> Option<(Location, Span)> {
        if self.owns_everything {
            return None;
        }
        let gid = self.ids(thread).gid;
        reads.iter().find_map(|&(array, index, span, before)| {
            let local = self.kernel.array(array).memory == Memory::Local;
            let location = Location { array, group: local.then_some(gid), index };
            let visible = &claims[..(earlier + before).min(claims.len())];
            let named = visible.iter().any(|claim| claim.location == location && claim.share.is_positive());
            let held = framed_by_held && self.held[thread].get(&location).is_some_and(Share::is_positive);
            (!named && !held).then_some((location, span))
        })
    }

    /// Checks contract clauses in a thread: their pure facts, and that the thread holds their
    /// permissions.
    fn check(&mut self, thread: usize, clauses: &[Clause], obligation: ObligationId) -> Result<(), RunError> {
        let claims = self.gather(thread, Level::Thread, clauses, obligation, true)?;
        for (location, needed) in total(&claims) {
            let held = self.held[thread].get(&location).cloned().unwrap_or_default();
            if !needed.fits_in(&held) {
                let span =
                    claims.iter().find(|claim| claim.location == location).map_or(Span::default(), |claim| claim.span);
                let detail =
                    format!("this needs {needed} of `{}`, and the thread holds {held}", self.cell_name(location));
                self.fail(Bug::Failed { obligation, thread: self.ids(thread), span, detail });
                return Ok(());
            }
        }
        Ok(())
    }

    fn cell_name(&self, location: Location) -> String {
        format!("{}[{}]", self.kernel.array(location.array).name, location.index)
    }

    /// Gives each thread the permissions of its precondition, and checks that every level's
    /// resources fit in the level's above (E15): a written `K_res` in all of memory, the groups'
    /// written `G_res` in `K_res` (or all of memory), and the threads' claims in their group's
    /// `G_res` where written, else (across the kernel) in `K_res` or all of memory. What a group
    /// owns of global memory is its written `G_res`, else what its threads claim.
    fn distribute(&mut self) -> Result<(), RunError> {
        let kernel = self.kernel;
        let representatives: Vec<usize> = (0..self.members.len()).map(|group| self.members[group][0]).collect();
        let kernel_written = resources_written(kernel, OutlineLevel::Kernel);
        let group_written = resources_written(kernel, OutlineLevel::Group);
        let mut kernel_owned = None;
        if kernel_written {
            let clauses = &kernel.kernel_contract.as_ref().expect("written").requires;
            let claims =
                self.gather(representatives[0], Level::Kernel, clauses, ObligationId::KernelResources, false)?;
            let claimed =
                claims.iter().map(|claim| (claim.location, (representatives[0], claim.share.clone(), claim.span)));
            let whose = Claimants::Level("the kernel's resources");
            self.overclaimed(claimed, |_| Share::full(), ObligationId::KernelResources, whose, "");
            kernel_owned = Some(total(&claims));
        }
        let in_kernel = |location: &Location| match &kernel_owned {
            Some(owned) => owned.get(location).cloned().unwrap_or_default(),
            None => Share::full(),
        };
        if group_written {
            let clauses = &kernel.group_contract.as_ref().expect("written").requires;
            let mut claimed = Vec::new();
            for (group, &representative) in representatives.iter().enumerate() {
                let claims =
                    self.gather(representative, Level::Group, clauses, ObligationId::KernelResources, false)?;
                claimed.extend(
                    claims.iter().map(|claim| (claim.location, (representative, claim.share.clone(), claim.span))),
                );
                self.owned[group] = total(&claims);
            }
            let whose = Claimants::Level("the groups' resources");
            self.overclaimed(
                claimed.into_iter(),
                in_kernel,
                ObligationId::KernelResources,
                whose,
                "the kernel's resources",
            );
        }
        let mut claimed: Vec<(Location, (usize, Share, Span))> = Vec::new();
        for thread in self.order.clone() {
            let claims = self.gather(
                thread,
                Level::Thread,
                &self.kernel.thread_contract.requires,
                ObligationId::KernelResources,
                false,
            )?;
            claimed.extend(claims.iter().map(|claim| (claim.location, (thread, claim.share.clone(), claim.span))));
            self.held[thread] = total(&claims);
            let group = self.ids(thread).gid as usize;
            if group_written {
                continue;
            }
            for (location, share) in &self.held[thread] {
                if location.group.is_none() {
                    let owned = self.owned[group].entry(*location).or_default();
                    *owned = owned.plus(share);
                }
            }
        }
        if !group_written {
            let owner = |location: &Location| match location.group {
                Some(_) => Share::full(),
                None => in_kernel(location),
            };
            let obligation = ObligationId::KernelResources;
            self.overclaimed(claimed.into_iter(), owner, obligation, Claimants::Threads, "the kernel's resources");
            return Ok(());
        }
        // Each group's threads in what the group's resources give (all of its local memory).
        let mut claimed_by_group = vec![Vec::new(); self.members.len()];
        for claim in claimed {
            let (_, (thread, _, _)) = &claim;
            claimed_by_group[self.ids(*thread).gid as usize].push(claim);
        }
        for (group, in_group) in claimed_by_group.into_iter().enumerate() {
            let owned = self.owned[group].clone();
            let owner = |location: &Location| match location.group {
                Some(_) => Share::full(),
                None => owned.get(location).cloned().unwrap_or_default(),
            };
            let (obligation, whose) = (ObligationId::GroupResources, "the group's resources");
            if self.overclaimed(in_group.into_iter(), owner, obligation, Claimants::Threads, whose) {
                break;
            }
        }
        Ok(())
    }

    /// Fails the first cell whose claims add up to more than `owner` has of it ([`Self::overclaim`]);
    /// whether there is one.
    fn overclaimed(
        &mut self,
        claimed: impl Iterator<Item = (Location, (usize, Share, Span))>,
        owner: impl Fn(&Location) -> Share,
        obligation: ObligationId,
        claimants: Claimants,
        whose: &str,
    ) -> bool {
        let bug = self.overclaim(claimed, owner, obligation, claimants, whose);
        let found = bug.is_some();
        if let Some(bug) = bug {
            self.fail(bug);
        }
        found
    }

    /// The first cell whose claims (by thread, or by a level's representative thread) add up to
    /// more than `owner` (`whose`, in words) has of it, as a bug: `group.resources` where threads
    /// of one group claim more than all of a cell, else `obligation`.
    fn overclaim(
        &self,
        claimed: impl Iterator<Item = (Location, (usize, Share, Span))>,
        owner: impl Fn(&Location) -> Share,
        obligation: ObligationId,
        claimants: Claimants,
        whose: &str,
    ) -> Option<Bug> {
        let mut by_location: HashMap<Location, Vec<(usize, Share, Span)>> = HashMap::new();
        for (location, claim) in claimed {
            by_location.entry(location).or_default().push(claim);
        }
        let mut locations: Vec<&Location> = by_location.keys().collect();
        locations.sort_by_key(|location| (location.array, location.group, location.index));
        for location in locations {
            let claims = &by_location[location];
            let sum = claims.iter().fold(Share::default(), |sum, (_, share, _)| sum.plus(share));
            let owned = owner(location);
            if sum.fits_in(&owned) {
                continue;
            }
            let (first, _, _) = claims[0];
            let (second, _, span) =
                claims.iter().find(|(other, _, _)| *other != first).cloned().unwrap_or(claims[0].clone());
            let whole = owned == Share::full();
            let threads = matches!(claimants, Claimants::Threads);
            // Within one group when that group's claims alone are too many.
            let group = self.ids(first).gid;
            let in_group = claims
                .iter()
                .filter(|(claimant, _, _)| self.ids(*claimant).gid == group)
                .fold(Share::default(), |sum, (_, share, _)| sum.plus(share));
            let one_group = !in_group.fits_in(&owned);
            let obligation = if threads && whole && one_group { ObligationId::GroupResources } else { obligation };
            let cell = self.cell_name(*location);
            let more = if whole { "more than all of it".to_string() } else { format!("and {whose} give {owned}") };
            let detail = match claimants {
                Claimants::Threads if first == second => {
                    format!("thread {} claims {sum} of `{cell}`, {more}", self.ids(first).tid)
                }
                Claimants::Threads => {
                    let (first, second) = (self.ids(first).tid, self.ids(second).tid);
                    format!("threads {first} and {second} claim {sum} of `{cell}` together, {more}")
                }
                Claimants::Level(who) => format!("{who} claim {sum} of `{cell}`, {more}"),
            };
            return Some(Bug::Failed { obligation, thread: self.ids(second), span, detail });
        }
        None
    }

    /// A read needs some permission, a write all of it.
    fn permitted(&mut self, thread: usize, location: Location, write: bool, span: Span) {
        if self.owns_everything {
            return;
        }
        let held = self.held[thread].get(&location).cloned().unwrap_or_default();
        let (enough, obligation, verb) = if write {
            (Share::full().fits_in(&held), ObligationId::AccessWrite, "writes")
        } else {
            (held.is_positive(), ObligationId::AccessRead, "reads")
        };
        if !enough {
            let detail = format!("{verb} `{}` holding {held} of it", self.cell_name(location));
            self.fail(Bug::Failed { obligation, thread: self.ids(thread), span, detail });
        }
    }

    /// Records a failed check; the first one is kept.
    fn fail(&mut self, bug: Bug) {
        if self.failure.is_none() {
            self.failure = Some((bug, self.steps.clone()));
        }
    }

    /// Writes the cells the equations of a clause pin (see [`satisfy_memory_equations`]).
    fn pin(&mut self, thread: usize, clause: &Clause) -> Result<(), RunError> {
        let mut pinned = Vec::new();
        self.view(thread, None).equations(&self.evaluator(), &clause.assertion, &mut pinned).map_err(|error| {
            unevaluated(&error, clause.span, &format!("this precondition in thread {}", self.ids(thread).tid))
        })?;
        let gid = self.ids(thread).gid as usize;
        for (array, index, value) in pinned {
            let cells = match self.kernel.array(array).memory {
                Memory::Global => &mut self.memory.global[array.index()],
                Memory::Local => &mut self.memory.local[gid][array.index()],
            };
            if let Some(cell) = cells.get_mut(index) {
                *cell = value;
            }
        }
        Ok(())
    }

    /// Takes one step of a running thread.
    fn step(&mut self, thread: usize) -> Result<(), Stop> {
        if let Some((bug, steps)) = &self.failure {
            if self.steps.len() - steps.len() >= STEPS_AFTER_A_FAILURE {
                return Err(Stop::Bug(Box::new(bug.clone())));
            }
        }
        if self.steps.len() as u64 >= MAX_STEPS {
            let detail = format!("the run took more than {MAX_STEPS} steps");
            return Err(Stop::Error(RunError::GaveUp { detail, span: None }));
        }
        let ids = self.ids(thread);
        self.steps.push(ids.tid);
        self.interval_steps[ids.gid as usize][ids.lid as usize] += 1;
        let Some(frame) = self.threads[thread].frames.last_mut() else {
            self.set_state(thread, State::Finished);
            return Ok(());
        };
        let stmt: &'k Stmt = match frame {
            Frame::Block { stmts, next } => {
                let Some(stmt) = stmts.get(*next) else {
                    self.threads[thread].frames.pop();
                    return self.settle(thread);
                };
                *next += 1;
                stmt
            }
            Frame::Loop { stmt, entered } => {
                let (stmt, entered) = (*stmt, *entered);
                return self.test_loop(thread, stmt, entered);
            }
        };
        match &stmt.kind {
            StmtKind::Declare { var, init: None } => {
                self.threads[thread].vars[var.index()] = Some(default_value(self.kernel, *var))
            }
            StmtKind::Declare { var, init: Some(value) } | StmtKind::Assign { var, value } => {
                let value = self.code(thread, value)?;
                self.threads[thread].vars[var.index()] = Some(value);
            }
            StmtKind::Write { array, index, value } => {
                let index = self.code(thread, index)?;
                let value = self.code(thread, value)?;
                let (Value::Int(index), Value::Int(value)) = (index, value) else {
                    return Err(Stop::Error(RunError::Mismatch { detail: "a write of a non-int".into() }));
                };
                let gid = ids.gid;
                let size = self.memory.cells(self.kernel, *array, gid).len();
                let Some(cell) = index.to_usize().filter(|cell| *cell < size) else {
                    return Err(Stop::Bug(Box::new(Bug::Failed {
                        obligation: ObligationId::AccessBounds,
                        thread: ids,
                        span: stmt.span,
                        detail: format!(
                            "writes `{}[{index}]`, outside its {size} cells",
                            self.kernel.array(*array).name
                        ),
                    })));
                };
                self.access(thread, *array, cell, true, stmt.span)?;
                let cells = match self.kernel.array(*array).memory {
                    Memory::Global => &mut self.memory.global[array.index()],
                    Memory::Local => &mut self.memory.local[gid as usize][array.index()],
                };
                cells[cell] = value;
            }
            StmtKind::If { cond, then_branch, else_branch } => {
                let taken = self.code(thread, cond)?;
                let branch = if taken == Value::Bool(true) { Some(then_branch) } else { else_branch.as_ref() };
                if let Some(branch) = branch {
                    self.threads[thread].frames.push(Frame::Block { stmts: &branch.stmts, next: 0 });
                }
            }
            StmtKind::While { .. } => self.threads[thread].frames.push(Frame::Loop { stmt, entered: false }),
            StmtKind::Barrier(barrier) => {
                self.check(thread, &self.kernel.barrier(*barrier).contract.requires, ObligationId::BarrierPre)?;
                self.set_state(thread, State::Waiting(*barrier, stmt.span));
                return Ok(());
            }
            // A claim the frontend could not state holds nothing to run.
            StmtKind::Assert(_) if self.kernel.unstated_claims.iter().any(|(span, _)| *span == stmt.span) => {}
            StmtKind::Assert(assertion) => {
                let clause = Clause { assertion: assertion.clone(), span: stmt.span };
                self.check(thread, std::slice::from_ref(&clause), ObligationId::Assert)?;
            }
            StmtKind::Assume(fact) => {
                if self.code(thread, fact)? != Value::Bool(true) {
                    return Err(Stop::Error(RunError::Assumed { thread: ids, span: stmt.span }));
                }
            }
            StmtKind::Block(block) => self.threads[thread].frames.push(Frame::Block { stmts: &block.stmts, next: 0 }),
        }
        self.settle(thread)
    }

    /// A loop's invariants, then its condition: the body runs again, or the loop ends.
    fn test_loop(&mut self, thread: usize, stmt: &'k Stmt, entered: bool) -> Result<(), Stop> {
        let StmtKind::While { invariants, cond, body } = &stmt.kind else { unreachable!("a loop frame holds a loop") };
        let obligation = if entered { ObligationId::LoopInvariantPreserved } else { ObligationId::LoopInvariantEntry };
        self.check(thread, invariants, obligation)?;
        let again = self.code(thread, cond)? == Value::Bool(true);
        let frames = &mut self.threads[thread].frames;
        if again {
            if let Some(Frame::Loop { entered, .. }) = frames.last_mut() {
                *entered = true;
            }
            frames.push(Frame::Block { stmts: &body.stmts, next: 0 });
        } else {
            frames.pop();
        }
        self.settle(thread)
    }

    /// Sets a thread's state, and keeps [`Machine::runnable`] in step.
    fn set_state(&mut self, thread: usize, state: State) {
        let runs = state == State::Running;
        if runs != (self.threads[thread].state == State::Running) {
            self.runnable.set(thread, runs);
        }
        self.threads[thread].state = state;
    }

    /// Pops finished blocks; a thread with nothing left has finished.
    fn settle(&mut self, thread: usize) -> Result<(), Stop> {
        let frames = &mut self.threads[thread].frames;
        while let Some(Frame::Block { stmts, next }) = frames.last() {
            if *next < stmts.len() {
                break;
            }
            frames.pop();
        }
        if frames.is_empty() {
            self.set_state(thread, State::Finished);
        }
        Ok(())
    }

    fn group_threads(&self, group: u32) -> std::ops::Range<usize> {
        let gsize = self.launch.gsize as usize;
        group as usize * gsize..(group as usize + 1) * gsize
    }

    /// Opens the barrier a group's threads all wait at, or reports their divergence. Nothing to do
    /// while one of them runs.
    fn synchronise(&mut self, group: u32) -> Result<(), Stop> {
        if self.runnable.in_group(group) > 0 {
            return Ok(());
        }
        let members = self.group_threads(group);
        let mut waiting = Vec::new();
        let mut finished = Vec::new();
        for thread in members.clone() {
            match &self.threads[thread].state {
                State::Waiting(barrier, span) => waiting.push((self.ids(thread), *barrier, *span)),
                State::Finished => finished.push(self.ids(thread)),
                State::Running => unreachable!("no thread of the group runs"),
            }
        }
        if waiting.is_empty() {
            return Ok(());
        }
        let barrier = waiting[0].1;
        if !finished.is_empty() || waiting.iter().any(|(_, other, _)| *other != barrier) {
            return Err(Stop::Bug(Box::new(Bug::Divergence { group, waiting, finished })));
        }
        self.close_interval(group);
        let fences = self.kernel.barrier(barrier).fences;
        let intervals = &mut self.intervals[group as usize];
        intervals.all += 1;
        intervals.local += u32::from(fences.local);
        intervals.global += u32::from(fences.global);
        intervals.last = Some(barrier);
        for thread in members.clone() {
            self.set_state(thread, State::Running);
        }
        // The barrier takes all each thread holds and gives what its `ensures` name: no more, in
        // all, than the group owns (all of its local memory, and its global claims).
        let mut handed: HashMap<Location, (Share, usize, Span)> = HashMap::new();
        for thread in self.members[group as usize].clone() {
            let claims = self.gather(
                thread,
                Level::Thread,
                &self.kernel.barrier(barrier).contract.ensures,
                ObligationId::BarrierFunctional,
                false,
            )?;
            for claim in &claims {
                let entry = handed.entry(claim.location).or_insert((Share::default(), thread, claim.span));
                entry.0 = entry.0.plus(&claim.share);
            }
            self.held[thread] = total(&claims);
        }
        let mut locations: Vec<&Location> = handed.keys().collect();
        locations.sort_by_key(|location| (location.array, location.group, location.index));
        for location in locations {
            let (sum, thread, span) = &handed[location];
            let owned = match location.group {
                Some(_) => Share::full(),
                None => self.owned[group as usize].get(location).cloned().unwrap_or_default(),
            };
            if !sum.fits_in(&owned) {
                let detail = format!(
                    "the barrier hands out {sum} of `{}`, and the group owns {owned}",
                    self.cell_name(*location)
                );
                self.fail(Bug::Failed {
                    obligation: ObligationId::BarrierResources,
                    thread: self.ids(*thread),
                    span: *span,
                    detail,
                });
                break;
            }
        }
        Ok(())
    }

    /// Multiplies in the interleavings of a group's barrier interval just ended.
    fn close_interval(&mut self, group: u32) {
        let counts = std::mem::replace(&mut self.interval_steps[group as usize], vec![0; self.launch.gsize as usize]);
        self.interleavings.multiply_by_multinomial(&counts);
        self.group_steps[group as usize] += counts.iter().sum::<u64>();
    }

    /// After the last step: every group's last interval, then the thread postconditions.
    fn finish(&mut self) -> Result<Outcome, Stop> {
        for group in 0..self.launch.groups {
            self.close_interval(group);
        }
        for thread in self.order.clone() {
            self.check(thread, &self.kernel.thread_contract.ensures, ObligationId::ThreadPost)?;
        }
        let kernel = self.kernel;
        let levels = [
            (Level::Group, kernel.group_contract.as_ref(), ObligationId::GroupPost),
            (Level::Kernel, kernel.kernel_contract.as_ref(), ObligationId::KernelPost),
        ];
        for (level, contract, obligation) in levels {
            let Some(contract) = contract else { continue };
            if let Some((thread, span, detail)) =
                self.level_failures(level, &contract.ensures, false)?.into_iter().next()
            {
                let detail = format!("this postcondition {detail}");
                self.fail(Bug::Failed { obligation, thread: self.ids(thread), span, detail });
            }
        }
        if let Some((bug, _)) = &self.failure {
            // `outcome` reports it, with the steps up to it.
            return Err(Stop::Bug(Box::new(bug.clone())));
        }
        let mut interleavings = self.interleavings.clone();
        interleavings.multiply_by_multinomial(&self.group_steps);
        let memory = self.memory.seen_by(self.kernel, 0);
        Ok(Outcome { bug: None, schedules: 1, interleavings, memory })
    }

    /// The outcome of a run that stopped: a race outranks an earlier failed check (which it likely
    /// caused); otherwise the first bug met is reported. A run that gives up after a failed check
    /// still found that bug: what came later does not undo it.
    fn outcome(&self, stop: Stop) -> Result<Outcome, RunError> {
        let bug = match (stop, &self.failure) {
            (Stop::Error(_), Some(first)) => first.clone(),
            (Stop::Error(error), None) => return Err(error),
            (Stop::Bug(bug), first) => match (*bug, first) {
                (race @ Bug::Race { .. }, _) => (race, self.steps.clone()),
                (_, Some(first)) => first.clone(),
                (bug, None) => (bug, self.steps.clone()),
            },
        };
        Ok(Outcome { bug: Some(bug), schedules: 1, interleavings: Interleavings::default(), memory: Vec::new() })
    }
}

/// The value a declared but uninitialised private variable starts with.
fn default_value(kernel: &Kernel, var: VarId) -> Value {
    match kernel.var(var).ty {
        crate::Type::Int => Value::int(0),
        crate::Type::Bool => Value::Bool(false),
    }
}
