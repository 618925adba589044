//! Real Boogie as the reference backend: it runs on the printed IVL, and its answer is mapped back
//! to checks by the kind of error (its `BP500x` code) and the line of the check, never by prose.
//!
//! Debian's Boogie 2.4.1 always exits with status 0, so the answer is read from its output: the
//! error lines, their `Related location` lines, and the closing `finished with N verified, M errors`.
//! With z3 4.8.12 it also prints a complaint about the parameter `model_compress`, followed by z3's
//! list of parameters; those lines, and only those, are filtered.

use crate::vcgen::CheckKind;
use std::path::PathBuf;
use std::process::Command;

/// A failure as Boogie reports it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Failure {
    pub kind: CheckKind,
    /// The line of the check: the assert, the invariant, the `ensures` (Boogie's related location
    /// for a postcondition), or the call for a precondition.
    pub line: u32,
    /// For a precondition, the line of the `requires` that fails.
    pub related_line: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub failures: Vec<Failure>,
    pub verified: usize,
    pub errors: usize,
    pub timeouts: usize,
    /// Output lines that are neither errors nor known noise: parse or type errors, prover failures.
    pub problems: Vec<String>,
}

/// Runs Boogie on a program text. `LOCKSTEP_BOOGIE` names the program to run instead of `boogie`.
pub fn run(text: &str, time_limit_seconds: u32) -> Result<Report, String> {
    let program = std::env::var("LOCKSTEP_BOOGIE").unwrap_or_else(|_| "boogie".to_string());
    let file = temporary_file(text)?;
    let output = Command::new(&program)
        .arg("/nologo")
        .arg("/errorLimit:10000")
        // The SMT array theory, as the built-in engine uses: maps are extensional.
        .arg("/useArrayTheory")
        .arg(format!("/timeLimit:{time_limit_seconds}"))
        .arg(&file)
        .output();
    let _ = std::fs::remove_file(&file);
    let output = output.map_err(|error| {
        format!("cannot run `{program}`: {error} (install it with `apt-get install boogie`, or name it with LOCKSTEP_BOOGIE=PATH)")
    })?;
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    Ok(parse_output(&text))
}

fn temporary_file(text: &str) -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = format!("lockstep-{}-{}.bpl", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed));
    let path = std::env::temp_dir().join(name);
    std::fs::write(&path, text).map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(path)
}

/// The `(line,column)` position at the start of a Boogie message, with the rest of the line.
fn located(line: &str) -> Option<(u32, &str)> {
    let open = line.find(".bpl(")? + 4;
    let close = line[open..].find(')')? + open;
    let (row, _column) = line[open + 1..close].split_once(',')?;
    Some((row.trim().parse().ok()?, line[close + 1..].trim_start_matches(':').trim()))
}

fn kind_of(code: &str) -> Option<CheckKind> {
    Some(match code {
        "BP5001" => CheckKind::Assertion,
        "BP5002" => CheckKind::Precondition,
        "BP5003" => CheckKind::Postcondition,
        "BP5004" => CheckKind::InvariantEntry,
        "BP5005" => CheckKind::InvariantPreserved,
        _ => return None,
    })
}

/// Reads Boogie's output.
pub fn parse_output(output: &str) -> Report {
    let mut report = Report::default();
    let mut lines = output.lines().peekable();
    let mut in_parameter_list = false;
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        // z3 4.8.12 does not know `model_compress`: Boogie relays the complaint and z3's list of
        // legal parameters, which ends where the next real message starts.
        if trimmed.starts_with("Prover error:") && trimmed.contains("model_compress") {
            in_parameter_list = true;
            continue;
        }
        if in_parameter_list {
            if trimmed == "Legal parameters are:" || line.starts_with("  ") {
                continue;
            }
            in_parameter_list = false;
        }
        if trimmed.is_empty() || trimmed == "Execution trace:" || line.starts_with("    ") {
            continue;
        }
        if let Some(summary) = trimmed.strip_prefix("Boogie program verifier finished with ") {
            for part in summary.split(", ") {
                let mut words = part.split_whitespace();
                let count = words.next().and_then(|count| count.parse().ok()).unwrap_or(0);
                match words.next() {
                    Some("verified") => report.verified = count,
                    Some("error" | "errors") => report.errors = count,
                    Some("time") => report.timeouts = count,
                    _ => {}
                }
            }
            continue;
        }
        if let Some((row, message)) = located(trimmed) {
            // A time-out is counted by the summary line and leaves the procedure's checks undecided.
            if message.starts_with("Timed out on ")
                || (message.starts_with("Verification of ") && message.contains(" timed out after "))
            {
                continue;
            }
            if let Some(code) = message.strip_prefix("Error ").and_then(|rest| rest.split(':').next()) {
                if let Some(kind) = kind_of(code) {
                    let related = lines
                        .peek()
                        .and_then(|next| located(next.trim()))
                        .filter(|(_, text)| text.starts_with("Related location"));
                    let related_line = related.map(|(row, _)| row);
                    if related.is_some() {
                        lines.next();
                    }
                    report.failures.push(match kind {
                        CheckKind::Postcondition => {
                            Failure { kind, line: related_line.unwrap_or(row), related_line: None }
                        }
                        CheckKind::Precondition => Failure { kind, line: row, related_line },
                        _ => Failure { kind, line: row, related_line: None },
                    });
                    continue;
                }
            }
        }
        report.problems.push(trimmed.to_string());
    }
    report.failures.sort();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boogie_output_is_read_with_its_noise_filtered() {
        let output = "Prover error: line 18 column 28: unknown parameter 'model_compress'\nLegal parameters are:\n  auto_config (bool) (default: true)\n  well_sorted_check (bool) (default: false)\n/tmp/x.bpl(8,3): Error BP5001: This assertion might not hold.\nExecution trace:\n    /tmp/x.bpl(6,5): anon0\n/tmp/x.bpl(11,3): Error BP5002: A precondition for this call might not hold.\n/tmp/x.bpl(2,3): Related location: This is the precondition that might not hold.\n/tmp/x.bpl(9,1): Error BP5003: A postcondition might not hold on this return path.\n/tmp/x.bpl(3,3): Related location: This is the postcondition that might not hold.\n\nBoogie program verifier finished with 1 verified, 3 errors\n";
        let report = parse_output(output);
        assert_eq!(report.problems, Vec::<String>::new());
        assert_eq!((report.verified, report.errors), (1, 3));
        assert_eq!(
            report.failures,
            [
                Failure { kind: CheckKind::Assertion, line: 8, related_line: None },
                Failure { kind: CheckKind::Precondition, line: 11, related_line: Some(2) },
                Failure { kind: CheckKind::Postcondition, line: 3, related_line: None },
            ]
        );
    }

    #[test]
    fn a_time_out_is_counted_and_no_problem() {
        let output = "/tmp/x.bpl(11,11): Verification of 'p' timed out after 10 seconds\n/tmp/x.bpl(34,3): Timed out on BP5001: This assertion might not hold.\nExecution trace:\n    /tmp/x.bpl(29,3): anon0\n\nBoogie program verifier finished with 4 verified, 0 errors, 1 time out\n";
        let report = parse_output(output);
        assert_eq!(report.problems, Vec::<String>::new());
        assert_eq!((report.verified, report.errors, report.timeouts), (4, 0, 1));
        assert!(report.failures.is_empty());
    }

    #[test]
    fn anything_unexpected_is_a_problem() {
        let report = parse_output("x.bpl(3,1): syntax error: ; expected\n1 parse errors detected in x.bpl\n");
        assert_eq!(report.problems.len(), 2);
    }
}
