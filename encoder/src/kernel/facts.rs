//! Fact conjuncts as closed formulas: a contract's pure conjuncts under their guards and
//! `\forall*`, for the procedures that assume them of a thread other than the one running
//! (barrier, resource and level procedures).

use super::expr::Context;
use super::names;
use super::state::conjunction;
use crate::ivl::{self, BinaryOp, Binding, Expr, Type};
use lockstep_logic::resources::{Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, ExprKind};

/// A fact conjunct under its guards and `\forall*`, if every array it (or a guard or range) reads
/// is `allowed`; `None` for a permission or a fact that reads other memory.
pub(super) fn fact(context: &Context, conjunct: &Conjunct, allowed: impl Fn(logic::ArrayId) -> bool) -> Option<Expr> {
    let ConjunctKind::Fact(fact) = &conjunct.kind else { return None };
    let reads_only_allowed = |expr: &logic::Expr| reads(expr).into_iter().all(&allowed) && !has_old(expr);
    let ranges = conjunct.binders.iter().map(|binder| &binder.range);
    if !ranges.chain(&conjunct.guards).all(reads_only_allowed) || !reads_only_allowed(fact) {
        return None;
    }
    closed_fact(context, conjunct)
}

/// A fact conjunct as one closed formula, `forall i :: range && guards ==> fact` (`None` for a
/// permission).
pub(super) fn closed_fact(context: &Context, conjunct: &Conjunct) -> Option<Expr> {
    let ConjunctKind::Fact(fact) = &conjunct.kind else { return None };
    let mut context = context.clone();
    let mut binders = Vec::new();
    let mut guards = Vec::new();
    for binder in &conjunct.binders {
        let name = names::bound(context.kernel, binder.var);
        context.vars.insert(binder.var, Expr::var(&name));
        binders.push(Binding::new(&name, Type::Int));
        guards.push(context.translate(&binder.range));
    }
    guards.extend(conjunct.guards.iter().map(|guard| context.translate(guard)));
    let implication = Expr::binary(BinaryOp::Implies, conjunction(guards), context.translate(fact));
    Some(if binders.is_empty() {
        implication
    } else {
        Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: binders,
            triggers: Vec::new(),
            body: Box::new(implication),
        }
    })
}

fn reads(expr: &logic::Expr) -> Vec<logic::ArrayId> {
    let mut found = Vec::new();
    let mut work = vec![expr];
    while let Some(next) = work.pop() {
        next.children(&mut work);
        if let ExprKind::Read { array, .. } = &next.kind {
            found.push(*array);
        }
    }
    found
}

fn has_old(expr: &logic::Expr) -> bool {
    contains(expr, |kind| matches!(kind, ExprKind::Old(_)))
}

pub(super) fn contains(expr: &logic::Expr, found: impl Fn(&ExprKind) -> bool) -> bool {
    let mut work = vec![expr];
    while let Some(next) = work.pop() {
        if found(&next.kind) {
            return true;
        }
        next.children(&mut work);
    }
    false
}
