//! What the language does not support yet: constructs that are well formed and well typed but
//! that lockstep cannot verify soundly, so that every command refuses them rather than ignore
//! them. Deciding it here, on the program, makes `check`, `verify`, `run` and `--emit` refuse the
//! same files; the encoder may assume a program without any (`proofs/kernel.md`, E5, E10, E11).
//!
//! - postconditions of a recursive function, which would need induction.

use crate::recursion::CallGraph;
use crate::{FunctionId, Program, Span};

/// One use of a construct that is not supported yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The construct.
    pub span: Span,
    /// What is not supported.
    pub message: String,
    /// What the span shows.
    pub label: String,
    /// What to write instead.
    pub help: String,
}

/// Every use of an unsupported construct in the program, in source order.
pub fn unsupported(program: &Program) -> Vec<Unsupported> {
    let mut found = Vec::new();
    functions(program, &mut found);
    found.sort_by_key(|unsupported| (unsupported.span.start, unsupported.span.end));
    found
}

fn functions(program: &Program, found: &mut Vec<Unsupported>) {
    let graph = CallGraph::of(&program.functions);
    for (index, function) in program.functions.iter().enumerate() {
        let id = FunctionId(index as u32);
        if !graph.recursive(id) {
            continue;
        }
        let name = &function.name;
        for ensures in &function.ensures {
            found.push(Unsupported {
                span: ensures.span,
                message: format!("postconditions of a recursive function (`{name}`) are not supported yet"),
                label: "a postcondition of a recursive function".into(),
                help: "leave the `ensures` out: callers know the function by its definition, and an assertion where it is used can state the property".into(),
            });
        }
    }
}
