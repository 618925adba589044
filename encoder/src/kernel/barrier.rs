//! `barrier.functional` (PO-8, the premise the seed's Theorem 5.3.1 leaves out): for an arbitrary
//! thread `t` of a group, its own barrier precondition, and the conjuncts of every other thread's
//! precondition that read only memory the barrier fences (or arrays no thread writes), imply its barrier postcondition
//! (`proofs/kernel.md`, E7).
//!
//! All threads see one heap at the barrier. Another thread's lock-step-safe private variables have
//! `t`'s values; any other private variable of another thread is an unknown value, a function of
//! that thread's `lid`.

use super::facts::{self, closed_fact};
use super::inverse;
use super::names;
use super::state::{conjunction, ivl_type, thread_id, Encoder};
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, Stmt, StmtKind, Type};
use lockstep_logic::lockstep::LockStep;
use lockstep_logic::outline::Global;
use lockstep_logic::resources::{Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, ExprKind, VarId, VarKind};

const OTHER: &str = "other_lid";

impl Encoder<'_> {
    /// The functions naming other threads' private variables, declared once per kernel.
    pub(super) fn other_thread_functions(&self) -> Vec<Declaration> {
        let kernel = self.kernel;
        (0..kernel.vars.len() as u32)
            .map(VarId)
            .filter(|&var| kernel.var(var).kind == VarKind::Private)
            .map(|var| {
                Declaration::Function(ivl::Function {
                    name: other_name(kernel, var),
                    params: vec![Binding::new("thread", Type::Int)],
                    result: ivl_type(kernel.var(var).ty),
                    body: None,
                })
            })
            .collect()
    }

    /// The procedure of a [`Global::Functional`] obligation.
    pub(super) fn barrier_functional(&mut self, global: &Global, lockstep: &LockStep) -> Procedure {
        let Global::Functional { barrier: index, launch, own: own_pres, others: other_pres, posts } = global else {
            unreachable!("a barrier.functional obligation")
        };
        let kernel = self.kernel;
        let (gid, lid) = (Expr::var(names::GID), Expr::var(names::LID));
        let mut own = self.context([thread_id(&gid, &lid), gid.clone(), lid]);
        let mut locals = Vec::new();
        for (position, var) in kernel.vars.iter().enumerate() {
            if var.kind == VarKind::Private {
                let id = VarId(position as u32);
                locals.push(Binding::new(names::private(kernel, id), ivl_type(var.ty)));
                own.vars.insert(id, Expr::var(names::private(kernel, id)));
            }
        }
        // All threads see one heap at the barrier, and one heap of the launch, which `\old` reads
        // (declared where a conjunct reads it).
        let conjuncts = launch.iter().chain(own_pres).chain(other_pres).chain(posts.iter().map(|(post, _)| post));
        let reads_old = conjuncts.into_iter().any(facts::reads_old);
        for array in self.arrays() {
            locals.push(Binding::new(names::heap(kernel, array), Type::map(Type::Int, Type::Int)));
            if reads_old {
                locals.push(Binding::new(names::old_heap(kernel, array), Type::map(Type::Int, Type::Int)));
            }
        }
        let gsize = Expr::var(names::GSIZE);
        // Another thread of the group, by its `lid`.
        let other_context = |other_lid: &Expr| {
            let mut other = self.context([thread_id(&gid, other_lid), gid.clone(), other_lid.clone()]);
            self.other_thread_privates(
                lockstep,
                &mut other,
                |_| true,
                |id, _| Expr::Call(other_name(kernel, id), vec![other_lid.clone()]),
            );
            other
        };
        let other_lid = Expr::var(OTHER);
        let other = other_context(&other_lid);
        let mut stmts = Vec::new();
        // What the thread knows of the launch (its precondition's facts that read no memory), and
        // its own barrier precondition.
        for conjunct in launch.iter().chain(own_pres) {
            stmts.extend(closed_fact(&own, conjunct).map(|fact| Stmt::new(StmtKind::Assume(fact))));
        }
        // The threads whose preconditions the postcondition needs, found by inverting the indices
        // the preconditions read at the locations the postcondition reads, are instantiated
        // outright: no quantifier instantiation is needed for the usual neighbour exchanges.
        let wanted: Vec<(logic::ArrayId, Expr)> = posts
            .iter()
            .flat_map(|(conjunct, _)| conjunct_reads(conjunct))
            .map(|(array, index)| (array, own.translate(index)))
            .collect();
        // A postcondition without quantifiers reads only the wanted locations. A precondition
        // conjunct with one read, inverted exactly at every wanted location of its array, then
        // says nothing of them in any thread but the instances (its index is injective), and is
        // left out of the quantified assumption below: a quantifier whose body holds `mod`
        // cases has no trigger, and z3's model-based instantiation of it can run for seconds.
        let posts_ground =
            posts.iter().all(|(conjunct, _)| conjunct.binders.is_empty() && !has_quantifier(conjunct_fact(conjunct)));
        // Another thread's precondition conjunct, assumed of the thread `lid` names if it is one
        // of the group.
        let at_thread = |lid: &Expr, conjunct: &Conjunct| {
            closed_fact(&other_context(lid), conjunct).map(|instance| {
                let in_group = super::expr::in_bounds(lid, gsize.clone());
                Stmt::new(StmtKind::Assume(Expr::binary(BinaryOp::Implies, in_group, instance)))
            })
        };
        let mut covered = vec![false; other_pres.len()];
        for (position, conjunct) in other_pres.iter().enumerate() {
            let reads = conjunct_reads(conjunct);
            // The array of the one location whose value can make the conjunct hold in a thread
            // whose instance is left out (E7).
            let free = match reads[..] {
                [(array, _)] => Some(array),
                _ => solved_cell(conjunct, position, own_pres, other_pres),
            };
            let mut exact = posts_ground
                && free.is_some()
                && conjunct.binders.is_empty()
                && !has_quantifier(conjunct_fact(conjunct));
            for (array, index) in reads {
                let locations: Vec<&Expr> =
                    wanted.iter().filter(|(wanted_array, _)| *wanted_array == array).map(|(_, at)| at).collect();
                // A lock-step-safe private variable has one value in all threads at the barrier.
                let shared = |var: VarId| lockstep.is_safe_variable(kernel, var);
                let index = lockstep.expand(index);
                let is_free = free == Some(array);
                if is_free {
                    exact &= !locations.is_empty() && inverse_is_exact(&index);
                }
                for location in locations {
                    let Some(inverse) = inverse::symbolic_inverse(&index, location, &own, &shared) else {
                        exact &= !is_free;
                        continue;
                    };
                    stmts.extend(at_thread(&inverse.lid(&gid), conjunct));
                }
            }
            covered[position] = exact;
            // A fact that only one thread's ids make hold (`lid == 0 ==> s[0] == in[0]`) is
            // instantiated at that thread: the quantified assumption below has no term to match.
            if let (true, ConjunctKind::Fact(fact)) = (conjunct.binders.is_empty(), &conjunct.kind) {
                let mut guards = conjunct.guards.clone();
                if let ExprKind::Binary { op: logic::BinaryOp::Implies, lhs, .. } = &fact.kind {
                    guards.push((**lhs).clone());
                }
                if let Some(inverse) = inverse::pinned_thread(&guards, &own) {
                    stmts.extend(at_thread(&inverse.lid(&gid), conjunct));
                }
            }
        }
        let others: Vec<Expr> = other_pres
            .iter()
            .zip(&covered)
            .filter(|(_, covered)| !**covered)
            .filter_map(|(conjunct, _)| closed_fact(&other, conjunct))
            .collect();
        if !others.is_empty() {
            let in_group = super::expr::in_bounds(&other_lid, gsize);
            stmts.push(Stmt::new(StmtKind::Assume(Expr::Quantified {
                quantifier: ivl::Quantifier::Forall,
                bound: vec![Binding::new(OTHER, Type::Int)],
                triggers: Vec::new(),
                body: Box::new(Expr::binary(BinaryOp::Implies, in_group, conjunction(others))),
            })));
        }
        for (conjunct, number) in posts {
            let post = closed_fact(&own, conjunct).expect("a postcondition of barrier.functional is a fact");
            self.prove(&mut stmts, *number, post);
        }
        self.procedure(
            format!("barrier_functional_{}", index.index()),
            &[names::TID, names::GID, names::LID],
            self.launch(),
            true,
            locals,
            stmts,
        )
    }
}

