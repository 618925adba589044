//! Candidate loop invariants, as Houdini guesses them: facts about induction variables (their
//! start, direction, bound and stride, and how two of them move together) and about variables
//! a loop halves or doubles (start, sign, bound), each added to its loop's invariants and checked
//! like a written one. The driver drops every candidate that fails and verifies again, until all
//! that remain hold ([`Inferred::without`]); none is ever assumed unchecked.

use super::footprint::{self, reads_memory, same};
use super::{Inferred, Pins};
use crate::outline::{Command, Outline};
use crate::resources::normal_form;
use crate::{BinaryOp, Block, Clause, Expr, ExprKind, Span, StmtKind, UnaryOp, VarId};
use std::collections::{BTreeSet, HashMap};

/// What the code before a point says of variables: `x` equals `e` where nothing `e` names, nor
/// `x`, changed since; and the conditions the point stands under (a loop's in its body, an
/// `if`'s in its branches) where nothing they name changed since.
#[derive(Clone, Default)]
pub(super) struct Known {
    values: HashMap<VarId, Expr>,
    conditions: Vec<Expr>,
}

impl Known {
    /// From here on `cond` holds, until a variable it names changes; a condition that reads
    /// memory is not kept (a write may change it).
    pub fn holds(&mut self, cond: &Expr) {
        if !reads_memory(cond) {
            self.conditions.push(cond.clone());
        }
    }

    /// What is known here, as facts: each known value as `x == e`, then the conditions.
    pub fn facts(&self, span: crate::Span) -> Vec<Expr> {
        let mut values: Vec<(&VarId, &Expr)> = self.values.iter().collect();
        values.sort_by_key(|(var, _)| **var);
        // The variable has its value's type (a C `return`'s flag is a boolean).
        let values = values.into_iter().map(|(&var, value)| {
            let var = Expr { ty: value.ty, ..footprint::var(var, span) };
            footprint::binary(BinaryOp::Eq, var, value.clone())
        });
        values.chain(self.conditions.iter().cloned()).collect()
    }

    pub fn assign(&mut self, var: VarId, value: Option<&Expr>) {
        let value = value.filter(|value| !reads_memory(value)).map(|value| value.substitute(&self.values));
        self.forget(var);
        // A value too large is forgotten, as in the footprint (`footprint::LARGEST`).
        if let Some(value) = value
            .filter(|value| !value.mentions(var) && super::footprint::node_count(value) <= super::footprint::LARGEST)
        {
            self.values.insert(var, value);
        }
    }

    /// The known values of variables.
    pub fn values(&self) -> &HashMap<VarId, Expr> {
        &self.values
    }

    pub fn forget(&mut self, var: VarId) {
        self.values.remove(&var);
        self.values.retain(|_, value| !value.mentions(var));
        self.conditions.retain(|cond| !cond.mentions(var));
    }

    /// What holds after either of two ways: the values and conditions they agree on.
    pub fn join(&mut self, other: &Known) {
        self.values.retain(|var, value| other.values.get(var).is_some_and(|theirs| same(value, theirs)));
        self.conditions.retain(|cond| other.conditions.iter().any(|theirs| same(cond, theirs)));
    }
}

