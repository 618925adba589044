//! GPUVerify's barrier invariants, `__barrier_invariant_N(e, i_1, ..., i_N);` written before a
//! barrier: `e` holds in every thread when it reaches the barrier, and after it each thread knows
//! `e` as it holds for the threads whose local ids are `i_1`, ..., `i_N` (computed by the thread
//! itself: `(get_local_id(0) + 1) % N` names its right neighbour).
//!
//! lockstep reads one as the next barrier's contract: `requires e;` and, for each instantiation,
//! `ensures e` with the thread's local id (the first axis) replaced by `i_k`. Nothing is trusted:
//! the thread proves the precondition (`barrier.pre`), and each postcondition is proved from the
//! preconditions of the group's threads (`barrier.functional`), which holds only where `i_k` is
//! the local id of a thread of the group. An invariant whose formula reads another axis's local
//! id, or speaks of GPUVerify's two-thread encoding, is left out with a warning, as the binary
//! form `__barrier_invariant_binary_N` is; so is one that no barrier follows in its block.

use super::{Lengths, Lowerer, Place};
use crate::c::ast;
use crate::pvl::ast as surface;
use lockstep_logic::Span;

/// Whether `name` is GPUVerify's unary barrier invariant, `__barrier_invariant_N`.
pub(super) fn is_barrier_invariant(name: &str) -> bool {
    numbered(name, "__barrier_invariant_")
}

/// Whether `name` is GPUVerify's binary barrier invariant, `__barrier_invariant_binary_N`.
pub(super) fn is_binary_barrier_invariant(name: &str) -> bool {
    numbered(name, "__barrier_invariant_binary_")
}

/// Whether `name` is `prefix` followed by a number.
fn numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|number| !number.is_empty() && number.bytes().all(|byte| byte.is_ascii_digit()))
}

impl Lowerer<'_> {
    /// Lowers `__barrier_invariant_N(e, i...)` into the clauses the next barrier takes
    /// ([`Lowerer::barrier_invariants`]), or leaves it out; `None` where it is refused.
    pub(super) fn barrier_invariant(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<()> {
        let count: usize = name.trim_start_matches("__barrier_invariant_").parse().unwrap_or(usize::MAX);
        let Some((formula, instances)) = args.split_first().filter(|_| args.len() == count.saturating_add(1)) else {
            self.argument_count(name, count.saturating_add(1), args.len(), span);
            return None;
        };
        if self.hint_left_out(formula, span, "this barrier invariant", false) {
            return Some(());
        }
        let own = self.gpuverify_formula(formula, lengths)?;
        let mut clauses = vec![thread_clause(surface::ClauseKind::Requires, own, span)];
        for instance in instances {
            let id = self.typed(instance, Place::Annotation, lengths)?;
            let outer = self.thread_instance.replace(id.expr);
            self.other_axis_in_instance = false;
            let instantiated = self.gpuverify_formula(formula, lengths);
            self.thread_instance = outer;
            if self.other_axis_in_instance {
                self.left_out(
                    span,
                    format!("GPUVerify's `{name}`"),
                    "its formula reads a thread's id other than the first axis's local id, which its instantiations name",
                );
                return Some(());
            }
            let instantiated = instantiated?;
            clauses.push(thread_clause(surface::ClauseKind::Ensures, instantiated, span));
        }
        self.barrier_invariants.extend(clauses);
        Some(())
    }

    /// Leaves out the barrier invariants no barrier took by the end of their block.
    pub(super) fn unclaimed_barrier_invariants(&mut self) {
        if let Some(first) = self.barrier_invariants.first().map(|clause| clause.span) {
            self.barrier_invariants.clear();
            self.left_out(
                first,
                "this barrier invariant".to_string(),
                "no barrier follows it in its block: a barrier invariant is the contract of the barrier after it",
            );
        }
    }
}

fn thread_clause(kind: surface::ClauseKind, formula: surface::Expr, span: Span) -> surface::Clause {
    surface::Clause { level: surface::Level::Thread, kind, formula, span }
}
