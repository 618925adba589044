//! `lockstep verify`: check, encode and verify kernel files.

use crate::cli::ivl::{self, Emit};
use crate::cli::sarif;
use crate::cli::ReportFormat;
use lockstep_encoder::kernel;
use lockstep_logic::outline::Outline;

use lockstep_frontend::diagnostics::{Code, Diagnostic};
use lockstep_frontend::run::{self, Replay};
use lockstep_frontend::source::SourceFile;
use lockstep_frontend::verify::{self, KernelResult, ObligationResult, Verdict, VerifyError};
use lockstep_frontend::Checked;
use lockstep_logic::fences::MemoryModel;
use lockstep_logic::Span;
use std::io::IsTerminal;
use std::process::ExitCode;

/// How `verify` reports, besides its verdicts.
#[derive(Clone, Copy)]
pub struct Reporting {
    pub emit: Option<Emit>,
    pub format: ReportFormat,
    /// Replay each failure's counterexample with the concrete executor.
    pub replay: bool,
}

pub fn run(paths: &[String], settings: &verify::Settings, reporting: Reporting) -> ExitCode {
    let Reporting { emit, format, replay } = reporting;
    let human = format == ReportFormat::Human;
    let mut log = sarif::Log::default();
    let mut rejected = false;
    let mut failed = false;
    let mut undecided = false;
    let mut files = Vec::new();
    // The first solvers are made while the files are read and checked.
    if emit.is_none() {
        lockstep_encoder::run::prepare(settings.backend, &settings.limits);
    }
    let read: Vec<(&String, Result<Vec<u8>, std::io::Error>)> =
        paths.iter().map(|path| (path, std::fs::read(path))).collect();
    // The files are verified in parallel, and reported in order; `--emit` only checks them,
    // unless a kernel's contracts are to be inferred, which takes the solver.
    let verified = in_parallel(&read, |(path, bytes)| {
        let bytes = bytes.as_ref().ok()?.clone();
        if emit.is_none() {
            return Some(verify::file(path, bytes, settings));
        }
        let checked = verify::check(path, bytes, settings);
        let infers = settings.infer
            && checked.program.iter().flat_map(|program| &program.kernels).any(|kernel| !kernel.has_permissions());
        Some(if infers {
            verify::of_checked(checked, settings)
        } else {
            verify::Verification { checked, kernels: None }
        })
    });
    for ((path, bytes), verification) in read.iter().zip(verified) {
        let (Ok(_), Some(verify::Verification { checked, kernels })) = (bytes, verification) else {
            let error = bytes.as_ref().err().map_or_else(String::new, ToString::to_string);
            let message = format!("cannot read `{path}`: {error}");
            if format == ReportFormat::Sarif {
                let unreadable = Diagnostic::error(Code::Unreadable, &message, Span::new(0, 0), "");
                log.diagnostic(&SourceFile::new(path.as_str(), ""), &unreadable);
            }
            eprintln!("error: {message}");
            rejected = true;
            continue;
        };
        let Some(program) = checked.program.as_ref().filter(|_| !checked.has_errors()) else {
            for diagnostic in &checked.diagnostics {
                if format == ReportFormat::Sarif {
                    log.diagnostic(&checked.file, diagnostic);
                } else {
                    eprint!("{}", diagnostic.render(&checked.file));
                }
            }
            files.push(file_json(&checked, &[], &[], None));
            rejected = true;
            continue;
        };
        if let Some(emit) = emit {
            let inferred: Vec<Option<&lockstep_logic::Kernel>> = match &kernels {
                Some(Ok(results)) => results.iter().map(|result| result.inferred.as_ref()).collect(),
                Some(Err(error)) => {
                    eprintln!("{path}: error: {}", error.message);
                    rejected = true;
                    continue;
                }
                None => vec![None; program.kernels.len()],
            };
            for (written, inferred) in program.kernels.iter().zip(inferred) {
                let kernel_ir = inferred.unwrap_or(written);
                let outline = Outline::of(program, kernel_ir, settings.memory_model_of(path));
                let encoding = kernel::encode(&outline);
                ivl::write_program(&lockstep_encoder::run::without_probes(&encoding.program, &kernel::is_probe), emit);
            }
            continue;
        }
        match kernels.expect("every well-formed file was verified") {
            Ok(kernels) => {
                let replays: Vec<Vec<Option<Replay>>> = kernels
                    .iter()
                    .map(|result| {
                        if replay {
                            replays(program, result, settings.memory_model_of(path))
                        } else {
                            vec![None; result.results.len()]
                        }
                    })
                    .collect();
                // `check`'s warnings, which verification does not make go away.
                let warnings = checked.diagnostics.iter().filter(|diagnostic| !diagnostic.is_error());
                if human {
                    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
                    for warning in warnings {
                        eprint!("{}", warning.render_with(&checked.file, color));
                    }
                } else if format == ReportFormat::Sarif {
                    for warning in warnings {
                        log.diagnostic(&checked.file, warning);
                    }
                }
                for (result, replays) in kernels.iter().zip(&replays) {
                    match result.verdict() {
                        Verdict::Failed => failed = true,
                        Verdict::Undecided(_) => undecided = true,
                        Verdict::Verified | Verdict::NotChecked(_) => {}
                    }
                    match format {
                        ReportFormat::Human => report_human(&checked.file, result, replays),
                        ReportFormat::Json => {}
                        ReportFormat::Sarif => {
                            for warning in &result.warnings {
                                log.diagnostic(&checked.file, warning);
                            }
                            for (outcome, replay) in result.results.iter().zip(replays) {
                                log.obligation(&checked.file, &result.name, outcome, replay.as_ref().map(replay_json));
                            }
                        }
                    }
                }
                files.push(file_json(&checked, &kernels, &replays, None));
            }
            Err(error) => {
                if format == ReportFormat::Sarif {
                    let failure = Diagnostic::error(Code::SolverFailed, &error.message, error.span, "");
                    log.diagnostic(&checked.file, &failure);
                }
                report_error(&checked.file, error.span, &error.message);
                files.push(file_json(&checked, &[], &[], Some(&error)));
                rejected = true;
            }
        }
    }
    match format {
        _ if emit.is_some() => {}
        ReportFormat::Human => {}
        ReportFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "files": files })).expect("JSON values serialise")
        ),
        ReportFormat::Sarif => println!("{}", log.into_json(!rejected)),
    }
    if rejected {
        ExitCode::from(2)
    } else if failed {
        ExitCode::from(1)
    } else if undecided {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

/// `work` applied to every item, on as many threads as there are cores, each taking the next item
/// not yet taken. The results come back in the items' order. (Each file's verification starts
/// threads, and so z3 contexts, of its own, so which worker takes it does not matter.)
fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get()).min(items.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<R>>> = std::sync::Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(item) = items.get(index) else { break };
                let result = work(item);
                results.lock().expect("no worker panicked")[index] = Some(result);
            });
        }
    });
    let results = results.into_inner().expect("no worker panicked");
    results.into_iter().map(|result| result.expect("every item was worked on")).collect()
}

