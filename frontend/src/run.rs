//! `lockstep run`'s engine: a launch built from the user's choices, and what a run found, in the
//! words and places a diagnostic shows.
//!
//! Decisions where the issue is silent:
//! - the unstated length of an OpenCL or CUDA array is a cell per thread of the launch (of the
//!   group, for local memory), unless given as a parameter (`--param '\pointer_length(a)=16'`);
//! - a parameter the user does not give takes the value a thread precondition pins it to
//!   (`requires n == tcount;`), else 0, or with random memory a random value in `[1, 8]` (small and
//!   positive, as sizes, strides and divisors want);
//! - memory starts at zero, or at random values in `[-16, 16]` (`--memory random`); then the cells a
//!   thread precondition pins (`requires a[tid] == 1;`) take that value, and last the cells the user
//!   gives (`--init a=1,2,3`, a prefix of the array);
//! - a launch that breaks the kernel's precondition is refused (exit 2): the kernel promises nothing
//!   for it.

use lockstep_logic::eval::Value;
use lockstep_logic::execute::{self, Axes, Bug, Launch, RunError, ThreadIds};
use lockstep_logic::fences::MemoryModel;
use lockstep_logic::{Axis, Builtin, Kernel, Memory, ObligationId, Program, Span};
use num_bigint::BigInt;

/// What the user chose for a launch.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub groups: Extent,
    pub gsize: Extent,
    /// `name=value` for kernel parameters.
    pub params: Vec<(String, BigInt)>,
    /// The initial contents of arrays.
    pub init: Vec<(String, Init)>,
    /// Random initial memory from this seed; zero memory when `None`.
    pub random_memory: Option<u64>,
}

/// Groups, or threads per group, along the axes `x`, `y` and `z`: written `16`, `16x16` or
/// `4x4x2`, `x` first, or as GPUVerify writes them, `16,16` or `[16,16]`; the axes not written
/// have extent 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extent(pub [u32; 3]);

impl Extent {
    /// The number of groups or threads: the product of the extents.
    pub fn total(self) -> u64 {
        self.0.iter().map(|&extent| u64::from(extent)).product()
    }

    /// The number of groups of `gsize` threads a launch of these many threads in all makes, as
    /// GPUVerify reads `--global_size` with `--local_size`: each axis must divide evenly.
    pub fn per_group(self, gsize: Extent) -> Result<Extent, String> {
        let mut groups = [1; 3];
        for (axis, group) in groups.iter_mut().enumerate() {
            let (global, local) = (self.0[axis], gsize.0[axis]);
            if local == 0 || global % local != 0 {
                return Err(format!(
                    "the global size {global} along axis {axis} is not a multiple of the group size {local}"
                ));
            }
            *group = global / local;
        }
        Ok(Extent(groups))
    }

    /// The number of axes up to the last whose extent is not 1 (at least 1): the launch's
    /// `get_work_dim()`.
    pub fn dimensions(self) -> usize {
        self.0.iter().rposition(|&extent| extent != 1).map_or(1, |last| last + 1)
    }
}

impl From<u32> for Extent {
    fn from(extent: u32) -> Extent {
        Extent([extent, 1, 1])
    }
}

impl std::str::FromStr for Extent {
    type Err = String;

    fn from_str(text: &str) -> Result<Extent, String> {
        let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
        let parts: Vec<&str> = inner.split(['x', ',']).collect();
        if parts.len() > 3 {
            return Err(format!("`{text}` has more than three axes"));
        }
        let mut extents = [1; 3];
        for (extent, part) in extents.iter_mut().zip(&parts) {
            *extent = part.trim().parse::<u32>().map_err(|_| format!("`{text}`: write N, NxM or NxMxK"))?;
        }
        Ok(Extent(extents))
    }
}

impl std::fmt::Display for Extent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = &self.0[..self.dimensions()];
        f.write_str(&shown.iter().map(u32::to_string).collect::<Vec<_>>().join("x"))
    }
}

/// The initial contents of an array the user gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// The first cells.
    Values(Vec<BigInt>),
    /// `a[i] = i`.
    Iota,
    /// `a[i] = size - 1 - i`: a permutation other than the identity, at any size.
    Reverse,
}

impl std::str::FromStr for Init {
    type Err = String;