/// Whether [`inverse::symbolic_inverse`] of an index finds the only thread that names a
/// location: through `%` and `mod` only by `gsize` (a smaller modulus folds several threads
/// onto one location).
fn inverse_is_exact(index: &logic::Expr) -> bool {
    let mut work = vec![index];
    while let Some(next) = work.pop() {
        if let ExprKind::Binary { op: logic::BinaryOp::Mod | logic::BinaryOp::Rem, rhs, .. } = &next.kind {
            if !matches!(rhs.kind, ExprKind::Builtin(logic::Builtin::Gsize)) {
                return false;
            }
        }
        next.children(&mut work);
    }
    true
}

/// The fact of a fact conjunct (`None` for a permission).
fn conjunct_fact(conjunct: &Conjunct) -> Option<&logic::Expr> {
    match &conjunct.kind {
        ConjunctKind::Fact(fact) => Some(fact),
        ConjunctKind::Perm { .. } => None,
    }
}

fn other_name(kernel: &logic::Kernel, var: VarId) -> String {
    format!("other_{}", names::private(kernel, var))
}

/// The reads of the heap at the barrier in a conjunct (guards included) outside quantifiers and
/// sums (whose indices name their bound variables), with their indices. A read under `\old` reads
/// the launch heap, the same in every thread: it asks for no other thread's precondition, and says
/// nothing of the heap at the barrier.
fn conjunct_reads(conjunct: &Conjunct) -> Vec<(logic::ArrayId, &logic::Expr)> {
    heap_reads(conjunct, false)
}