fn report_error(file: &SourceFile, span: lockstep_logic::Span, message: &str) {
    let position = file.position(span.start);
    eprintln!("{}:{}:{}: error: {message}", file.path, position.line, position.column);
}

/// The replay of each failed obligation's counterexample (`None` where there is nothing to replay).
fn replays(program: &lockstep_logic::Program, result: &KernelResult, memory_model: MemoryModel) -> Vec<Option<Replay>> {
    let kernel = result.inferred.as_ref().or_else(|| program.kernels.iter().find(|kernel| kernel.name == result.name));
    result
        .results
        .iter()
        .map(|outcome| {
            let kernel = kernel.filter(|_| outcome.verdict == Verdict::Failed && !outcome.counterexample.is_empty())?;
            let failure = run::Failure { obligation: outcome.obligation.id, span: outcome.obligation.span };
            Some(run::replay(program, kernel, failure, &outcome.counterexample, memory_model))
        })
        .collect()
}

/// A replay in a sentence.
fn replay_line(replay: &Replay) -> String {
    match replay {
        Replay::Confirmed { launch, finding } => {
            format!("replay: confirmed: a run of {launch} finds {}: {}", finding.code, finding.message)
        }
        Replay::Other { launch, finding } => format!(
            "replay: not confirmed: a run of {launch} finds another bug, not this failure: {}: {}",
            finding.code, finding.message
        ),
        Replay::Clean { launch } => format!(
            "replay: not confirmed: runs of {launch} with the counterexample's values are clean, so the failure may be spurious (an invariant or a contract too weak to prove what holds), or need other memory"
        ),
        Replay::NotReplayed(reason) => format!("replay: not replayed: {reason}"),
    }
}