/// The candidate invariants of a loop entered where `known` holds.
pub(super) fn of_loop(cond: &Expr, body: &Block, known: &Known, pins: &Pins, span: crate::Span) -> Vec<Clause> {
    let mut assigned = BTreeSet::new();
    super::assigned_vars(&body.stmts, &mut assigned);
    let steps = pins.steps(&body.stmts, &assigned);
    let cond = &pins.pinned(cond);
    let invariant = |expr: &Expr| !reads_memory(expr) && !assigned.iter().any(|&var| expr.mentions(var));
    let start = |var: VarId| known.values.get(&var).filter(|value| invariant(value)).cloned();
    let mut facts: Vec<Expr> = Vec::new();
    let mut order: Vec<(&VarId, &Expr)> = steps.iter().collect();
    order.sort_by_key(|(var, _)| **var);
    for &(&var, step) in &order {
        let x = footprint::var(var, span);
        let direction = direction(step);
        if let Some(first) = start(var) {
            match direction {
                Some(true) => facts.push(footprint::binary(BinaryOp::Ge, x.clone(), first.clone())),
                Some(false) => facts.push(footprint::binary(BinaryOp::Le, x.clone(), first.clone())),
                None => {}
            }
            // A stride by a literal (a size the launch pins is one): linear.
            if matches!(&step.kind, ExprKind::Int(value) if *value > 1.into()) {
                let moved = footprint::binary(BinaryOp::Sub, x.clone(), first.clone());
                let stride = footprint::binary(BinaryOp::Mod, moved, step.clone());
                facts.push(footprint::binary(BinaryOp::Eq, stride, footprint::int(0, span)));
            }
        }
        if direction == Some(true) {
            facts.push(footprint::binary(BinaryOp::Ge, x.clone(), footprint::int(0, span)));
        }
        for conjunct in conjuncts(cond) {
            let ExprKind::Binary { op, lhs, rhs } = &conjunct.kind else { continue };
            if !matches!(lhs.kind, ExprKind::Var(found) if found == var) || !invariant(rhs) {
                continue;
            }
            let bound = (**rhs).clone();
            match (op, direction) {
                (BinaryOp::Lt, Some(true)) if is_one(step) => {
                    facts.push(footprint::binary(BinaryOp::Le, x.clone(), bound))
                }
                (BinaryOp::Lt | BinaryOp::Le, Some(true)) => {
                    let beyond = footprint::binary(BinaryOp::Add, bound, step.clone());
                    facts.push(footprint::binary(BinaryOp::Lt, x.clone(), beyond));
                }
                (BinaryOp::Gt, Some(false)) if is_minus_one(step) => {
                    facts.push(footprint::binary(BinaryOp::Ge, x.clone(), bound))
                }
                (BinaryOp::Gt | BinaryOp::Ge, Some(false)) => {
                    let beyond = footprint::binary(BinaryOp::Add, bound, step.clone());
                    facts.push(footprint::binary(BinaryOp::Gt, x.clone(), beyond));
                }
                _ => {}
            }
        }
    }
    // A variable scaled by a factor (a tree's stride, `s >>= 1`, `d *= 2`): between zero and its
    // start as it halves; above its start, positive, and below its bound times the factor as it
    // doubles.
    let mut scaled: Vec<(VarId, super::summary::Scaling)> =
        super::summary::scalings(&body.stmts, &assigned).into_iter().collect();
    scaled.sort_by_key(|(var, _)| *var);
    let scaled_vars: Vec<VarId> = scaled.iter().map(|(var, _)| *var).collect();
    for (var, scaling) in scaled {
        let x = footprint::var(var, span);
        let zero = footprint::int(0, span);
        if let Some(first) = start(var) {
            let op = if scaling.grows { BinaryOp::Ge } else { BinaryOp::Le };
            facts.push(footprint::binary(op, x.clone(), first));
        }
        facts.push(footprint::binary(if scaling.grows { BinaryOp::Gt } else { BinaryOp::Ge }, x.clone(), zero));
        for conjunct in conjuncts(cond) {
            let ExprKind::Binary { op, lhs, rhs } = &conjunct.kind else { continue };
            if !matches!(lhs.kind, ExprKind::Var(found) if found == var) || !invariant(rhs) {
                continue;
            }
            let bound = (**rhs).clone();
            match (op, scaling.grows) {
                (BinaryOp::Lt, true) => {
                    let beyond = footprint::binary(BinaryOp::Mul, bound, scaling.factor.clone());
                    facts.push(footprint::binary(BinaryOp::Lt, x.clone(), beyond));
                }
                (BinaryOp::Gt, false) => {
                    let next = footprint::binary(BinaryOp::Add, bound, footprint::int(1, span));
                    let least = footprint::binary(BinaryOp::Div, next, scaling.factor.clone());
                    facts.push(footprint::binary(BinaryOp::Ge, x.clone(), least));
                }
                _ => {}
            }
        }
    }
    // Any other variable the loop sets, known at its entry: its start as a bound either way (a
    // tree's `n := n - n / 2` stays at most its start).
    for &var in &assigned {
        if steps.contains_key(&var) || scaled_vars.contains(&var) {
            continue;
        }
        if let Some(first) = start(var).filter(|first| first.ty == crate::Type::Int) {
            let x = footprint::var(var, span);
            facts.push(footprint::binary(BinaryOp::Le, x.clone(), first.clone()));
            facts.push(footprint::binary(BinaryOp::Ge, x, first));
        }
    }
    // Two induction variables that move together: `y == y0 + (x - x0) * dy` where `x` moves by 1.
    for &(&x, x_step) in &order {
        let Some(x_start) = start(x).filter(|_| is_one(x_step)) else { continue };
        for &(&y, y_step) in &order {
            let literal = matches!(y_step.kind, ExprKind::Int(_));
            let Some(y_start) = start(y).filter(|_| y != x && literal) else { continue };
            let moved = footprint::binary(BinaryOp::Sub, footprint::var(x, span), x_start.clone());
            let scaled = if is_one(y_step) { moved } else { footprint::binary(BinaryOp::Mul, moved, y_step.clone()) };
            let value = footprint::binary(BinaryOp::Add, y_start, scaled);
            facts.push(footprint::binary(BinaryOp::Eq, footprint::var(y, span), value));
        }
    }
    // Each fact as a contract states it more simply, and, where C's arithmetic wraps in it, as
    // the code computes it too: `i >= -32 * x` fails where `-32 * x` wraps and the loop starts
    // `i` at the wrapped value, which `i >= (-32 * x) wrapped` keeps.
    let mut kept: Vec<Expr> = Vec::new();
    for fact in facts.iter().flat_map(|fact| [footprint::simplified(fact), footprint::folded(fact)]) {
        if !kept.iter().any(|other| same(other, &fact)) {
            kept.push(fact);
        }
    }
    kept.into_iter()
        .map(|fact| Clause {
            assertion: crate::Assertion { kind: crate::AssertionKind::Pure(Expr { span, ..fact }), span },
            span,
        })
        .collect()
}

