//! The resource normal form: an assertion as the list of its conjuncts, read left to right, each
//! a permission atom or a pure fact under the conditions (`e -> R`, `c ? R1 : R2`) and the
//! iterated separating conjunctions (`\forall*`) that enclose it.
//!
//! `(c -> Perm(a[i], q)) * (\forall* int j; 0 <= j < n; Perm(b[j], read))` becomes two atoms: one
//! guarded by `c`, one bound by `j` in `0 <= j < n`. The order is the order of the text, which is
//! what framing reads.

use crate::{Amount, ArrayId, Assertion, AssertionKind, Expr, ExprKind, Span, Type, UnaryOp, VarId};

/// A variable bound by `\forall*`, with its range.
#[derive(Clone, Debug, PartialEq)]
pub struct Binder {
    pub var: VarId,
    pub range: Expr,
}

/// What a conjunct is: a permission or a pure fact.
#[derive(Clone, Debug, PartialEq)]
pub enum ConjunctKind {
    Perm { array: ArrayId, index: Expr, amount: Amount },
    Fact(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Conjunct {
    /// The enclosing `\forall*`s, outermost first.
    pub binders: Vec<Binder>,
    /// The conditions under which the conjunct applies, outermost first; they may mention the binders.
    pub guards: Vec<Expr>,
    pub kind: ConjunctKind,
    pub span: Span,
}

/// The conjuncts of an assertion, left to right.
pub fn normal_form(assertion: &Assertion) -> Vec<Conjunct> {
    let mut conjuncts = Vec::new();
    flatten(assertion, &mut Vec::new(), &mut Vec::new(), &mut conjuncts);
    conjuncts
}

fn flatten(assertion: &Assertion, binders: &mut Vec<Binder>, guards: &mut Vec<Expr>, out: &mut Vec<Conjunct>) {
    let mut emit = |kind: ConjunctKind, binders: &[Binder], guards: &[Expr]| {
        out.push(Conjunct { binders: binders.to_vec(), guards: guards.to_vec(), kind, span: assertion.span });
    };
    match &assertion.kind {
        AssertionKind::Pure(expr) => emit(ConjunctKind::Fact(expr.clone()), binders, guards),
        AssertionKind::Perm(atom) => emit(
            ConjunctKind::Perm { array: atom.array, index: atom.index.clone(), amount: atom.amount.clone() },
            binders,
            guards,
        ),
        AssertionKind::Star(lhs, rhs) => {
            flatten(lhs, binders, guards, out);
            flatten(rhs, binders, guards, out);
        }
        AssertionKind::Implies(cond, body) => {
            guards.push(cond.clone());
            flatten(body, binders, guards, out);
            guards.pop();
        }
        AssertionKind::Cond(cond, then_branch, else_branch) => {
            guards.push(cond.clone());
            flatten(then_branch, binders, guards, out);
            guards.pop();
            guards.push(negation(cond));
            flatten(else_branch, binders, guards, out);
            guards.pop();
        }
        AssertionKind::ForallStar { var, range, body } => {
            binders.push(Binder { var: *var, range: range.clone() });
            flatten(body, binders, guards, out);
            binders.pop();
        }
    }
}

/// `!expr`.
pub fn negation(expr: &Expr) -> Expr {
    Expr {
        kind: ExprKind::Unary { op: UnaryOp::Not, operand: Box::new(expr.clone()) },
        ty: Type::Bool,
        span: expr.span,
    }
}