    /// `iota`, `reverse`, or comma-separated integers.
    fn from_str(text: &str) -> Result<Init, String> {
        match text.trim() {
            "iota" => Ok(Init::Iota),
            "reverse" => Ok(Init::Reverse),
            values => values
                .split(',')
                .map(|value| value.trim().parse::<BigInt>().map_err(|_| format!("`{value}` is no integer")))
                .collect::<Result<Vec<_>, String>>()
                .map(Init::Values),
        }
    }
}

/// The most threads a run takes: each has its own variables, and a run should stay interactive.
pub const MAX_THREADS: u32 = 1 << 20;

/// The values random memory takes lie in `[-RANDOM_RANGE, RANDOM_RANGE]`.
const RANDOM_RANGE: i64 = 16;
/// The value of a parameter that an OpenCL or CUDA kernel does not declare, when the run is not
/// given it: the length of an array whose kernel does not state it (the parameter the lowering
/// names `\pointer_length(a)` or `\shared_mem_size(s)`), a cell per thread of the launch, or of
/// the group for local memory, as kernels index them; and `get_work_dim()`, the launch's number
/// of axes.
fn unstated_param(name: &str, options: &Options) -> Option<i64> {
    let threads = |extent: Extent| i64::try_from(extent.total()).unwrap_or(i64::MAX);
    if name == crate::c::lower::WORK_DIM {
        Some(options.groups.dimensions().max(options.gsize.dimensions()) as i64)
    } else if name.starts_with("\\pointer_length(") {
        Some(threads(options.groups).saturating_mul(threads(options.gsize)))
    } else if name.starts_with("\\shared_mem_size(") {
        Some(threads(options.gsize))
    } else {
        None
    }
}

/// Random parameters lie in `[1, RANDOM_PARAMETER]`.
const RANDOM_PARAMETER: u64 = 8;

/// The launch the options describe, or why there is none: options that do not fit the kernel
/// ([`RunError::Mismatch`]), a launch that breaks its precondition, or a pinned value the run cannot
/// compute ([`RunError::GaveUp`]).
pub fn launch(program: &Program, kernel: &Kernel, options: &Options) -> Result<Launch, RunError> {
    let mismatch = |detail: String| Err(RunError::Mismatch { detail });
    if options.groups.total() == 0 || options.gsize.total() == 0 {
        return mismatch("a launch needs at least one group of at least one thread".into());
    }
    if options.groups.total() * options.gsize.total() > u64::from(MAX_THREADS) {
        return mismatch(format!("a run takes at most {MAX_THREADS} threads; this launch has more"));
    }
    for (what, extent) in [("groups", options.groups), ("threads per group", options.gsize)] {
        if extent.dimensions() > kernel.dimensions {
            return mismatch(format!(
                "kernel `{}` names the axes of {} dimension{}; this launch has {what} {extent} along more",
                kernel.name,
                kernel.dimensions,
                plural(kernel.dimensions as u64)
            ));
        }
    }
    for (name, _) in &options.params {
        if !kernel.params.iter().any(|param| kernel.var(*param).name == *name) {
            return mismatch(format!(
                "kernel `{}` has no parameter `{name}`{}",
                kernel.name,
                listing("parameters", kernel)
            ));
        }
    }
    let mut launch = Launch {
        // Both fit: their product is at most MAX_THREADS.
        groups: options.groups.total() as u32,
        gsize: options.gsize.total() as u32,
        axes: Axes { groups: options.groups.0, gsize: options.gsize.0 },
        params: Vec::new(),
        memory: Vec::new(),
    };
    let mut random = execute::SplitMix64(options.random_memory.unwrap_or(0));
    launch.params = kernel
        .params
        .iter()
        .map(|param| {
            let name = &kernel.var(*param).name;
            let given = options.params.iter().find(|(given, _)| given == name);
            match (given, unstated_param(name, options), options.random_memory) {
                (Some((_, value)), _, _) => Value::Int(value.clone()),
                (None, Some(length), _) => Value::int(length),
                (None, None, Some(_)) => Value::int(1 + random.next() % RANDOM_PARAMETER),
                (None, None, None) => Value::int(0),
            }
        })
        .collect();
    let given: Vec<bool> = kernel
        .params
        .iter()
        .map(|param| options.params.iter().any(|(name, _)| *name == kernel.var(*param).name))
        .collect();
    execute::satisfy_parameter_equations(program, kernel, &mut launch, &given)?;
    let sizes = execute::array_sizes(program, kernel, &launch)?;
    launch.memory = sizes
        .iter()
        .map(|&size| {
            (0..size)
                .map(|_| match options.random_memory {
                    Some(_) => BigInt::from((random.next() % (2 * RANDOM_RANGE as u64 + 1)) as i64 - RANDOM_RANGE),
                    None => BigInt::from(0),
                })
                .collect()
        })
        .collect();
    execute::satisfy_memory_equations(program, kernel, &mut launch)?;
    for (name, init) in &options.init {
        let Some(index) = kernel.arrays.iter().position(|array| array.name == *name) else {
            return mismatch(format!("kernel `{}` has no array `{name}`", kernel.name));
        };
        let cells = &mut launch.memory[index];
        let size = cells.len();
        match init {
            Init::Values(values) if values.len() > size => {
                return mismatch(format!(
                    "`{name}` has {size} cells under this launch; {} values were given",
                    values.len()
                ));
            }
            Init::Values(values) => cells[..values.len()].clone_from_slice(values),
            Init::Iota => cells.iter_mut().enumerate().for_each(|(cell, value)| *value = BigInt::from(cell)),
            Init::Reverse => {
                cells.iter_mut().enumerate().for_each(|(cell, value)| *value = BigInt::from(size - 1 - cell))
            }
        }
    }
    Ok(launch)
}

