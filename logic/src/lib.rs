//! The logic of lockstep: the kernel IR and, built on it, the permission-based separation logic of
//! chapter 5 of the CARP D6.2 deliverable (see `DESIGN.md`).
//!
//! The frontend produces a [`Program`] after name resolution and type checking: every name is
//! resolved to an id, every expression carries its type, and resource formulas ([`Assertion`]) are
//! kept apart from pure expressions ([`Expr`]), so a permission can only occur where the logic
//! allows one. Spans are byte offsets into the source file and are carried through so that every
//! later obligation can point back at the text that gave rise to it. [`outline`] is the checker:
//! every obligation of a kernel (the levels' specifications, the global obligations, the
//! per-thread triple with its barrier calls and local checks), as data. [`eval`] gives expressions
//! and pure functions their values, for checking counterexamples and running kernels. [`infer`]
//! proposes the permissions of a kernel that names none, which the checker then checks.
//!
//! Architecture invariant: this crate does no I/O, knows no surface syntax (no tokens, no
//! precedence, no spelling of keywords) and knows no solver. It is pure data and pure functions.

pub mod benign;
pub mod eval;
pub mod execute;
pub mod fences;
pub mod infer;
mod ir;
pub mod lockstep;
pub mod obligation;
pub mod outline;
pub mod recursion;
pub mod resources;
pub mod support;

pub use ir::*;
pub use obligation::{Obligation, ObligationId};