fn report_human(file: &SourceFile, result: &KernelResult, replays: &[Option<Replay>]) {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    for warning in &result.warnings {
        eprint!("{}", warning.render_with(file, color));
    }
    for (outcome, replay) in result.results.iter().zip(replays) {
        if matches!(outcome.verdict, Verdict::Verified | Verdict::NotChecked(_)) {
            continue;
        }
        eprint!("{}", render(file, outcome, color));
        if let Some(replay) = replay {
            eprintln!("  {}\n", replay_line(replay));
        }
    }
    let failed = result.results.iter().filter(|outcome| outcome.verdict == Verdict::Failed).count();
    let verdict = match result.verdict() {
        Verdict::Verified | Verdict::NotChecked(_) => "verified".to_string(),
        Verdict::Failed => format!("failed ({failed} of {} obligations failed)", result.results.len()),
        Verdict::Undecided(reason) => format!("undecided ({reason})"),
    };
    // What a verdict leaves out, said with it: the obligations the user chose not to check.
    let mut unchecked: Vec<(&str, Vec<&str>)> = Vec::new();
    for outcome in &result.results {
        let Verdict::NotChecked(reason) = outcome.verdict else { continue };
        let id = outcome.obligation.id.as_str();
        match unchecked.iter_mut().find(|(seen, _)| *seen == reason) {
            Some((_, ids)) if ids.contains(&id) => {}
            Some((_, ids)) => ids.push(id),
            None => unchecked.push((reason, vec![id])),
        }
    }
    let unchecked: String =
        unchecked.iter().map(|(reason, ids)| format!("; not checked: {} ({reason})", ids.join(", "))).collect();
    let warnings = match result.warnings.len() {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        count => format!(", {count} warnings"),
    };
    println!("{}: kernel {}: {verdict}{warnings}{unchecked}", file.path, result.name);
}

/// A failed or undecided obligation as miette draws it: the obligation id as the code, the
/// clause or statement as the primary label, the other place involved as a secondary label, and
/// the help and the counterexample below.
pub fn render(file: &SourceFile, outcome: &ObligationResult, color: bool) -> String {
    let obligation = &outcome.obligation;
    let (severity, label) = match &outcome.verdict {
        Verdict::Failed => (miette::Severity::Error, "fails here".to_string()),
        Verdict::Undecided(reason) => (miette::Severity::Warning, format!("undecided: {reason}")),
        Verdict::Verified => (miette::Severity::Advice, "verified".to_string()),
        Verdict::NotChecked(reason) => (miette::Severity::Advice, format!("not checked: {reason}")),
    };
    let mut labels = vec![(obligation.span, label)];
    labels.extend(obligation.related.clone());
    let mut help: Vec<String> = Vec::new();
    if let Some(text) = obligation.help.as_ref().filter(|_| outcome.verdict == Verdict::Failed) {
        help.push(text.clone());
    }
    if let Some(values) = outcome.counterexample_text() {
        help.push(format!("counterexample: {values}"));
    }
    render_report(file, obligation.id.as_str(), &obligation.message, severity, &labels, &help, color)
}