fn listing(what: &str, kernel: &Kernel) -> String {
    let names: Vec<&str> = kernel.params.iter().map(|param| kernel.var(*param).name.as_str()).collect();
    if names.is_empty() {
        format!(" (it has no {what})")
    } else {
        format!(" (its {what}: {})", names.join(", "))
    }
}

/// A run error in words (without its place).
pub fn run_error(error: &RunError) -> String {
    match error {
        RunError::Precondition { detail, .. } => {
            format!("this launch breaks the kernel's precondition ({detail}); the kernel promises nothing for it")
        }
        RunError::GaveUp { detail, .. } => format!("the run gave up: {detail}"),
        RunError::Assumed { thread, .. } => {
            format!("an `assume` is false in thread {}: the run ends there, with nothing to report", thread.tid)
        }
        RunError::Mismatch { detail } => detail.clone(),
    }
}

/// The place a run error points at, if it has one.
pub fn run_error_span(error: &RunError) -> Option<Span> {
    match error {
        RunError::Precondition { span, .. } | RunError::Assumed { span, .. } => Some(*span),
        RunError::GaveUp { span, .. } => *span,
        RunError::Mismatch { .. } => None,
    }
}

/// What a run found, ready for a diagnostic: a code (`race`, or the obligation the bug breaks), a
/// message, the places involved with their labels (the first is the primary one), and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub code: &'static str,
    pub message: String,
    pub labels: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

/// The code of a race, which no obligation names: it breaks the resource obligations together.
pub const RACE: &str = "race";
/// The code of a read a barrier without the right fence may leave stale (the verifier reports
/// the same bug as `barrier.functional`, where a promise rests on the unfenced value).
pub const STALE_READ: &str = "stale.read";

fn thread(ids: ThreadIds) -> String {
    format!("thread {} (gid {}, lid {})", ids.tid, ids.gid, ids.lid)
}

