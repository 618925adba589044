//! OpenCL C (`.cl`) and CUDA (`.cu`) kernels, with VerCors's annotations: from the text of a file
//! to the kernel IR.
//!
//! [`clang`] runs Clang on the text and reads its typed syntax tree; [`annotations`] finds
//! VerCors's annotations in the text and parses them ([`lexer`] and the lalrpop grammar);
//! [`tree`] turns Clang's tree into the [`ast`], with the annotations where they were written;
//! [`structs`] takes its structs and `typedef`s apart; [`lower`] gives the C program lockstep's
//! meaning (with a child module for each of its concerns: the kernel, statements, expressions,
//! memory, vectors, pointers, atomics, loops, inlined helpers, GPUVerify's annotations, ...), as a
//! kernel of the surface language that PVL also parses into, which [`crate::pvl::resolve`] then
//! checks into a [`lockstep_logic::Program`], so that the two languages share one type checker and
//! one meaning. Apart from Clang's run (the text goes to it on its standard input; the files it
//! includes, it reads itself) and a look at the headers it names for macros that hold a
//! backslash, it reads no file, and it prints nothing: problems are [`Diagnostic`]s with a stable
//! code and a span.
//!
//! [`integers`] gives C's integer types their meaning, and [`arguments`] reads a kernel's scalar
//! parameters as the host passes them, for GPUVerify's `--kernel-args`.

mod annotations;
pub mod arguments;
pub mod ast;
pub mod clang;
pub mod integers;
pub mod lexer;
pub mod lower;
mod structs;
mod tree;

#[allow(clippy::all, unused_qualifications)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/c/grammar.rs"));
}

pub use lower::vectors::{array_strides, component_in_annotation};

use crate::diagnostics::Diagnostic;
use lockstep_logic::Program;

/// The two C dialects: the file's extension picks one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    OpenCl,
    Cuda,
}

/// The C syntax tree of a file as Clang reads it, with its annotations, and the problems found.
pub fn parse(text: &str, dialect: Dialect, options: &clang::Options) -> (Option<ast::File>, Vec<Diagnostic>) {
    let lexed = annotations::lex(text, dialect);
    let requests = lexed.macro_requests(text);
    let (root, clang_diagnostics, messages) = clang::syntax_tree(text, dialect, options, requests.as_deref());
    let Some(root) = root else {
        let (_, mut diagnostics) = lexed.parse(text, dialect, options, messages);
        diagnostics.extend(clang_diagnostics);
        return (None, diagnostics);
    };
    let (annotations, mut diagnostics) = lexed.parse(text, dialect, options, messages);
    diagnostics.extend(clang_diagnostics);
    let (file, tree_diagnostics) = tree::import(&root, text, annotations);
    diagnostics.extend(tree_diagnostics);
    diagnostics.sort_by_key(|diagnostic| diagnostic.primary.span.start);
    (Some(file), diagnostics)
}

/// Parses, lowers and resolves the text of an OpenCL C or CUDA file: the program, if the file has
/// no error and declares a kernel, and the diagnostics.
pub fn check(
    text: &str,
    dialect: Dialect,
    integers: integers::Integers,
    options: &clang::Options,
) -> (Option<Program>, Vec<Diagnostic>) {
    let (tree, mut diagnostics) = parse(text, dialect, options);
    let tree = match tree {
        Some(tree) if !diagnostics.iter().any(Diagnostic::is_error) => tree,
        _ => return (None, diagnostics),
    };
    let (tree, struct_diagnostics) = structs::flatten(&tree);
    diagnostics.extend(struct_diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return (None, diagnostics);
    }
    let lowered = lower::lower(&tree, text, dialect, integers);
    diagnostics.extend(lowered.diagnostics);
    let Some(surface) = lowered.file.filter(|_| !diagnostics.iter().any(Diagnostic::is_error)) else {
        return (None, diagnostics);
    };
    let (mut program, resolve_diagnostics) = crate::pvl::resolve::resolve(&surface, integers::Integers::Mathematical);
    diagnostics.extend(resolve_diagnostics);
    // A claim of a helper is inlined into each kernel that calls it: every kernel knows them all.
    for kernel in &mut program.kernels {
        kernel.unstated_claims.clone_from(&lowered.unstated_claims);
        let collectives = lowered.collectives.get(&kernel.name).map(Vec::as_slice).unwrap_or_default();
        kernel.collectives = collectives
            .iter()
            .map(|(span, call, names)| lockstep_logic::Collective {
                span: *span,
                call,
                agreed: names
                    .iter()
                    .filter_map(|name| kernel.vars.iter().position(|var| var.name == *name))
                    .map(|index| lockstep_logic::VarId(index as u32))
                    .collect(),
            })
            .collect();
    }
    (Some(program), diagnostics)
}
