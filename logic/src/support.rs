//! What the language does not support yet: constructs that are well formed and well typed but
//! that lockstep cannot verify soundly, so that every command refuses them rather than ignore
//! them. Deciding it here, on the program, makes `check`, `verify`, `run` and `--emit` refuse the
//! same files; the encoder may assume a program without any (`proofs/kernel.md`, E5, E10, E11).
//!
//! - permissions in a written kernel or group contract: the levels' resources are generated from
//!   the thread contract, and written ones would not be checked;
//! - postconditions of a recursive function, which would need induction.

use crate::recursion::CallGraph;
use crate::resources::{normal_form, ConjunctKind};
use crate::{Clause, Contract, FunctionId, Kernel, Program, Span};

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
    for kernel in &program.kernels {
        self::kernel(kernel, &mut found);
    }
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

fn kernel(kernel: &Kernel, found: &mut Vec<Unsupported>) {
    for (contract, level) in [(&kernel.kernel_contract, "kernel"), (&kernel.group_contract, "group")] {
        let Some(contract) = contract else { continue };
        let conjuncts = clauses(contract).flat_map(|clause| normal_form(&clause.assertion));
        for conjunct in conjuncts.filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Perm { .. })) {
            found.push(Unsupported {
                span: conjunct.span,
                message: format!("permissions in a written {level} contract are not verified yet"),
                label: format!("a permission in the {level} contract"),
                help: format!("leave them out: lockstep generates the {level}'s resources from the thread contract"),
            });
        }
    }
}

fn clauses(contract: &Contract) -> impl Iterator<Item = &Clause> {
    contract.requires.iter().chain(&contract.ensures)
}