/// Describes a bug, with the steps that led to it.
pub fn finding(kernel: &Kernel, bug: &Bug, steps: &[u32], schedule: &str) -> Finding {
    let mut finding = match bug {
        Bug::Race { location, first, second } => {
            let array = kernel.array(location.array);
            let cell = format!("{}[{}]", array.name, location.index);
            let verb = |write: bool| if write { "writes" } else { "reads" };
            let (memory, fence) = match array.memory {
                Memory::Local => ("local", "barrier(local)"),
                Memory::Global => ("global", "barrier(global)"),
            };
            let mut labels = vec![
                (second.span, format!("{} {} `{cell}` here", thread(second.thread), verb(second.write))),
                (first.span, format!("{} {} `{cell}` here", thread(first.thread), verb(first.write))),
            ];
            let unfenced = first.thread.gid == second.thread.gid && first.interval != second.interval;
            let why = if unfenced {
                if let Some(barrier) = second.after {
                    labels.push((kernel.barrier(barrier).span, format!("this barrier does not fence {memory} memory")));
                }
                format!(
                    "barriers lie between these accesses, but none fences {memory} memory, so the first need not be complete when the second happens: add `{memory}` to the fences of the barrier between them, as in `{fence}`"
                )
            } else if first.thread.gid == second.thread.gid {
                format!(
                    "no barrier lies between these accesses: separate them with a `{fence}`, or let each thread touch cells no other thread touches in the same interval"
                )
            } else {
                "the threads are in different work groups, which no barrier orders: a global cell one group writes must not be touched by another group".to_string()
            };
            Finding {
                code: RACE,
                message: format!(
                    "data race on `{cell}`: {} {} it, and {} {} it, with nothing ordering the two",
                    thread(second.thread),
                    verb(second.write),
                    thread(first.thread),
                    if unfenced {
                        if first.write {
                            "wrote"
                        } else {
                            "read"
                        }
                    } else {
                        verb(first.write)
                    }
                ),
                labels,
                notes: vec![why],
            }
        }
        Bug::StaleRead { location, write, read } => {
            let array = kernel.array(location.array);
            let cell = format!("{}[{}]", array.name, location.index);
            let (memory, fence) = match array.memory {
                Memory::Local => ("local", "local"),
                Memory::Global => ("global", "global"),
            };
            Finding {
                code: STALE_READ,
                message: format!(
                    "stale read of `{cell}`: {} reads it after {} wrote it, but no barrier between them fences {memory} memory, so the write need not be visible",
                    thread(read.thread),
                    thread(write.thread)
                ),
                labels: vec![
                    (read.span, format!("{} reads `{cell}` here", thread(read.thread))),
                    (write.span, format!("{} writes `{cell}` here", thread(write.thread))),
                ],
                notes: vec![format!("add `{fence}` to the fences of the barrier between them, as in `barrier({fence})`")],
            }
        }
        Bug::Divergence { group, waiting, finished } => {
            let mut labels: Vec<(Span, String)> = Vec::new();
            for (ids, _, span) in waiting {
                match labels.iter_mut().find(|(other, _)| other == span) {
                    Some((_, label)) => label.push_str(&format!(", {}", ids.tid)),
                    None => labels.push((*span, format!("waiting here: thread {}", ids.tid))),
                }
            }
            let mut notes = Vec::new();
            if !finished.is_empty() {
                let tids: Vec<String> = finished.iter().map(|ids| ids.tid.to_string()).collect();
                notes.push(format!("thread(s) {} of the group have finished and will never arrive", tids.join(", ")));
            }
            notes.push("every thread of a group must reach the same barriers in the same order: a barrier may not sit under a condition that differs between the threads".into());
            Finding {
                code: "barrier.divergence",
                message: format!(
                    "barrier divergence in group {group}: its threads wait at different barriers, or some never arrive"
                ),
                labels,
                notes,
            }
        }
        Bug::Failed { obligation, thread: ids, span, detail } => Finding {
            code: obligation.as_str(),
            message: format!("{} in {}", detail, thread(*ids)),
            labels: vec![(*span, format!("fails in {}", thread(*ids)))],
            notes: Vec::new(),
        },
    };
    finding.notes.push(format!("schedule: {schedule}; steps so far: {}", steps_summary(steps)));
    finding
}

/// The steps as runs of one thread: `t0 x5, t1 x3, ...`, the last 16 runs when there are more.
pub fn steps_summary(steps: &[u32]) -> String {
    let mut runs: Vec<(u32, usize)> = Vec::new();
    for &tid in steps {
        match runs.last_mut() {
            Some((last, count)) if *last == tid => *count += 1,
            _ => runs.push((tid, 1)),
        }
    }
    let shown = runs.len().saturating_sub(16);
    let mut parts: Vec<String> = runs[shown..].iter().map(|(tid, count)| format!("t{tid} x{count}")).collect();
    if shown > 0 {
        parts.insert(0, format!("({shown} earlier runs)"));
    }
    let plural = if steps.len() == 1 { "" } else { "s" };
    format!("{} step{plural}: {}", steps.len(), parts.join(", "))
}

/// What replaying a counterexample showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    /// A run of the counterexample's launch meets the replayed obligation's failure, at its place,
    /// in the counterexample's threads: the failure is real.
    Confirmed { launch: String, finding: Finding },
    /// Runs of the launch find a bug, but not this failure (another obligation, place or thread).
    Other { launch: String, finding: Finding },
    /// Runs of the launch are clean: the failure may be spurious (an annotation too weak).
    Clean { launch: String },
    /// No run was possible, and why.
    NotReplayed(String),
}

