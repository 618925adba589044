//! Fact conjuncts as closed formulas: a contract's pure conjuncts under their guards and
//! `\forall*`, for the procedures that assume them of a thread other than the one running
//! (barrier, resource and level procedures).

use super::conjunct::translate;
use super::expr::Context;
use crate::ivl::Expr;
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
    translate(context, conjunct).closed_fact()
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
