//! z3 as the playground reaches it: an [`Evaluator`] of batches of commands, here a z3 process
//! that evaluates each batch, which an `echo` closes. The encoder's and the frontend's tests run
//! the SMT-LIB check loop over it. Unlike the page's, this evaluator stops waiting when the time
//! is up (and the session, dropped, kills the process): Debian's z3 can deadlock when its own
//! timer fires, so it is not relied on.

use lockstep_encoder::smt::smtlib::Evaluator;
use lockstep_encoder::smt::SolverError;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct Z3Batches {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

const END_OF_BATCH: &str = "end-of-batch";

impl Z3Batches {
    pub fn start() -> Result<Box<dyn Evaluator>, SolverError> {
        let program = std::env::var("LOCKSTEP_Z3").unwrap_or_else(|_| "z3".into());
        let mut child = Command::new(program)
            .args(["-in", "-smt2"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|error| SolverError(error.to_string()))?;
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Box::new(Z3Batches { child, stdin, lines }))
    }
}

impl Evaluator for Z3Batches {
    fn evaluate(&mut self, commands: &str, wait: Duration) -> Result<Option<String>, SolverError> {
        let batch = format!("{commands}(echo \"{END_OF_BATCH}\")\n");
        let failed = |error: std::io::Error| SolverError(error.to_string());
        self.stdin.write_all(batch.as_bytes()).and_then(|()| self.stdin.flush()).map_err(failed)?;
        let deadline = Instant::now() + wait;
        let mut output = String::new();
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) if line.trim_end() == END_OF_BATCH => return Ok(Some(output)),
                Ok(line) => {
                    output.push_str(&line);
                    output.push('\n');
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Err(SolverError("z3 stopped".into())),
            }
        }
    }
}

impl Drop for Z3Batches {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