/// Whether an expression is positive by its form: a positive literal, a size of the launch, a
/// product of such.
pub(super) fn is_positive(expr: &Expr) -> bool {
    direction(expr) == Some(true)
}

/// Whether a step is positive (`Some(true)`), negative (`Some(false)`), by its form.
fn direction(step: &Expr) -> Option<bool> {
    match &step.kind {
        ExprKind::Int(value) if *value > 0.into() => Some(true),
        ExprKind::Int(value) if *value < 0.into() => Some(false),
        ExprKind::Builtin(builtin) if builtin.is_launch_size() => Some(true),
        ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } => match (direction(lhs), direction(rhs)) {
            (Some(a), Some(b)) => Some(a == b),
            _ => None,
        },
        ExprKind::Unary { op: UnaryOp::Neg, operand } => direction(operand).map(|positive| !positive),
        _ => None,
    }
}

fn is_one(step: &Expr) -> bool {
    matches!(&step.kind, ExprKind::Int(value) if *value == 1.into())
}

fn is_minus_one(step: &Expr) -> bool {
    matches!(&step.kind, ExprKind::Int(value) if *value == (-1).into())
}

/// The conjuncts of a condition.
pub(super) fn conjuncts(cond: &Expr) -> Vec<&Expr> {
    match &cond.kind {
        ExprKind::Binary { op: BinaryOp::And, lhs, rhs } => {
            let mut parts = conjuncts(lhs);
            parts.extend(conjuncts(rhs));
            parts
        }
        _ => vec![cond],
    }
}

/// A candidate the Houdini driver may drop: a loop invariant, as its loop's position (loops
/// numbered in the order they stand) and its clause's, or a barrier clause, by its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    Invariant { position: usize, clause: usize },
    BarrierClause(Span),
}

