//! OpenCL C (`.cl`) and CUDA (`.cu`) kernels, with VerCors's annotations: from the text of a file
//! to the kernel IR.
//!
//! [`lexer`] cuts the text into tokens (logos), annotations included; [`preprocess`] runs the
//! directives and expands macros on those tokens; [`parser`] drives the lalrpop grammar with error
//! recovery into the [`ast`]; [`structs`] takes its structs and `typedef`s apart; [`lower`] gives the C program lockstep's meaning, as a kernel of the
//! surface language that PVL also parses into, which [`crate::pvl::resolve`] then checks into a
//! [`lockstep_logic::Program`], so that the two languages share one type checker and one meaning.
//! It reads no file and prints nothing: problems are [`Diagnostic`]s with a stable code and a span.

pub mod arguments;
pub mod ast;
mod atomics;
mod barrier_invariants;
mod inline;
pub mod integers;
pub mod lexer;
mod logs;
mod loops;
pub mod lower;
pub mod parser;
mod pointers;
pub mod preprocess;
mod private;
mod structs;
mod vectors;

#[allow(clippy::all, unused_qualifications)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/c/grammar.rs"));
}

pub use vectors::{array_strides, component_in_annotation};

use crate::diagnostics::Diagnostic;
use lockstep_logic::Program;

/// The two C dialects: the file's extension picks one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    OpenCl,
    Cuda,
}

/// Parses, lowers and resolves the text of an OpenCL C or CUDA file: the program, if the file has
/// no syntax error and declares a kernel, and the diagnostics.
pub fn check(text: &str, dialect: Dialect, integers: integers::Integers) -> (Option<Program>, Vec<Diagnostic>) {
    let (tree, mut diagnostics) = parser::parse(text, dialect);
    let tree = match tree {
        Some(tree) if !diagnostics.iter().any(Diagnostic::is_error) => tree,
        _ => return (None, diagnostics),
    };
    let (tree, struct_diagnostics) = structs::flatten(&tree);
    diagnostics.extend(struct_diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return (None, diagnostics);
    }
    let (surface, lower_diagnostics) = lower::lower(&tree, text, dialect, integers);
    diagnostics.extend(lower_diagnostics);
    let Some(surface) = surface.filter(|_| !diagnostics.iter().any(Diagnostic::is_error)) else {
        return (None, diagnostics);
    };
    let (program, resolve_diagnostics) = crate::pvl::resolve::resolve(&surface, integers::Integers::Mathematical);
    diagnostics.extend(resolve_diagnostics);
    (Some(program), diagnostics)
}
