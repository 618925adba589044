//! The encoder of lockstep: from the outline of a kernel (`lockstep_logic::outline`, every
//! obligation it must meet) to an intermediate verification language (IVL) in the style of
//! Boogie, and from there through verification-condition generation to SMT queries (see
//! `DESIGN.md`, "Encoding"). It translates: which obligations exist, where, and in what words, the
//! outline decides; the encoder turns each into checks by fixed rules.
//!
//! - [`ivl`]: the IVL (a subset of Boogie 2.4): AST, deterministic printer, parser, type checker;
//! - [`vcgen`]: Boogie-style verification conditions, linear in the size of a procedure;
//! - [`smt`]: SMT terms and the narrow [`smt::Solver`] interface, with z3 in-process and SMT-LIB
//!   solver processes behind it;
//! - [`verify`]: a verdict per check, with counterexamples; [`run`]: a whole program, with any
//!   backend; [`boogie`]: real Boogie as the reference;
//! - [`kernel`]: an outline as an IVL program, each check tagged with its obligation's number.
//!
//! A program is read, checked, and verified procedure by procedure:
//!
//! ```
//! use lockstep_encoder::{ivl, run, smt, verify};
//! let program = ivl::parse::program("procedure p(x: int) { assert x * x >= 0; }").unwrap();
//! ivl::check::program(&program).unwrap();
//! let results = run::program(&program, run::Backend::Z3, &smt::Limits::default()).unwrap();
//! assert_eq!(results[0].outcomes[0].status, verify::Status::Verified);
//! ```
//!
//! Architecture invariants: the encoder knows no surface syntax of kernels; it prints nothing and
//! reads no user file (its only I/O is talking to solver processes and writing the temporary file
//! real Boogie reads); every check carries the tag its caller chose, so that a result maps back to
//! an obligation, never to prose; and no answer but `unsat` ever makes a check verified.

pub mod boogie;
pub mod ivl;
pub mod kernel;
pub mod run;
pub mod smt;
pub mod vcgen;
pub mod verify;
mod workers;
