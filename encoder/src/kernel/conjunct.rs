//! Inhaling, exhaling and asserting resource formulas in the thread procedure, conjunct by
//! conjunct (E4), including the iterated separating conjunction `\forall*` (E10).
//!
//! A conjunct is translated once into its guard (its conditions, and for `\forall*` the range of
//! its bound variable) and its fact or permission atom. Permission under `\forall*` changes a mask
//! at every location the atom names: `M'[j] = M[j] ± (hit(j) ? q : 0)`, where `hit(j)` says that
//! some value of the bound variable names `j`. For an index `i + c` (`c` free of `i`) the value is
//! `j - c`, and `hit(j)` needs no quantifier; otherwise `hit(j)` is `exists i :: ...`.

use super::expr::{self, Context};
use super::names;
use super::state::{conjunction, mask_type, Body, Encoder};
use crate::ivl::{BinaryOp, Binding, Expr, Quantifier, Stmt, StmtKind, Type};
use lockstep_logic::outline::Part;
use lockstep_logic::resources::{Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, ExprKind, VarId};
use num_bigint::BigInt;
use std::collections::HashMap;

/// The bound variable of the maps built here.
pub(super) const CELL: &str = "cell";

/// A conjunct in IVL terms.
pub(super) struct Translated {
    /// The `\forall*` variables, outermost first: their IVL bindings and the logic variables.
    binders: Vec<(Binding, VarId)>,
    /// The ranges of the `\forall*` variables, as written.
    ranges: Vec<logic::Expr>,
    /// The conditions under which the conjunct applies (the binders' ranges first).
    guard: Expr,
    kind: Kind,
}

enum Kind {
    Fact(Expr),
    /// `amount`: the amount's term, `None` for `read`.
    Perm {
        array: logic::ArrayId,
        index: Expr,
        logic_index: logic::Expr,
        amount: Option<Expr>,
    },
}

impl Translated {
    /// The fact of a fact conjunct, closed: `forall i :: range && guards ==> fact` (`None` for a
    /// permission).
    pub(super) fn closed_fact(&self) -> Option<Expr> {
        match &self.kind {
            Kind::Fact(fact) => Some(self.closed(fact.clone())),
            Kind::Perm { .. } => None,
        }
    }

    /// `forall i, j :: guard ==> e`, or `guard ==> e`.
    fn closed(&self, body: Expr) -> Expr {
        let implication = Expr::binary(BinaryOp::Implies, self.guard.clone(), body);
        if self.binders.is_empty() {
            return implication;
        }
        Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound: self.bindings(),
            triggers: Vec::new(),
            body: Box::new(implication),
        }
    }

    fn bindings(&self) -> Vec<Binding> {
        self.binders.iter().map(|(binding, _)| binding.clone()).collect()
    }
}

/// Translates a conjunct in a context, with its `\forall*`s (nested ones too, E10).
pub(super) fn translate(context: &Context, conjunct: &Conjunct) -> Translated {
    // A context of its own only for a conjunct that binds variables: a copy holds every array's
    // names, and a contract of many arrays translates many conjuncts.
    let mut context = std::borrow::Cow::Borrowed(context);
    let mut guards = Vec::new();
    let mut binders = Vec::new();
    for binder in &conjunct.binders {
        let name = names::bound(context.kernel, binder.var);
        context.to_mut().vars.insert(binder.var, Expr::var(&name));
        guards.push(context.translate(&binder.range));
        binders.push((Binding::new(name, Type::Int), binder.var));
    }
    guards.extend(conjunct.guards.iter().map(|guard| context.translate(guard)));
    let kind = match &conjunct.kind {
        ConjunctKind::Fact(fact) => Kind::Fact(context.translate(fact)),
        ConjunctKind::Perm { array, index, amount } => Kind::Perm {
            array: *array,
            index: context.translate(index),
            logic_index: index.clone(),
            amount: context.amount(amount),
        },
    };
    let ranges = conjunct.binders.iter().map(|binder| binder.range.clone()).collect();
    Translated { binders, ranges, guard: conjunction(guards), kind }
}

