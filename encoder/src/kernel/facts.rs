//! Fact conjuncts as closed formulas: a contract's pure conjuncts under their guards and
//! `\forall*`, for the procedures that assume them of a thread other than the one running
//! (barrier, resource and level procedures).

use super::expr::Context;
use super::names;
use super::state::conjunction;
use crate::ivl::{self, BinaryOp, Binding, Expr, Type};
use lockstep_logic::resources::{Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, ExprKind};

/// A fact conjunct as a closed formula ([`closed_fact`]), unless it reads the launch memory under
/// `\old`. The resource checks assume other threads' facts only to learn which locations their
/// permissions name; facts about launch values rarely tell, and a second heap beside the current
/// one can cost the solver seconds. Leaving them out only weakens what is assumed.
pub(super) fn fact_without_old(context: &Context, conjunct: &Conjunct) -> Option<Expr> {
    if reads_old(conjunct) {
        return None;
    }
    closed_fact(context, conjunct)
}

/// Whether a fact conjunct reads under `\old` (in its ranges, guards or body).
pub(super) fn reads_old(conjunct: &Conjunct) -> bool {
    let ConjunctKind::Fact(fact) = &conjunct.kind else { return false };
    let mut parts = conjunct.binders.iter().map(|binder| &binder.range).chain(&conjunct.guards).chain([fact]);
    parts.any(|part| contains(part, |kind| matches!(kind, ExprKind::Old(_))))
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
