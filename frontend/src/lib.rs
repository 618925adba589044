//! The frontend of lockstep: everything between the bytes of a `.pvl` file and the kernel IR of
//! `lockstep_logic`, plus the diagnostics and the `lockstep` command line.
//!
//! Pipeline: [`source`] decodes the file, [`lexer`] cuts it into tokens (logos), [`parser`] drives
//! the lalrpop grammar with error recovery into the [`ast`], and [`resolve`] resolves names and
//! checks types, producing a [`lockstep_logic::Program`], in which the constructs the language
//! does not support yet are then refused ([`lockstep_logic::support`]). Every problem found on the
//! way is a [`diagnostics::Diagnostic`] with a stable code and a span. [`verify::file`] is the
//! whole pipeline, from the bytes of a file to a verdict per obligation: parse and resolve,
//! outline (`lockstep_logic::outline`), encode (`lockstep_encoder::kernel`), solve, report;
//! [`explain`] prints an outline as the seed writes it.
//!
//! ```
//! use lockstep_frontend::{check_file, source::SourceFile};
//! let text = "kernel k { global int[gsize] a; requires perm(a[tid], 100); void main() { a[tid] := 1; } }";
//! let checked = check_file(SourceFile::new("k.pvl", text));
//! assert_eq!(checked.program.unwrap().kernels[0].name, "k");
//! ```
//!
//! Architecture invariants: this is the only crate that reads files or prints (and it does both
//! only in `main.rs`; the library returns values). No input makes it panic: malformed text gives
//! diagnostics, never a crash, and the nesting depth is bounded so no recursive pass can overflow
//! the stack. It decides no obligation (the outline does) and talks to no solver itself (the
//! encoder's backends do).

pub mod ast;
pub mod diagnostics;
pub mod explain;
pub mod hunt;
pub mod lexer;
pub mod parser;
pub mod resolve;
pub mod run;
pub mod source;
pub mod verify;

#[allow(clippy::all, unused_qualifications)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/grammar.rs"));
}

use diagnostics::{Code, Diagnostic};
use lockstep_logic::{Program, Span};
use source::SourceFile;

/// The result of checking one file: the program when it is well formed, and every diagnostic.
#[derive(Debug)]
pub struct Checked {
    pub file: SourceFile,
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Decodes, parses and checks the bytes of a file.
pub fn check_bytes(path: &str, bytes: Vec<u8>) -> Checked {
    match SourceFile::decode(path, bytes) {
        Ok(file) => check_file(file),
        Err((file, span)) => {
            let diagnostic =
                Diagnostic::error(Code::InvalidUtf8, "the file is not valid UTF-8", span, "invalid byte here")
                    .with_help("save the file as UTF-8 text");
            Checked { file, program: None, diagnostics: vec![diagnostic] }
        }
    }
}

/// Parses and checks a decoded file. Name resolution runs only on a file without syntax errors, so
/// that a skipped declaration does not show up again as a string of unknown names; and the
/// constructs the language does not support yet ([`lockstep_logic::support`]) are looked for only
/// in a program that resolves, each use its own `kernel::unsupported` error. A file with none of
/// these errors is one the verifier and the executor accept.
pub fn check_file(file: SourceFile) -> Checked {
    let (tree, mut diagnostics) = parser::parse(&file.text);
    let tree = match tree {
        Some(tree) if diagnostics.is_empty() => tree,
        _ => return Checked { file, program: None, diagnostics },
    };
    if !tree.items.iter().any(|item| matches!(item, ast::Item::Kernel(_))) {
        let (message, label) = if file.text.trim().is_empty() {
            ("the file is empty", "nothing to check")
        } else {
            ("the file declares no kernel", "no `kernel` in this file")
        };
        let diagnostic = Diagnostic::error(Code::EmptyFile, message, Span::new(0, 0), label)
            .with_help("a `.pvl` file holds at least one `kernel name { ... }`; see examples/seed/demo.pvl");
        return Checked { file, program: None, diagnostics: vec![diagnostic] };
    }
    let (program, resolve_diagnostics) = resolve::resolve(&tree);
    diagnostics.extend(resolve_diagnostics);
    if !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.extend(lockstep_logic::support::unsupported(&program).into_iter().map(refusal));
    }
    diagnostics.sort_by_key(|diagnostic| diagnostic.primary.span.start);
    let program = (!diagnostics.iter().any(Diagnostic::is_error)).then_some(program);
    Checked { file, program, diagnostics }
}

/// A construct the language does not support yet, as the diagnostic every command gives for it.
fn refusal(unsupported: lockstep_logic::support::Unsupported) -> Diagnostic {
    Diagnostic::error(Code::Unsupported, unsupported.message, unsupported.span, unsupported.label)
        .with_help(unsupported.help)
}