impl Encoder<'_> {
    /// Inhales one conjunct: assume a fact, add a permission.
    pub(super) fn inhale_conjunct(&mut self, context: &Context, part: &Part, body: &mut Body) {
        self.checks(context, &part.checks, &mut body.stmts);
        let translated = translate(context, &part.conjunct);
        match &translated.kind {
            Kind::Fact(fact) => body.push(StmtKind::Assume(translated.closed(fact.clone()))),
            Kind::Perm { array, index, amount, .. } if translated.binders.is_empty() => {
                let amount = self.amount(amount.clone(), body, None);
                let mask = names::mask(self.kernel, array.index());
                body.push(guarded_update(&translated.guard, mask, index, BinaryOp::Add, amount));
            }
            Kind::Perm { amount, .. } => {
                let amount = self.amount(amount.clone(), body, None);
                self.update_quantified(context, &translated, BinaryOp::Add, |_| amount.clone(), body);
            }
        }
    }

    /// Exhales one conjunct: assert a fact, check and remove a permission (the part's `holds`).
    /// `before` reads the masks from before the exhale began (for the reads of facts).
    pub(super) fn exhale_conjunct(&mut self, before: &Context, part: &Part, body: &mut Body) {
        self.checks(before, &part.checks, &mut body.stmts);
        let conjunct = &part.conjunct;
        let translated = translate(before, conjunct);
        let holds_tag = Self::tag(part.holds.expect("an exhaled part is an obligation"));
        match &translated.kind {
            Kind::Fact(fact) => {
                let expr = translated.closed(fact.clone());
                body.push(StmtKind::Assert { expr, tag: Some(holds_tag), assumed: true });
            }
            Kind::Perm { array, index, amount, .. } => {
                let mask = names::mask(self.kernel, array.index());
                let current = Expr::select(Expr::var(&mask), index.clone());
                let enough = expr::holds(current.clone(), amount.clone());
                // A permission that is missing is reported, and the thread goes on as if it had
                // it: not assumed, so the checks after it are still decided on every path.
                body.push(StmtKind::Assert { expr: translated.closed(enough), tag: Some(holds_tag), assumed: false });
                if translated.binders.is_empty() {
                    let amount = self.amount(amount.clone(), body, Some(current));
                    body.push(guarded_update(&translated.guard, mask, index, BinaryOp::Sub, amount));
                    return;
                }
                // Two values of the bound variable must name two locations, or the exact amount
                // would be taken once where it is owed twice.
                if let Some(distinct) = part.distinct {
                    let injective = self.injectivity(before, conjunct, &translated);
                    self.prove(&mut body.stmts, distinct, injective);
                }
                match amount {
                    Some(value) => {
                        self.update_quantified(before, &translated, BinaryOp::Sub, |_| value.clone(), body);
                    }
                    None => {
                        // A wildcard per location, positive and below what is held there (Carbon),
                        // wherever something is held: the assertion above showed that every
                        // location the range names is such a one. Unguarded, the assumption would
                        // be false at every location held by nobody, and everything after it
                        // vacuous (`forall_read_postcondition_wrong.pvl` verified so).
                        let taken = format!("taken_{}", self.wildcards);
                        self.wildcards += 1;
                        body.locals.push(Binding::new(&taken, mask_type()));
                        body.push(StmtKind::Havoc(vec![taken.clone()]));
                        let location = Expr::var(CELL);
                        let held = Expr::select(Expr::var(&mask), location.clone());
                        let amount = Expr::select(Expr::var(&taken), location.clone());
                        body.push(StmtKind::Assume(Expr::Quantified {
                            quantifier: Quantifier::Forall,
                            bound: vec![Binding::new(CELL, Type::Int)],
                            triggers: Vec::new(),
                            body: Box::new(Expr::binary(
                                BinaryOp::Implies,
                                Expr::binary(BinaryOp::Lt, expr::real_zero(), held.clone()),
                                Expr::binary(
                                    BinaryOp::And,
                                    Expr::binary(BinaryOp::Lt, expr::real_zero(), amount.clone()),
                                    Expr::binary(BinaryOp::Lt, amount, held),
                                ),
                            )),
                        }));
                        self.update_quantified(
                            before,
                            &translated,
                            BinaryOp::Sub,
                            |location| Expr::select(Expr::var(&taken), location.clone()),
                            body,
                        );
                    }
                }
            }
        }
    }

    /// Asserts one conjunct without removing anything: a fact holds, a permission is held.
    pub(super) fn assert_conjunct(&mut self, context: &Context, part: &Part, body: &mut Body) {
        self.checks(context, &part.checks, &mut body.stmts);
        let translated = translate(context, &part.conjunct);
        let (holds, assumed) = match &translated.kind {
            Kind::Fact(fact) => (fact.clone(), true),
            Kind::Perm { array, index, amount, .. } => {
                let mask = Expr::var(names::mask(self.kernel, array.index()));
                (expr::holds(Expr::select(mask, index.clone()), amount.clone()), false)
            }
        };
        let tag = Self::tag(part.holds.expect("an asserted part is an obligation"));
        body.push(StmtKind::Assert { expr: translated.closed(holds), tag: Some(tag), assumed });
    }

    /// `forall i1, i2 :: guard(i1) && guard(i2) && i1 != i2 ==> index(i1) != index(i2)`, where
    /// `i1` and `i2` are tuples of the bound variables (they differ where some component does).
    fn injectivity(&self, before: &Context, conjunct: &Conjunct, translated: &Translated) -> Expr {
        if translated.binders.is_empty() {
            return Expr::Bool(true);
        }
        let instance = |suffix: &str| -> (Expr, Expr, Vec<Binding>) {
            let mut renamed = before.clone();
            let mut bindings = Vec::new();
            for (binding, var) in &translated.binders {
                let name = format!("{}_{suffix}", binding.name);
                renamed.vars.insert(*var, Expr::var(&name));
                bindings.push(Binding::new(name, Type::Int));
            }
            let ranges: Vec<Expr> = conjunct.binders.iter().map(|binder| renamed.translate(&binder.range)).collect();
            let mut unbound = conjunct.clone();
            unbound.binders.clear();
            let again = translate(&renamed, &unbound);
            let Kind::Perm { index, .. } = again.kind else { unreachable!("a permission conjunct") };
            let guard =
                ranges.into_iter().rev().fold(again.guard, |guard, range| Expr::binary(BinaryOp::And, range, guard));
            (guard, index, bindings)
        };
        let (first_guard, first_index, first) = instance("1");
        let (second_guard, second_index, second) = instance("2");
        let distinct = first
            .iter()
            .zip(&second)
            .map(|(one, other)| Expr::binary(BinaryOp::Ne, Expr::var(&one.name), Expr::var(&other.name)))
            .reduce(|left, right| Expr::binary(BinaryOp::Or, left, right))
            .expect("a bound variable");
        Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound: first.into_iter().chain(second).collect(),
            triggers: Vec::new(),
            body: Box::new(Expr::binary(
                BinaryOp::Implies,
                conjunction([first_guard, second_guard, distinct]),
                Expr::binary(BinaryOp::Ne, first_index, second_index),
            )),
        }
    }

    /// `M := (lambda j :: M[j] op (hit(j) ? amount(j) : 0))`: no quantified assumption.
    fn update_quantified(
        &mut self,
        context: &Context,
        translated: &Translated,
        op: BinaryOp,
        amount: impl Fn(&Expr) -> Expr,
        body: &mut Body,
    ) {
        let Kind::Perm { array, .. } = &translated.kind else { return };
        if translated.binders.is_empty() {
            return;
        }
        let mask = names::mask(self.kernel, array.index());
        let location = Expr::var(CELL);
        let hit = hit(context, translated, &location);
        let change = Expr::IfThenElse(Box::new(hit), Box::new(amount(&location)), Box::new(expr::real_zero()));
        let value = Expr::Lambda {
            bound: Binding::new(CELL, Type::Int),
            body: Box::new(Expr::binary(op, Expr::select(Expr::var(&mask), location), change)),
        };
        body.push(StmtKind::Assign { target: mask, indices: Vec::new(), value });
    }
}

