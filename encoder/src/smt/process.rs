//! A solver in another process, spoken to in SMT-LIB 2 over pipes: Debian's `z3` and `cvc5`, or any
//! solver that reads SMT-LIB on standard input. The check loop is [`super::smtlib`]'s; this is
//! the transport.
//!
//! The solver's path can be overridden with `LOCKSTEP_Z3` and `LOCKSTEP_CVC5`. A session dropped
//! for want of an answer (a check past its time limit) kills its process.

use super::smtlib::{Flavour, Session, SmtLibSolver, Transport};
use super::{Limits, SolverError};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// The solver found on the PATH, or named by `LOCKSTEP_Z3`/`LOCKSTEP_CVC5`.
pub fn solver(flavour: Flavour, limits: Limits) -> SmtLibSolver {
    solver_at(flavour, flavour.program(), limits)
}

/// The solver at `program`.
pub fn solver_at(flavour: Flavour, program: impl Into<String>, limits: Limits) -> SmtLibSolver {
    SmtLibSolver::new(flavour, Box::new(Processes { program: program.into() }), limits)
}

/// Starts the solver program, one process per session.
struct Processes {
    program: String,
}

impl Transport for Processes {
    fn start(&self, flavour: Flavour, arguments: &[String]) -> Result<Box<dyn Session>, SolverError> {
        let program = &self.program;
        let mut child = Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| {
                SolverError(format!(
                    "cannot start the solver `{program}`: {error} (install it, e.g. `apt-get install {}`, or name it with {}=PATH)",
                    flavour.name(),
                    if flavour == Flavour::Z3 { "LOCKSTEP_Z3" } else { "LOCKSTEP_CVC5" }
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
        Ok(Box::new(Piped { child, stdin, lines, name: flavour.name() }))
    }
}

/// A solver process: commands to its stdin, lines of its stdout read by a thread of their own.
struct Piped {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    name: &'static str,
}

impl Session for Piped {
    fn send(&mut self, text: &str) -> Result<(), SolverError> {
        self.stdin
            .write_all(text.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|error| SolverError(format!("the solver stopped: {error}")))
    }

    fn read(&mut self, wait: Duration) -> Result<Option<String>, SolverError> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(Some(line + "\n")),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(SolverError(format!("{} stopped unexpectedly", self.name))),
        }
    }
}

impl Drop for Piped {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