/// The reads of the heap at the barrier in a conjunct, guards included, also under quantifiers
/// and sums when `bound` is set.
fn heap_reads(conjunct: &Conjunct, bound: bool) -> Vec<(logic::ArrayId, &logic::Expr)> {
    let mut found = Vec::new();
    let mut work: Vec<&logic::Expr> = conjunct.guards.iter().collect();
    if let ConjunctKind::Fact(fact) = &conjunct.kind {
        work.push(fact);
    }
    while let Some(next) = work.pop() {
        match &next.kind {
            ExprKind::Quantifier { .. } | ExprKind::Sum { .. } if !bound => continue,
            ExprKind::Old(_) => continue,
            ExprKind::Read { array, index } => found.push((*array, &**index)),
            _ => {}
        }
        next.children(&mut work);
    }
    found
}

/// The array `a` of a conjunct `[g ==> ...] a[i] == e` (or `e == a[i]`) that reads `a` only
/// there, when no other conjunct of another thread reads `a` and the thread's own conjuncts read
/// `a` only at `i` (this conjunct's index, at the thread's own ids). Another thread's instance
/// then holds whatever the rest of the heap is, given the value of `a` at its `i`: a location no
/// other assumption reads when `i` is injective across threads and the thread is not one of those
/// instantiated (E7).
fn solved_cell(
    conjunct: &Conjunct,
    position: usize,
    own_pres: &[Conjunct],
    other_pres: &[Conjunct],
) -> Option<logic::ArrayId> {
    let ConjunctKind::Fact(fact) = &conjunct.kind else { return None };
    let mut body = fact;
    while let ExprKind::Binary { op: logic::BinaryOp::Implies, rhs, .. } = &body.kind {
        body = rhs;
    }
    let ExprKind::Binary { op: logic::BinaryOp::Eq, lhs, rhs } = &body.kind else { return None };
    let (array, index) = [lhs, rhs].into_iter().find_map(|side| match &side.kind {
        ExprKind::Read { array, index } => Some((*array, &**index)),
        _ => None,
    })?;
    let only_at_index = reads_of(conjunct, array).len() == 1
        && own_pres.iter().all(|own| reads_of(own, array).into_iter().all(|at| at == index))
        && other_pres
            .iter()
            .enumerate()
            .all(|(other, conjunct)| other == position || reads_of(conjunct, array).is_empty());
    only_at_index.then_some(array)
}

/// The indices of every read of `array` in the heap at the barrier in a conjunct, under
/// quantifiers and sums as well.
fn reads_of(conjunct: &Conjunct, array: logic::ArrayId) -> Vec<&logic::Expr> {
    heap_reads(conjunct, true).into_iter().filter(|(read, _)| *read == array).map(|(_, index)| index).collect()
}

fn has_quantifier(fact: Option<&logic::Expr>) -> bool {
    fact.is_some_and(|fact| {
        facts::contains(fact, |kind| matches!(kind, ExprKind::Quantifier { .. } | ExprKind::Sum { .. }))
    })
}