impl Inferred {
    /// The checks of the candidates in `outline`, this kernel's: each candidate with the number
    /// of an obligation that checks it (an invariant on entry or preserved; a barrier clause's
    /// every check, which has its span).
    pub fn candidate_checks(&self, outline: &Outline) -> Vec<(Candidate, usize)> {
        let mut loops = Vec::new();
        loop_commands(&outline.thread, &mut loops);
        let mut checks = Vec::new();
        for (position, command) in loops.iter().enumerate() {
            let Command::Loop { invariants, entry, preserved, .. } = command else { continue };
            let marks = self.candidates.get(position).map_or(&[][..], |marks| &marks[..]);
            let is_candidate = |clause: usize| marks.get(clause).copied().unwrap_or(false);
            let mut owners = Vec::new();
            for (clause, invariant) in invariants.iter().enumerate() {
                owners.extend(std::iter::repeat_n(clause, normal_form(&invariant.assertion).len()));
            }
            for exhale in [entry, preserved] {
                let Command::Exhale { parts, .. } = &**exhale else { continue };
                for (part, &clause) in parts.iter().zip(&owners).filter(|(_, owner)| is_candidate(**owner)) {
                    let obligations = part.holds.into_iter().chain(part.checks.iter().map(|check| check.obligation));
                    checks
                        .extend(obligations.map(|obligation| (Candidate::Invariant { position, clause }, obligation)));
                }
            }
        }
        for (number, obligation) in outline.obligations.iter().enumerate() {
            if self.barrier_candidates.contains(&obligation.span) {
                checks.push((Candidate::BarrierClause(obligation.span), number));
            }
        }
        checks
    }

    /// The candidates among the obligations of `outline` that `failed` (by number).
    pub fn failing_candidates(&self, outline: &Outline, failed: &dyn Fn(usize) -> bool) -> Vec<Candidate> {
        let mut failing = Vec::new();
        for (candidate, obligation) in self.candidate_checks(outline) {
            if failed(obligation) && !failing.contains(&candidate) {
                failing.push(candidate);
            }
        }
        failing
    }

    /// The kernel without the given candidates.
    pub fn without(&mut self, dropped: &[Candidate]) {
        let invariants: Vec<(usize, usize)> = dropped
            .iter()
            .filter_map(|candidate| match *candidate {
                Candidate::Invariant { position, clause } => Some((position, clause)),
                Candidate::BarrierClause(_) => None,
            })
            .collect();
        let mut position = 0;
        drop_in(&mut self.kernel.body, &invariants, &mut position, &mut self.candidates);
        let clauses: Vec<Span> = dropped
            .iter()
            .filter_map(|candidate| match *candidate {
                Candidate::BarrierClause(span) => Some(span),
                Candidate::Invariant { .. } => None,
            })
            .collect();
        for barrier in &mut self.kernel.barriers {
            barrier.contract.requires.retain(|clause| !clauses.contains(&clause.span));
            barrier.contract.ensures.retain(|clause| !clauses.contains(&clause.span));
        }
        self.barrier_candidates.retain(|span| !clauses.contains(span));
    }
}

fn loop_commands<'c>(commands: &'c [Command], out: &mut Vec<&'c Command>) {
    for command in commands {
        match command {
            Command::Loop { body, .. } => {
                out.push(command);
                loop_commands(body, out);
            }
            Command::If { then_branch, else_branch, .. } => {
                loop_commands(then_branch, out);
                loop_commands(else_branch, out);
            }
            _ => {}
        }
    }
}

fn drop_in(block: &mut Block, dropped: &[(usize, usize)], position: &mut usize, candidates: &mut [Vec<bool>]) {
    for stmt in &mut block.stmts {
        match &mut stmt.kind {
            StmtKind::While { invariants, body, .. } => {
                let here = *position;
                *position += 1;
                let kept = |clause: &usize| !dropped.contains(&(here, *clause));
                let mut clause = 0;
                invariants.retain(|_| {
                    clause += 1;
                    kept(&(clause - 1))
                });
                if let Some(marks) = candidates.get_mut(here) {
                    *marks =
                        marks.iter().enumerate().filter(|(clause, _)| kept(clause)).map(|(_, &mark)| mark).collect();
                }
                drop_in(body, dropped, position, candidates);
            }
            StmtKind::If { then_branch, else_branch, .. } => {
                drop_in(then_branch, dropped, position, candidates);
                if let Some(block) = else_branch {
                    drop_in(block, dropped, position, candidates);
                }
            }
            StmtKind::Block(inner) => drop_in(inner, dropped, position, candidates),
            _ => {}
        }
    }
}
