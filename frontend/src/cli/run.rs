//! `lockstep run`: run a file's kernels concretely on one launch.

use crate::cli::verify::render_report;
use clap::ValueEnum;
use lockstep_frontend::run::{self, Finding, Options};
use lockstep_frontend::source::SourceFile;
use lockstep_logic::execute::{self, Interleavings, Outcome, RunError, Schedule};
use lockstep_logic::fences::MemoryModel;
use lockstep_logic::{Kernel, Program};
use num_bigint::BigInt;
use std::io::IsTerminal;
use std::process::ExitCode;

/// How the threads' steps are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScheduleKind {
    /// Every interleaving, up to equivalence: interleavings that only reorder steps of different
    /// threads touching no common cell (or only reading it) reach the same state, so one schedule
    /// per class is explored. Without a race there is one class, which the canonical schedule (each
    /// thread in turn to its next barrier) stands for; a race is a bug, and ends the run.
    Exhaustive,
    /// Every interleaving, one by one, up to `--limit`: for very small launches, and to check the
    /// reduction.
    All,
    /// `--runs` schedules drawn at random from `--seed`, each checked against the canonical one.
    Random,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MemoryKind {
    Zero,
    Random,
}

/// The command's arguments, as `main` parsed them.
pub struct Arguments {
    pub file: String,
    pub kernel: Option<String>,
    pub groups: run::Extent,
    pub gsize: run::Extent,
    pub params: Vec<String>,
    pub init: Vec<String>,
    pub memory: MemoryKind,
    pub seed: u64,
    pub schedule: ScheduleKind,
    pub runs: u64,
    pub limit: u64,
    /// The memory model asked for; without one, the file's language's.
    pub memory_model: Option<MemoryModel>,
    /// How integers are read, where the file's language does not decide.
    pub integers: Option<lockstep_frontend::Integers>,
    /// One JSON document on stdout instead of diagnostics and summary lines.
    pub json: bool,
    /// The user's options for Clang (`-I`, `-D`, `-include`).
    pub clang: lockstep_frontend::c::clang::Options,
}

impl Arguments {
    /// The memory model the run's barriers follow.
    fn memory_model(&self) -> MemoryModel {
        self.memory_model.unwrap_or_else(|| lockstep_frontend::memory_model_of(&self.file))
    }
}

pub fn run(arguments: &Arguments) -> ExitCode {
    let checked = match std::fs::read(&arguments.file) {
        Ok(bytes) => {
            lockstep_frontend::check_bytes_reading(&arguments.file, bytes, arguments.integers, &arguments.clang)
        }
        Err(error) => {
            eprintln!("error: cannot read `{}`: {error}", arguments.file);
            return ExitCode::from(2);
        }
    };
    let Some(program) = checked.program.as_ref().filter(|_| !checked.has_errors()) else {
        for diagnostic in &checked.diagnostics {
            eprint!("{}", diagnostic.render(&checked.file));
        }
        return ExitCode::from(2);
    };
    let options = match options(arguments) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let kernels: Vec<&Kernel> = program
        .kernels
        .iter()
        .filter(|kernel| arguments.kernel.as_ref().is_none_or(|name| kernel.name == *name))
        .collect();
    if kernels.is_empty() {
        let names: Vec<&str> = program.kernels.iter().map(|kernel| kernel.name.as_str()).collect();
        eprintln!("error: `{}` has no kernel named so (its kernels: {})", arguments.file, names.join(", "));
        return ExitCode::from(2);
    }
    let (codes, reports): (Vec<u8>, Vec<serde_json::Value>) =
        kernels.iter().map(|kernel| run_kernel(&checked.file, program, kernel, &options, arguments)).unzip();
    if arguments.json {
        let document = serde_json::json!({ "files": [{ "path": checked.file.path, "kernels": reports }] });
        println!("{}", serde_json::to_string_pretty(&document).expect("JSON values serialise"));
    }
    // A bad input outranks a bug, which outranks a run that gave up.
    let code = [2, 1, 3].into_iter().find(|code| codes.contains(code)).unwrap_or(0);
    ExitCode::from(code)
}

