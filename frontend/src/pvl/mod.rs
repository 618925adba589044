//! PVL, lockstep's kernel language (LANGUAGE.md): from the text of a `.pvl` file to the kernel IR.
//!
//! [`lexer`] cuts the text into tokens (logos), [`parser`] drives the lalrpop grammar with error
//! recovery into the [`ast`], and [`resolve`] resolves names and checks types into a
//! [`lockstep_logic::Program`]. It reads no file and prints nothing: problems are
//! [`Diagnostic`]s with a stable code and a span.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod resolve;

#[allow(clippy::all, unused_qualifications)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/pvl/grammar.rs"));
}

use crate::c::integers::Integers;
use crate::diagnostics::{Code, Diagnostic};
use lockstep_logic::{Program, Span};

/// Parses and resolves the text of a PVL file: the program, if it has no syntax error and declares
/// a kernel, and the diagnostics. Name resolution runs only on a file without syntax errors, so
/// that a skipped declaration does not show up again as a string of unknown names.
/// With [`Integers::Machine`] (`--int32`), `int` is C's 32-bit `int` in code: every `+`, `-`,
/// `*`, `/` and negation must stay in its range (`arith.overflow`), for launches within
/// [`crate::c::integers::LAUNCH_LIMIT`] threads.
pub fn check(text: &str, integers: Integers) -> (Option<Program>, Vec<Diagnostic>) {
    let (tree, mut diagnostics) = parser::parse(text);
    let tree = match tree {
        Some(tree) if diagnostics.is_empty() => tree,
        _ => return (None, diagnostics),
    };
    if !tree.items.iter().any(|item| matches!(item, ast::Item::Kernel(_))) {
        let (message, label) = if text.trim().is_empty() {
            ("the file is empty", "nothing to check")
        } else {
            ("the file declares no kernel", "no `kernel` in this file")
        };
        let diagnostic = Diagnostic::error(Code::EmptyFile, message, Span::new(0, 0), label)
            .with_help("a `.pvl` file holds at least one `kernel name { ... }`; see examples/seed/demo.pvl");
        return (None, vec![diagnostic]);
    }
    let (program, resolve_diagnostics) = resolve::resolve(&tree, integers);
    diagnostics.extend(resolve_diagnostics);
    (Some(program), diagnostics)
}
