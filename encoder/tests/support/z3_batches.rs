//! z3 as the playground reaches it: an [`Evaluator`] of batches of commands, here a z3 process
//! that evaluates each batch, which an `echo` closes. The encoder's and the frontend's tests run
//! the SMT-LIB check loop over it.

use lockstep_encoder::smt::smtlib::Evaluator;
use lockstep_encoder::smt::SolverError;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct Z3Batches {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
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
        Ok(Box::new(Z3Batches { child, stdin, stdout }))
    }
}

impl Evaluator for Z3Batches {
    fn evaluate(&mut self, commands: &str) -> Result<String, SolverError> {
        let batch = format!("{commands}(echo \"{END_OF_BATCH}\")\n");
        let failed = |error: std::io::Error| SolverError(error.to_string());
        self.stdin.write_all(batch.as_bytes()).and_then(|()| self.stdin.flush()).map_err(failed)?;
        let mut output = String::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).map_err(failed)? == 0 {
                return Err(SolverError("z3 stopped".into()));
            }
            if line.trim_end() == END_OF_BATCH {
                return Ok(output);
            }
            output.push_str(&line);
        }
    }
}

impl Drop for Z3Batches {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