fn options(arguments: &Arguments) -> Result<Options, String> {
    let params = arguments
        .params
        .iter()
        .map(|param| {
            let (name, value) = param.split_once('=').ok_or(format!("`--param {param}`: write NAME=VALUE"))?;
            let value =
                value.trim().parse::<BigInt>().map_err(|_| format!("`--param {param}`: `{value}` is no integer"))?;
            Ok((name.trim().to_string(), value))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let init = arguments
        .init
        .iter()
        .map(|init| {
            let (name, values) = init.split_once('=').ok_or(format!("`--init {init}`: write ARRAY=V0,V1,..."))?;
            let values = values.parse::<run::Init>().map_err(|error| format!("`--init {init}`: {error}"))?;
            Ok((name.trim().to_string(), values))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Options {
        groups: arguments.groups,
        gsize: arguments.gsize,
        params,
        init,
        random_memory: (arguments.memory == MemoryKind::Random).then_some(arguments.seed),
    })
}

/// Runs one kernel and reports (in words unless `--format json`): the exit code it calls for, and
/// its JSON report.
fn run_kernel(
    file: &SourceFile,
    program: &Program,
    kernel: &Kernel,
    options: &Options,
    arguments: &Arguments,
) -> (u8, serde_json::Value) {
    let human = !arguments.json;
    let mut report = serde_json::json!({ "name": kernel.name });
    let launch = match run::launch(program, kernel, options) {
        Ok(launch) => launch,
        Err(error) => {
            let message = run::run_error(&error);
            let (code, _, result) = error_verdict(&error);
            if human {
                eprintln!("error: kernel {}: {message}", kernel.name);
            }
            report["result"] = result.into();
            report["error"] = message.into();
            return (code, report);
        }
    };
    let params: serde_json::Map<String, serde_json::Value> = kernel
        .params
        .iter()
        .zip(&launch.params)
        .map(|(param, value)| (kernel.var(*param).name.clone(), value.to_string().into()))
        .collect();
    report["launch"] = serde_json::json!({ "groups": launch.groups, "gsize": launch.gsize, "params": params });
    let threads = run::launch_size(run::Extent(launch.axes.groups), run::Extent(launch.axes.gsize));
    let header = format!("{}: kernel {} on {threads}", file.path, kernel.name);
    let memory_model = arguments.memory_model();
    let canonical = || execute::run(program, kernel, &launch, &Schedule::Canonical, memory_model);
    let (result, schedule) = match arguments.schedule {
        ScheduleKind::Exhaustive => (canonical(), "canonical (each thread in turn to its next barrier)".to_string()),
        ScheduleKind::All => (
            execute::run(program, kernel, &launch, &Schedule::Exhaustive { limit: arguments.limit }, memory_model),
            "every interleaving, depth first".to_string(),
        ),
        ScheduleKind::Random => random_runs(program, kernel, &launch, canonical(), arguments),
    };
    let code = match result {
        Ok(outcome) => {
            report["schedules"] = outcome.schedules.into();
            match &outcome.bug {
                Some((bug, steps)) => {
                    let finding = run::finding(kernel, bug, steps, &schedule);
                    report["result"] = "bug".into();
                    report["finding"] = finding_json(file, &finding);
                    if human {
                        eprint!("{}", render(file, &finding));
                        println!(
                            "{header}: bug found ({}) after {} schedule{}",
                            finding.code,
                            outcome.schedules,
                            run::plural(outcome.schedules)
                        );
                    }
                    1
                }
                None => {
                    report["result"] = "clean".into();
                    if human {
                        println!("{header}: no bug found ({})", explored(&outcome, arguments.schedule));
                    } else {
                        // Only where it is written: the exact count of a large launch has hundreds
                        // of thousands of digits, which take a while to write in decimal.
                        report["interleavings"] = outcome.interleavings.exact().to_string().into();
                    }
                    0
                }
            }
        }
        Err(error) => {
            let message = run::run_error(&error);
            let (code, verdict, result) = error_verdict(&error);
            report["result"] = result.into();
            report["error"] = message.clone().into();
            if human {
                match run::run_error_span(&error) {
                    Some(span) => {
                        let labels = vec![(span, String::new())];
                        eprint!("{}", render(file, &Finding { code: "run", message, labels, notes: Vec::new() }));
                    }
                    None => eprintln!("error: kernel {}: {message}", kernel.name),
                }
                println!("{header}: {verdict}");
            }
            code
        }
    };
    (code, report)
}

/// A run without a verdict: its exit code, in words, and its JSON `result`. A launch the kernel
/// promises nothing for is refused; a run that gave up (a limit of `run`, not a bug) is incomplete.
fn error_verdict(error: &RunError) -> (u8, &'static str, &'static str) {
    match error {
        RunError::Precondition { .. } | RunError::Mismatch { .. } => (2, "launch refused", "refused"),
        RunError::GaveUp { .. } | RunError::Assumed { .. } => (3, "run incomplete", "incomplete"),
    }
}

fn finding_json(file: &SourceFile, finding: &Finding) -> serde_json::Value {
    let places: Vec<serde_json::Value> = finding
        .labels
        .iter()
        .map(|(span, label)| {
            let position = file.position(span.start);
            serde_json::json!({ "line": position.line, "column": position.column, "label": label })
        })
        .collect();
    serde_json::json!({
        "code": finding.code,
        "message": finding.message,
        "line": places.first().map(|place| place["line"].clone()),
        "column": places.first().map(|place| place["column"].clone()),
        "places": places,
        "notes": finding.notes,
    })
}

/// `--runs` random schedules: the first with a bug, or the last, after checking that every one
/// ends in the canonical schedule's memory.
fn random_runs(
    program: &Program,
    kernel: &Kernel,
    launch: &execute::Launch,
    canonical: Result<Outcome, RunError>,
    arguments: &Arguments,
) -> (Result<Outcome, RunError>, String) {
    let canonical = match canonical {
        Ok(outcome) => outcome,
        Err(error) => return (Err(error), String::new()),
    };
    let mut last = canonical.clone();
    for run in 0..arguments.runs.max(1) {
        let seed = arguments.seed.wrapping_add(run);
        let schedule = format!("random (seed {seed})");
        let outcome = match execute::run(program, kernel, launch, &Schedule::Random { seed }, arguments.memory_model())
        {
            Ok(outcome) => outcome,
            Err(error) => return (Err(error), schedule),
        };
        if outcome.bug.is_some() {
            return (Ok(Outcome { schedules: run + 1, ..outcome }), schedule);
        }
        if canonical.bug.is_none() && outcome.memory != canonical.memory {
            // A race-free run behaves as every schedule does; anything else is a bug of `run`.
            return (
                Err(RunError::GaveUp {
                    detail: format!(
                        "the schedule of seed {seed} ended in other memory than the canonical one: please report this"
                    ),
                    span: None,
                }),
                schedule,
            );
        }
        last = Outcome { schedules: run + 1, ..outcome };
    }
    (
        Ok(last),
        format!("random (seeds {} to {})", arguments.seed, arguments.seed.wrapping_add(arguments.runs.max(1) - 1)),
    )
}

fn explored(outcome: &Outcome, schedule: ScheduleKind) -> String {
    match schedule {
        ScheduleKind::Exhaustive => format!(
            "1 schedule explored; {} of the threads' steps {} equivalent to it, as no two threads' steps in one barrier interval touch a common cell unless both only read it",
            count(&outcome.interleavings),
            if outcome.interleavings.is_one() { "is" } else { "are" }
        ),
        ScheduleKind::Random => format!(
            "{} random schedule{} explored, each ending as the canonical one",
            outcome.schedules,
            run::plural(outcome.schedules)
        ),
        ScheduleKind::All => format!("all {} schedule{} explored one by one", outcome.schedules, run::plural(outcome.schedules)),
    }
}

/// The interleavings a schedule stands for, in words.
fn count(interleavings: &Interleavings) -> String {
    if interleavings.is_one() {
        return "the one interleaving".into();
    }
    let approximate = interleavings.approximate();
    if approximate.contains('e') {
        format!("all (about {approximate}) interleavings")
    } else {
        format!("all {approximate} interleavings")
    }
}

fn render(file: &SourceFile, finding: &Finding) -> String {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    render_report(file, finding.code, &finding.message, miette::Severity::Error, &finding.labels, &finding.notes, color)
}