/// The failure a replay looks for: an obligation's id and place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    pub obligation: ObligationId,
    pub span: Span,
}

/// The most threads a replay runs: a model's sizes are arbitrary, and a replay must stay quick.
const MAX_REPLAY_THREADS: u32 = 65_536;

/// The threads and the cell a counterexample names: `tid`, `gid` and `lid` for one thread's
/// obligation; `lid of thread N` (and `gid of thread N`, or one `gid`) for the threads of a
/// resource obligation, with the `location` or `index of `a` both threads name` they contend for.
struct Named {
    tid: Option<u32>,
    gid: Option<u32>,
    /// `(gid, lid)` of each thread of a resource obligation.
    threads: Vec<(Option<u32>, u32)>,
    /// The cell index, and the array when the label names it.
    cell: Option<(Option<String>, usize)>,
}

impl Named {
    fn of(counterexample: &[(String, String)]) -> Named {
        let number = |label: &str| {
            counterexample.iter().find(|(name, _)| name == label).and_then(|(_, value)| value.parse::<u32>().ok())
        };
        let mut threads = Vec::new();
        for (label, value) in counterexample {
            let Some(thread) = label.strip_prefix("lid of thread ") else { continue };
            if let Ok(lid) = value.parse::<u32>() {
                threads.push((number(&format!("gid of thread {thread}")).or(number("gid")), lid));
            }
        }
        let cell = counterexample.iter().find_map(|(label, value)| {
            let index = value.parse::<usize>().ok()?;
            if label == "location" {
                return Some((None, index));
            }
            let array = label.strip_prefix("index of `")?.strip_suffix("` both threads name")?;
            Some((Some(array.to_string()), index))
        });
        Named { tid: number("tid"), gid: number("gid"), threads, cell }
    }

    /// The threads (by `tid`) a replay lets take their turns first (see
    /// [`execute::Schedule::Favouring`]).
    fn tids(&self, gsize: u32) -> Vec<u32> {
        let group = |gid: Option<u32>| gid.or(self.gid).unwrap_or(0);
        match self.tid {
            Some(tid) => vec![tid],
            None if self.threads.is_empty() => vec![group(None) * gsize],
            None => self.threads.iter().map(|&(gid, lid)| group(gid) * gsize + lid).collect(),
        }
    }

    /// Whether a thread of a bug is one the counterexample names, for an obligation: any thread
    /// stands for the kernel's, any thread of the group for a group's.
    fn names_for(&self, obligation: ObligationId, thread: ThreadIds) -> bool {
        match obligation {
            ObligationId::KernelPre | ObligationId::KernelPost => true,
            ObligationId::GroupPre | ObligationId::GroupPost => self.gid.is_none_or(|gid| gid == thread.gid),
            _ => self.names(thread),
        }
    }

    /// Whether a thread of a bug is one the counterexample names.
    fn names(&self, thread: ThreadIds) -> bool {
        match self.tid {
            Some(tid) => tid == thread.tid,
            None if !self.threads.is_empty() => {
                self.threads.iter().any(|&(gid, lid)| lid == thread.lid && gid.is_none_or(|gid| gid == thread.gid))
            }
            None => self.gid.is_none_or(|gid| gid == thread.gid),
        }
    }

    /// Whether a cell of a bug is the one the counterexample names (if it names one).
    fn names_cell(&self, kernel: &Kernel, location: &execute::Location) -> bool {
        self.cell.as_ref().is_none_or(|(array, index)| {
            *index == location.index && array.as_ref().is_none_or(|array| *array == kernel.array(location.array).name)
        })
    }
}

/// Whether two spans overlap, or lie in the same barrier statement (a barrier's obligations point
/// at the barrier or at one of its clauses).
fn same_place(kernel: &Kernel, one: Span, other: Span) -> bool {
    let within = |inner: Span, outer: Span| outer.start <= inner.start && inner.end <= outer.end;
    (one.start < other.end && other.start < one.end)
        || one == other
        || kernel.barriers.iter().any(|barrier| within(one, barrier.span) && within(other, barrier.span))
}

