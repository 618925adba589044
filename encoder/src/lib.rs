//! The encoder of lockstep: from the obligations of `lockstep_logic` to an intermediate
//! verification language (IVL) in the style of Boogie, and from there through
//! verification-condition generation to SMT queries (see `DESIGN.md`, "Encoding").
//!
//! It starts with the IVL's types and expressions and their Boogie text ([`ivl`]); the statements,
//! the VC generator, the solver interface and the kernel encoding build on them.
//!
//! Architecture invariants: the encoder knows no surface syntax (it sees the IR, never tokens or
//! spans' text), does no file I/O of its own, and every assertion it emits will carry the
//! obligation tag its caller chose, so that a failure maps back to an obligation and not to prose.

pub mod boogie;
pub mod ivl;
pub mod run;
pub mod smt;
pub mod vcgen;
pub mod verify;
