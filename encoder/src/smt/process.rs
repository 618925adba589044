//! A solver in another process, spoken to in SMT-LIB 2 over pipes: Debian's `z3` and `cvc5`, or any
//! solver that reads SMT-LIB on standard input.
//!
//! The solver's path can be overridden with `LOCKSTEP_Z3` and `LOCKSTEP_CVC5`. A check that takes
//! longer than the time limit (plus a grace second for the solver's own timer) kills the process and
//! answers `unknown`; the next `load` starts a fresh one.

use super::sexp::{self, Sexp};
use super::{Answer, Limits, Script, Solver, SolverError, Term, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// Which solver, for its command line and options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    Z3,
    Cvc5,
}

impl Flavour {
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Z3 => "z3",
            Flavour::Cvc5 => "cvc5",
        }
    }

    fn program(self) -> String {
        let variable = match self {
            Flavour::Z3 => "LOCKSTEP_Z3",
            Flavour::Cvc5 => "LOCKSTEP_CVC5",
        };
        std::env::var(variable).unwrap_or_else(|_| self.name().to_string())
    }

    fn arguments(self, limits: &Limits) -> Vec<String> {
        match self {
            Flavour::Z3 => vec!["-in".into(), "-smt2".into()],
            Flavour::Cvc5 => {
                let mut arguments = vec![
                    "--lang=smt2".to_string(),
                    "--incremental".to_string(),
                    "--produce-models".to_string(),
                    // Stop unfolding a recursive definition (a matching loop) after 32 levels of
                    // instantiation: `unknown` at once rather than at the time limit.
                    "--inst-max-level=32".to_string(),
                    format!("--tlimit-per={}", limits.timeout.as_millis()),
                    format!("--seed={}", limits.seed),
                ];
                if limits.resource_limit > 0 {
                    arguments.push(format!("--rlimit-per={}", limits.resource_limit));
                }
                arguments
            }
        }
    }

    fn preamble(self, limits: &Limits) -> String {
        match self {
            Flavour::Z3 => {
                let mut text = format!(
                    "(set-option :produce-models true)\n(set-option :timeout {})\n(set-option :random-seed {})\n(set-option :smt.mbqi.max_iterations {})\n",
                    limits.timeout.as_millis(),
                    limits.seed,
                    super::Z3_MODEL_ROUNDS
                );
                if limits.resource_limit > 0 {
                    text.push_str(&format!("(set-option :rlimit {})\n", limits.resource_limit));
                }
                text
            }
            Flavour::Cvc5 => "(set-logic ALL)\n".to_string(),
        }
    }
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Output read but not yet consumed.
    pending: String,
}

pub struct ProcessSolver {
    flavour: Flavour,
    program: String,
    limits: Limits,
    running: Option<Running>,
}

impl ProcessSolver {
    /// The solver found on the PATH, or named by `LOCKSTEP_Z3`/`LOCKSTEP_CVC5`.
    pub fn new(flavour: Flavour, limits: Limits) -> ProcessSolver {
        ProcessSolver::with_program(flavour, flavour.program(), limits)
    }

    /// The solver at `program`.
    pub fn with_program(flavour: Flavour, program: impl Into<String>, limits: Limits) -> ProcessSolver {
        ProcessSolver { flavour, program: program.into(), limits, running: None }
    }