/// Whether a run's bug is the replayed failure: the same obligation (a race or a stale read for
/// the resource obligations it breaks), at its place, in the counterexample's threads.
fn shows(kernel: &Kernel, bug: &Bug, failure: Failure, named: &Named) -> bool {
    let at_barrier = |after: Option<lockstep_logic::BarrierId>| {
        after.is_some_and(|barrier| same_place(kernel, kernel.barrier(barrier).span, failure.span))
    };
    match bug {
        Bug::Failed { obligation, thread, span, .. } => {
            *obligation == failure.obligation
                && same_place(kernel, *span, failure.span)
                && named.names_for(*obligation, *thread)
        }
        Bug::Race { location, first, second } => {
            let threads = named.names(first.thread) && named.names(second.thread) && named.names_cell(kernel, location);
            match failure.obligation {
                // The access without the permission it needs is one of the two.
                ObligationId::AccessRead | ObligationId::AccessWrite => [first, second].iter().any(|access| {
                    access.write == (failure.obligation == ObligationId::AccessWrite)
                        && same_place(kernel, access.span, failure.span)
                        && named.names(access.thread)
                }),
                ObligationId::GroupResources => threads && first.thread.gid == second.thread.gid,
                ObligationId::KernelResources => threads && first.thread.gid != second.thread.gid,
                // The barrier hands a cell out twice, or over a write it does not fence.
                ObligationId::BarrierResources => threads && at_barrier(second.after),
                _ => false,
            }
        }
        Bug::StaleRead { location, write, read } => {
            matches!(failure.obligation, ObligationId::BarrierResources | ObligationId::BarrierFunctional)
                && at_barrier(read.after)
                && named.names(read.thread)
                && (failure.obligation == ObligationId::BarrierFunctional
                    || (named.names(write.thread) && named.names_cell(kernel, location)))
        }
        Bug::Divergence { .. } => failure.obligation == ObligationId::BarrierDivergence,
    }
}

