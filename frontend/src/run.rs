//! `lockstep run`'s engine: a launch built from the user's choices, and what a run found, in the
//! words and places a diagnostic shows.
//!
//! Decisions where the issue is silent:
//! - a parameter the user does not give takes the value a thread precondition pins it to
//!   (`requires n == tcount;`), else 0, or with random memory a random value in `[1, 8]` (small and
//!   positive, as sizes, strides and divisors want);
//! - memory starts at zero, or at random values in `[-16, 16]` (`--memory random`); then the cells a
//!   thread precondition pins (`requires a[tid] == 1;`) take that value, and last the cells the user
//!   gives (`--init a=1,2,3`, a prefix of the array);
//! - a launch that breaks the kernel's precondition is refused (exit 2): the kernel promises nothing
//!   for it.

use lockstep_logic::eval::Value;
use lockstep_logic::execute::{self, Bug, Launch, RunError, ThreadIds};
use lockstep_logic::{Kernel, Memory, Program, Span};
use num_bigint::BigInt;

/// What the user chose for a launch.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub groups: u32,
    pub gsize: u32,
    /// `name=value` for kernel parameters.
    pub params: Vec<(String, BigInt)>,
    /// The initial contents of arrays.
    pub init: Vec<(String, Init)>,
    /// Random initial memory from this seed; zero memory when `None`.
    pub random_memory: Option<u64>,
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
/// Random parameters lie in `[1, RANDOM_PARAMETER]`.
const RANDOM_PARAMETER: u64 = 8;

/// The launch the options describe, or why there is none: options that do not fit the kernel
/// ([`RunError::Mismatch`]), a launch that breaks its precondition, or a pinned value the run cannot
/// compute ([`RunError::GaveUp`]).
pub fn launch(program: &Program, kernel: &Kernel, options: &Options) -> Result<Launch, RunError> {
    let mismatch = |detail: String| Err(RunError::Mismatch { detail });
    if options.groups == 0 || options.gsize == 0 {
        return mismatch("a launch needs at least one group of at least one thread".into());
    }
    if u64::from(options.groups) * u64::from(options.gsize) > u64::from(MAX_THREADS) {
        return mismatch(format!("a run takes at most {MAX_THREADS} threads; this launch has more"));
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
    let mut launch = Launch { groups: options.groups, gsize: options.gsize, params: Vec::new(), memory: Vec::new() };
    let mut random = execute::SplitMix64(options.random_memory.unwrap_or(0));
    launch.params = kernel
        .params
        .iter()
        .map(|param| {
            let given = options.params.iter().find(|(name, _)| *name == kernel.var(*param).name);
            match (given, options.random_memory) {
                (Some((_, value)), _) => Value::Int(value.clone()),
                (None, Some(_)) => Value::int(1 + random.next() % RANDOM_PARAMETER),
                (None, None) => Value::int(0),
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
            let why = if first.thread.gid == second.thread.gid {
                format!(
                    "no barrier that fences {memory} memory lies between these accesses: separate them with a `{fence}`, or let each thread touch cells no other thread touches in the same interval"
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
                    verb(first.write)
                ),
                labels: vec![
                    (second.span, format!("{} {} `{cell}` here", thread(second.thread), verb(second.write))),
                    (first.span, format!("{} {} `{cell}` here", thread(first.thread), verb(first.write))),
                ],
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
    /// A run of the counterexample's launch finds a bug: the failure is real.
    Confirmed { launch: String, finding: Finding },
    /// Runs of the launch are clean: the failure may be spurious (an annotation too weak).
    Clean { launch: String },
    /// No run was possible, and why.
    NotReplayed(String),
}

/// The most threads a replay runs: a model's sizes are arbitrary, and a replay must stay quick.
const MAX_REPLAY_THREADS: u32 = 65_536;

/// Replays a failed obligation's counterexample: a launch with the model's sizes (`gsize`,
/// `tcount`), parameters and the cells it shows of arrays no statement writes (whose values are
/// the initial ones), run with zero memory and a few random ones elsewhere. Where that launch breaks
/// the precondition, the input arrays are filled as `iota`, then `reverse`, instead.
pub fn replay(program: &Program, kernel: &Kernel, counterexample: &[(String, String)]) -> Replay {
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
    let groups = (tcount / gsize) as u32;
    let gsize = gsize as u32;
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
    let mut ran = false;
    let mut refusal = None;
    for (filling, init) in fillings {
        for memory in [None, Some(1), Some(2), Some(3)] {
            let options = Options { groups, gsize, params: params.clone(), init: init.clone(), random_memory: memory };
            let launch = match self::launch(program, kernel, &options) {
                Ok(launch) => launch,
                Err(error) => return Replay::NotReplayed(run_error(&error)),
            };
            match execute::run(program, kernel, &launch, &execute::Schedule::Canonical) {
                Ok(outcome) => {
                    ran = true;
                    if let Some((bug, steps)) = outcome.bug {
                        let memory =
                            memory.map_or("zero memory".to_string(), |seed| format!("random memory (seed {seed})"));
                        let launch = format!("{described}, {memory}{filling}");
                        return Replay::Confirmed { finding: finding(kernel, &bug, &steps, "canonical"), launch };
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
        (true, _) => Replay::Clean { launch: described },
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
pub fn launch_size(groups: u32, gsize: u32) -> String {
    format!("{groups} group{} of {gsize} thread{}", plural(groups), plural(gsize))
}

/// A count as a person reads it: exact up to nine digits, else `d.dde N`.
pub fn approximate(count: &num_bigint::BigUint) -> String {
    let digits = count.to_string();
    if digits.len() <= 9 {
        digits
    } else {
        format!("{}.{}e{}", &digits[..1], &digits[1..3], digits.len() - 1)
    }
}