    fn start(&mut self) -> Result<&mut Running, SolverError> {
        self.stop();
        let program = self.program.clone();
        let mut child = Command::new(&program)
            .args(self.flavour.arguments(&self.limits))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| {
                SolverError(format!(
                    "cannot start the solver `{program}`: {error} (install it, e.g. `apt-get install {}`, or name it with {}=PATH)",
                    self.flavour.name(),
                    if self.flavour == Flavour::Z3 { "LOCKSTEP_Z3" } else { "LOCKSTEP_CVC5" }
                ))
            })?;
        let stdin = child.stdin.take().ok_or_else(|| SolverError("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| SolverError("no stdout".into()))?;
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(self.running.insert(Running { child, stdin, lines, pending: String::new() }))
    }

    fn stop(&mut self) {
        if let Some(mut running) = self.running.take() {
            let _ = running.child.kill();
            let _ = running.child.wait();
        }
    }

    fn send(&mut self, text: &str) -> Result<(), SolverError> {
        let running = self.running.as_mut().ok_or_else(|| SolverError("the solver is not running".into()))?;
        running
            .stdin
            .write_all(text.as_bytes())
            .and_then(|()| running.stdin.flush())
            .map_err(|error| SolverError(format!("the solver stopped: {error}")))
    }

    /// The next complete s-expression of output, or `None` when the time is up.
    fn receive(&mut self, wait: Duration) -> Result<Option<Sexp>, SolverError> {
        let running = self.running.as_mut().ok_or_else(|| SolverError("the solver is not running".into()))?;
        loop {
            if let Some((sexp, used)) = sexp::read(&running.pending) {
                running.pending.drain(..used);
                if let Sexp::List(items) = &sexp {
                    if items.first() == Some(&Sexp::Atom("error".into())) {
                        return Err(SolverError(format!("{} reported {sexp}", self.flavour.name())));
                    }
                }
                return Ok(Some(sexp));
            }
            match running.lines.recv_timeout(wait) {
                Ok(line) => {
                    running.pending.push_str(&line);
                    running.pending.push('\n');
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(SolverError(format!("{} stopped unexpectedly", self.flavour.name())))
                }
            }
        }
    }
}

impl Drop for ProcessSolver {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Solver for ProcessSolver {
    fn load(&mut self, script: &Script) -> Result<(), SolverError> {
        self.start()?;
        let text = format!("{}{script}", self.flavour.preamble(&self.limits));
        self.send(&text)
    }

    fn check(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        let literals: Vec<String> = assumptions
            .iter()
            .map(|(name, value)| {
                let symbol = super::symbol_text(name);
                if *value {
                    symbol
                } else {
                    format!("(not {symbol})")
                }
            })
            .collect();
        self.send(&format!("(check-sat-assuming ({}))\n", literals.join(" ")))?;
        let wait = self.limits.timeout + Duration::from_secs(1);
        let answer = match self.receive(wait)? {
            None => {
                self.stop();
                return Ok(Answer::Unknown("timeout".into()));
            }
            Some(answer) => answer,
        };
        match answer {
            Sexp::Atom(word) if word == "sat" => Ok(Answer::Sat),
            Sexp::Atom(word) if word == "unsat" => Ok(Answer::Unsat),
            Sexp::Atom(word) if word == "unknown" => {
                self.send("(get-info :reason-unknown)\n")?;
                let reason = match self.receive(wait)? {
                    Some(Sexp::List(items)) => items.get(1).map(|reason| match reason {
                        Sexp::Str(text) | Sexp::Atom(text) => text.clone(),
                        other => other.to_string(),
                    }),
                    _ => None,
                };
                Ok(Answer::Unknown(reason.unwrap_or_else(|| "unknown".into())))
            }
            other => Err(SolverError(format!("unexpected answer from {}: {other}", self.flavour.name()))),
        }
    }

    fn values(&mut self, terms: &[Term]) -> Result<Vec<Value>, SolverError> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = terms.iter().map(Term::to_string).collect();
        self.send(&format!("(get-value ({}))\n", list.join(" ")))?;
        let wait = self.limits.timeout + Duration::from_secs(1);
        match self.receive(wait)? {
            Some(Sexp::List(pairs)) if pairs.len() == terms.len() => pairs
                .iter()
                .map(|pair| match pair {
                    Sexp::List(items) if items.len() == 2 => Ok(sexp::value(&items[1])),
                    other => Err(SolverError(format!("unexpected value {other}"))),
                })
                .collect(),
            other => Err(SolverError(format!("unexpected answer to get-value: {other:?}"))),
        }
    }
}