/// Whether a permission conjunct names `location` in a context, for some values of its `\forall*`
/// variables: its guard and index there, without a quantifier where the index allows (E10).
pub(super) fn names_location(context: &Context, conjunct: &Conjunct, location: &Expr) -> Expr {
    hit(context, &translate(context, conjunct), location)
}

/// Whether some value of the bound variables names `location`, without a quantifier where the
/// index allows (E10): the innermost variable by its inverse (`location - c` for an index
/// `i + c`), and each outer one, over a range of a few literal values, by trying each value;
/// else an existential.
fn hit(context: &Context, translated: &Translated, location: &Expr) -> Expr {
    let Kind::Perm { index, logic_index, .. } = &translated.kind else { return Expr::Bool(false) };
    let names_location = Expr::binary(BinaryOp::Eq, index.clone(), location.clone());
    let at_location = Expr::binary(BinaryOp::And, translated.guard.clone(), names_location);
    let Some(((innermost, var), outer)) = translated.binders.split_last() else { return at_location };
    let mut inner = context.clone();
    for (binding, var) in &translated.binders {
        inner.vars.insert(*var, Expr::var(&binding.name));
    }
    let values: Option<Vec<Vec<BigInt>>> =
        outer.iter().zip(&translated.ranges).map(|((_, var), range)| literal_values(range, *var)).collect();
    if let (Some(inverse), Some(values)) = (inverse(&inner, logic_index, *var, location), values) {
        // guard(inverse) && index(inverse) == location, by substituting the inverse, for each
        // value of the outer variables.
        let at_inverse = crate::ivl::substitute(&at_location, &HashMap::from([(innermost.name.clone(), inverse)]));
        let mut cases = vec![at_inverse];
        for ((binding, _), values) in outer.iter().zip(values) {
            cases = cases
                .iter()
                .flat_map(|case| {
                    values.iter().map(move |value| {
                        let replacement = HashMap::from([(binding.name.clone(), Expr::Int(value.clone()))]);
                        crate::ivl::substitute(case, &replacement)
                    })
                })
                .collect();
        }
        return cases
            .into_iter()
            .reduce(|left, right| Expr::binary(BinaryOp::Or, left, right))
            .unwrap_or(Expr::Bool(false));
    }
    Expr::Quantified {
        quantifier: Quantifier::Exists,
        bound: translated.bindings(),
        triggers: Vec::new(),
        body: Box::new(at_location),
    }
}