/// Replays a failed obligation's counterexample: a launch with the model's sizes (`gsize`,
/// `tcount`), parameters and the cells it shows of arrays no statement writes (whose values are
/// the initial ones), run with zero memory and a few random ones elsewhere. Where that launch breaks
/// the precondition, the input arrays are filled as `iota`, then `reverse`, instead. The runs favour
/// the counterexample's thread (it takes its turn first in each round); the replay confirms the
/// failure only if a run meets that obligation at its place in the counterexample's threads.
pub fn replay(
    program: &Program,
    kernel: &Kernel,
    failure: Failure,
    counterexample: &[(String, String)],
    memory_model: MemoryModel,
) -> Replay {
    let value = |name: &str| {
        counterexample.iter().find(|(label, _)| label == name).and_then(|(_, value)| value.parse::<i64>().ok())
    };
    let (Some(gsize), Some(tcount)) = (value("gsize"), value("tcount")) else {
        return Replay::NotReplayed("the counterexample gives no launch size (`gsize` and `tcount`)".into());
    };
    if gsize <= 0 || tcount <= 0 || tcount % gsize != 0 || tcount > i64::from(MAX_REPLAY_THREADS) {
        return Replay::NotReplayed(format!(
            "the counterexample's launch (gsize = {gsize}, tcount = {tcount}) is no whole number of groups of at most {MAX_REPLAY_THREADS} threads"
        ));
    }
    let params: Vec<(String, BigInt)> = kernel
        .params
        .iter()
        .filter_map(|param| {
            let name = &kernel.var(*param).name;
            value(name).map(|value| (name.clone(), BigInt::from(value)))
        })
        .collect();
    let mut init: Vec<(String, Init)> = Vec::new();
    for (index, array) in kernel.arrays.iter().enumerate() {
        if kernel.writes(lockstep_logic::ArrayId(index as u32)) {
            continue;
        }
        let prefix = format!("{}[", array.name);
        let mut cells: Vec<(usize, BigInt)> = counterexample
            .iter()
            .filter_map(|(label, value)| {
                let cell = label.strip_prefix(&prefix)?.strip_suffix(']')?.parse::<usize>().ok()?;
                Some((cell, value.parse::<BigInt>().ok()?))
            })
            .collect();
        cells.sort();
        // `Init::Values` gives a prefix of the array: fill the gaps with zeros.
        if let Some(&(last, _)) = cells.last() {
            let mut values = vec![BigInt::from(0); last + 1];
            for (cell, value) in cells {
                values[cell] = value;
            }
            init.push((array.name.clone(), Init::Values(values)));
        }
    }
    let groups = shape(kernel, (tcount / gsize) as u32, true, &value);
    let gsize = shape(kernel, gsize as u32, false, &value);
    let mut described = launch_size(groups, gsize);
    for (name, value) in &params {
        described.push_str(&format!(", {name} = {value}"));
    }
    // The inputs the counterexample shows first; where a launch with them breaks the precondition
    // (an input it does not show in full, such as a permutation), every input array as `iota`,
    // then as `reverse`.
    let inputs: Vec<String> = (0..kernel.arrays.len())
        .filter(|&index| !kernel.writes(lockstep_logic::ArrayId(index as u32)))
        .map(|index| kernel.arrays[index].name.clone())
        .collect();
    let fillings = [
        ("", init),
        (" (inputs as iota)", inputs.iter().map(|name| (name.clone(), Init::Iota)).collect()),
        (" (inputs reversed)", inputs.iter().map(|name| (name.clone(), Init::Reverse)).collect()),
    ];
    let named = Named::of(counterexample);
    let first = named.tids(gsize.total() as u32);
    let listed: Vec<String> = first.iter().map(u32::to_string).collect();
    let schedule_name = format!("canonical, thread{} {} first", plural(first.len()), listed.join(", "));
    let schedule = execute::Schedule::Favouring { first };
    let mut ran = false;
    let mut refusal = None;
    let mut other = None;
    for (filling, init) in fillings {
        for memory in [None, Some(1), Some(2), Some(3)] {
            let options = Options { groups, gsize, params: params.clone(), init: init.clone(), random_memory: memory };
            let launch = match self::launch(program, kernel, &options) {
                Ok(launch) => launch,
                Err(error) => return Replay::NotReplayed(run_error(&error)),
            };
            match execute::run(program, kernel, &launch, &schedule, memory_model) {
                Ok(outcome) => {
                    ran = true;
                    if let Some((bug, steps)) = outcome.bug {
                        let memory =
                            memory.map_or("zero memory".to_string(), |seed| format!("random memory (seed {seed})"));
                        let launch = format!("{described}, {memory}{filling}");
                        let finding = self::finding(kernel, &bug, &steps, &schedule_name);
                        if shows(kernel, &bug, failure, &named) {
                            return Replay::Confirmed { finding, launch };
                        }
                        other.get_or_insert(Replay::Other { finding, launch });
                    }
                }
                Err(error) => refusal = Some(run_error(&error)),
            }
        }
        if ran {
            break;
        }
    }
    match (ran, refusal) {
        (true, _) => other.unwrap_or(Replay::Clean { launch: described }),
        (false, Some(reason)) => Replay::NotReplayed(reason),
        (false, None) => Replay::NotReplayed("no run was possible".into()),
    }
}

/// `""` for one, `"s"` for any other count.
pub fn plural<N: PartialEq + From<u8>>(count: N) -> &'static str {
    if count == N::from(1) {
        ""
    } else {
        "s"
    }
}

/// A launch's size in words: `2 groups of 1 thread`.
pub fn launch_size(groups: Extent, gsize: Extent) -> String {
    format!("{groups} group{} of {gsize} thread{}", plural(groups.total()), plural(gsize.total()))
}

/// The extents of a counterexample's launch along the kernel's axes: each axis but the last as
/// the model (`gsize_x = 4`) or a precondition gives it, the last axis the rest of `total`; a
/// single axis where they do not divide `total`.
fn shape(kernel: &Kernel, total: u32, groups: bool, value: &dyn Fn(&str) -> Option<i64>) -> Extent {
    let mut extents = [1; 3];
    let mut rest = total;
    for axis in &Axis::ALL[..kernel.dimensions - 1] {
        let size = if groups { Builtin::Groups(*axis) } else { Builtin::GroupSize(*axis) };
        let given = value(size.name()).or_else(|| kernel.pinned_size(size).and_then(|value| i64::try_from(value).ok()));
        match given.and_then(|given| u32::try_from(given).ok()).filter(|&given| given > 0 && rest.is_multiple_of(given))
        {
            Some(given) => {
                extents[*axis as usize] = given;
                rest /= given;
            }
            None => return Extent::from(total),
        }
    }
    extents[kernel.dimensions - 1] = rest;
    Extent(extents)
}