/// A report as miette draws it: the code, the message, the labelled places (the first primary) and
/// the help lines below.
pub fn render_report(
    file: &SourceFile,
    code: &str,
    message: &str,
    severity: miette::Severity,
    labels: &[(lockstep_logic::Span, String)],
    help: &[String],
    color: bool,
) -> String {
    let labels = labels.iter().enumerate().map(|(index, (place, label))| {
        let label = Some(label.clone()).filter(|label| !label.is_empty());
        if index == 0 {
            miette::LabeledSpan::new_primary_with_span(label, span(*place))
        } else {
            miette::LabeledSpan::new_with_span(label, span(*place))
        }
    });
    let mut report = miette::MietteDiagnostic::new(message.to_string())
        .with_code(code.to_string())
        .with_severity(severity)
        .with_labels(labels);
    if !help.is_empty() {
        report = report.with_help(help.join("\n"));
    }
    let report = miette::Report::new(report).with_source_code(file.clone());
    let theme = if color { miette::GraphicalTheme::unicode() } else { miette::GraphicalTheme::unicode_nocolor() };
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .render_report(&mut out, report.as_ref())
        .expect("rendering into a String cannot fail");
    out
}

fn span(span: lockstep_logic::Span) -> miette::SourceSpan {
    miette::SourceSpan::from(span.start..span.end)
}

fn file_json(
    checked: &Checked,
    kernels: &[KernelResult],
    replays: &[Vec<Option<Replay>>],
    error: Option<&VerifyError>,
) -> serde_json::Value {
    let file = &checked.file;
    let mut errors: Vec<serde_json::Value> = checked
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .map(|diagnostic| {
            let position = file.position(diagnostic.primary.span.start);
            serde_json::json!({ "code": diagnostic.code.as_str(), "line": position.line, "column": position.column, "message": diagnostic.message })
        })
        .collect();
    if let Some(error) = error {
        let position = file.position(error.span.start);
        errors.push(serde_json::json!({ "code": Code::SolverFailed.as_str(), "line": position.line, "column": position.column, "message": error.message }));
    }
    let warnings: Vec<serde_json::Value> = checked
        .diagnostics
        .iter()
        .filter(|diagnostic| !diagnostic.is_error())
        .chain(kernels.iter().flat_map(|kernel| &kernel.warnings))
        .map(|diagnostic| diagnostic.to_json(file))
        .collect();
    let kernels: Vec<serde_json::Value> = kernels
        .iter()
        .enumerate()
        .map(|(index, kernel)| {
            let obligations: Vec<serde_json::Value> = kernel
                .results
                .iter()
                .enumerate()
                .map(|(position, outcome)| {
                    let replay = replays.get(index).and_then(|replays| replays.get(position)).cloned().flatten();
                    let position = file.position(outcome.obligation.span.start);
                    let counterexample: Vec<serde_json::Value> = outcome
                        .counterexample
                        .iter()
                        .map(|(name, value)| serde_json::json!({ "name": name, "value": value }))
                        .collect();
                    let mut object = serde_json::json!({
                        "id": outcome.obligation.id.as_str(),
                        "status": outcome.verdict.name(),
                        "line": position.line,
                        "column": position.column,
                        "message": outcome.obligation.message,
                        "help": outcome.obligation.help,
                        "counterexample": counterexample,
                    });
                    match &outcome.verdict {
                        Verdict::Undecided(reason) => object["reason"] = serde_json::json!(reason),
                        Verdict::NotChecked(reason) => object["reason"] = serde_json::json!(reason),
                        Verdict::Verified | Verdict::Failed => {}
                    }
                    if let Some(replay) = replay {
                        object["replay"] = replay_json(&replay);
                    }
                    object
                })
                .collect();
            serde_json::json!({ "name": kernel.name, "verdict": kernel.verdict().name(), "resources": kernel.resources, "obligations": obligations })
        })
        .collect();
    serde_json::json!({ "path": file.path, "kernels": kernels, "errors": errors, "warnings": warnings })
}

fn replay_json(replay: &Replay) -> serde_json::Value {
    match replay {
        Replay::Confirmed { launch, finding } => serde_json::json!({
            "status": "confirmed",
            "launch": launch,
            "finding": { "code": finding.code, "message": finding.message },
        }),
        Replay::Other { launch, finding } => serde_json::json!({
            "status": "other bug",
            "launch": launch,
            "finding": { "code": finding.code, "message": finding.message },
        }),
        Replay::Clean { launch } => serde_json::json!({ "status": "not confirmed", "launch": launch }),
        Replay::NotReplayed(reason) => serde_json::json!({ "status": "not replayed", "reason": reason }),
    }
}