/// The values of a variable whose range is a literal interval of at most [`EXPANDED`] values:
/// `lo <= v && v < hi` or `lo <= v && v <= hi`.
fn literal_values(range: &logic::Expr, var: VarId) -> Option<Vec<BigInt>> {
    let literal = |expr: &logic::Expr| match &expr.kind {
        ExprKind::Int(value) => Some(value.clone()),
        _ => None,
    };
    let is_var = |expr: &logic::Expr| matches!(expr.kind, ExprKind::Var(found) if found == var);
    let ExprKind::Binary { op: logic::BinaryOp::And, lhs, rhs } = &range.kind else { return None };
    let low = match &lhs.kind {
        ExprKind::Binary { op: logic::BinaryOp::Le, lhs: low, rhs: bound } if is_var(bound) => literal(low)?,
        _ => return None,
    };
    let high = match &rhs.kind {
        ExprKind::Binary { op: logic::BinaryOp::Lt, lhs: bound, rhs: high } if is_var(bound) => literal(high)?,
        ExprKind::Binary { op: logic::BinaryOp::Le, lhs: bound, rhs: high } if is_var(bound) => literal(high)? + 1,
        _ => return None,
    };
    let count = &high - &low;
    (count >= BigInt::from(0) && count <= BigInt::from(EXPANDED)).then(|| {
        let mut values = Vec::new();
        let mut value = low;
        while value < high {
            values.push(value.clone());
            value += 1;
        }
        values
    })
}

/// The most values of an outer `\forall*` variable the mask update tries one by one.
const EXPANDED: u32 = 16;

/// `if (guard) { M[index] := M[index] op amount; }`.
fn guarded_update(guard: &Expr, mask: String, index: &Expr, op: BinaryOp, amount: Expr) -> StmtKind {
    let current = Expr::select(Expr::var(&mask), index.clone());
    StmtKind::If {
        cond: Some(guard.clone()),
        then_branch: vec![Stmt::new(StmtKind::Assign {
            target: mask,
            indices: vec![index.clone()],
            value: Expr::binary(op, current, amount),
        })],
        else_branch: Vec::new(),
    }
}

/// The value of the bound variable `var` that makes `index` equal `location`, for an index linear
/// in `var`: `var`, `e + c`, `c + e`, `e - c`, `c - e` and `k * e` (a positive literal `k`) of such
/// an `e`, with `c` free of `var` (E10). Through `k * e` it is `location div k`, which names
/// `location` only where `k` divides it: [`hit`] compares the index there with `location`.
fn inverse(context: &Context, index: &logic::Expr, var: VarId, location: &Expr) -> Option<Expr> {
    let free = |expr: &logic::Expr| (!expr.mentions(var)).then(|| context.translate(expr));
    let invert = |inner: &logic::Expr, location: Expr| inverse(context, inner, var, &location);
    match &index.kind {
        ExprKind::Var(found) if *found == var => Some(location.clone()),
        ExprKind::Binary { op: logic::BinaryOp::Add, lhs, rhs } => match (free(lhs), free(rhs)) {
            (_, Some(c)) => invert(lhs, Expr::binary(BinaryOp::Sub, location.clone(), c)),
            (Some(c), None) => invert(rhs, Expr::binary(BinaryOp::Sub, location.clone(), c)),
            (None, None) => None,
        },
        ExprKind::Binary { op: logic::BinaryOp::Sub, lhs, rhs } => match (free(lhs), free(rhs)) {
            (_, Some(c)) => invert(lhs, Expr::binary(BinaryOp::Add, location.clone(), c)),
            (Some(c), None) => invert(rhs, Expr::binary(BinaryOp::Sub, c, location.clone())),
            (None, None) => None,
        },
        ExprKind::Binary { op: logic::BinaryOp::Mul, lhs, rhs } => {
            let factor = |expr: &logic::Expr| match &expr.kind {
                ExprKind::Int(k) if *k > BigInt::from(0) => Some(k.clone()),
                _ => None,
            };
            let (k, inner) = match (factor(lhs), factor(rhs)) {
                (Some(k), _) => (k, rhs),
                (None, Some(k)) => (k, lhs),
                (None, None) => return None,
            };
            invert(inner, Expr::binary(BinaryOp::Div, location.clone(), Expr::Int(k)))
        }
        _ => None,
    }
}
