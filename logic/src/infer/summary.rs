//! Loops without a barrier, summarised by their induction variables.
//!
//! A variable the body always moves by the same step `d` (`i++`, `i += gsize`, `j = j - 2`), a
//! step the body does not change, is `i + k * d` at the head of iteration `k`. An access of one
//! iteration over such variables (and over values the loop leaves alone) is then an access over
//! `k`, for every `k >= 0` at which the loop's condition holds: more iterations than run, never
//! fewer. Anything else the body assigns is forgotten ([`Footprint::forget`]). After the loop an
//! induction variable is `i + K * d` for the `K` at which the condition first fails, which the
//! guards `!cond(K)` and `K == 0 || cond(K - 1)` pin down when the condition is monotone (and
//! over-approximate when it is not).

use super::footprint::{self, Footprint};
use super::{assigned_vars, Inference};
use crate::{BinaryOp, Block, Clause, Expr, ExprKind, Stmt, StmtKind, UnaryOp, VarId};
use num_bigint::BigInt;
use std::collections::{BTreeSet, HashMap};

impl Inference<'_> {
    /// The footprint before a loop without a barrier, and the one its invariant holds (every
    /// iteration's accesses, [`Inference::every_iteration`]).
    pub(super) fn summary(
        &mut self,
        invariants: &[Clause],
        cond: &Expr,
        body: &Block,
        starts: &HashMap<VarId, Expr>,
        after: Footprint,
    ) -> (Footprint, Footprint) {
        let mut assigned = BTreeSet::new();
        assigned_vars(&body.stmts, &mut assigned);
        let steps = self.pins.steps(&body.stmts, &assigned);
        // An index read from memory does not survive the iterations before it (which may write
        // that memory).
        let once = self.block(&body.stmts, Footprint::default());
        let mut once = self.settled(once, None, &[]).guarded(cond);
        self.reads(cond, &mut once);
        for invariant in invariants {
            self.assertion_reads(&invariant.assertion, &mut once);
        }
        let iteration = self.fresh(cond.span);
        let mut held = self.over_iterations(once, iteration, &steps, Vec::new(), Some(cond));
        let exit = self.fresh(cond.span);
        let touched = after.accesses.iter().any(|access| assigned.iter().any(|&var| access_mentions(access, var)));
        let mut after = if touched {
            let exit_guards = exit_guards(cond, exit, &steps, &assigned);
            let (touched, untouched): (Vec<_>, Vec<_>) =
                after.accesses.into_iter().partition(|access| assigned.iter().any(|&var| access_mentions(access, var)));
            let touched = Footprint { accesses: touched, open: false };
            let mut touched = self.over_iterations(touched, exit, &steps, exit_guards, None);
            touched.accesses.extend(untouched);
            touched.open = after.open;
            touched
        } else {
            after
        };
        for &var in assigned.iter().filter(|var| !steps.contains_key(var)) {
            held = self.forget(held, var, cond.span);
            after = self.forget(after, var, cond.span);
        }
        let whole = self.every_iteration(&held, &steps, &assigned, starts);
        (held.union(after), whole)
    }

    /// What the loop touches over all its iterations, the past ones too: `held` (every iteration
    /// from the head on) with each induction variable at its start value, where the statements
    /// just before the loop give every one of them a value the loop leaves alone
    /// (`for (int i = lid; ...)`). A cell an earlier iteration touched stays held after the
    /// loop, for what follows it (`a[i]` read again after the loop that wrote it, the next round
    /// of an enclosing loop). Without start values, `held` itself: only the iterations to come.
    fn every_iteration(
        &mut self,
        held: &Footprint,
        steps: &HashMap<VarId, Expr>,
        assigned: &BTreeSet<VarId>,
        starts: &HashMap<VarId, Expr>,
    ) -> Footprint {
        let moved: Vec<VarId> = steps.keys().copied().filter(|&var| held.mentions(var)).collect();
        let known = |var: &VarId| starts.get(var).filter(|start| !assigned.iter().any(|&other| start.mentions(other)));
        if moved.iter().any(|var| known(var).is_none()) {
            return held.clone();
        }
        let starts: Vec<(VarId, Expr)> = moved.iter().map(|var| (*var, known(var).cloned().unwrap())).collect();
        starts.into_iter().fold(held.clone(), |whole, (var, start)| self.assign(whole, var, &start))
    }

    /// Each access for every iteration `k >= 0` (the binder `iteration`), its induction variables
    /// at their values there, with `extra` guards over `k`. An access whose cell is the same in
    /// every iteration is claimed once, not once per iteration (which would claim it several
    /// times over): under its guards that do not depend on `k`, and the loop's condition `cond`
    /// at its head (an iteration runs only if the first does); a guard that depends on `k` is
    /// left out, which claims more, never less.
    fn over_iterations(
        &mut self,
        footprint: Footprint,
        iteration: VarId,
        steps: &HashMap<VarId, Expr>,
        extra: Vec<Expr>,
        cond: Option<&Expr>,
    ) -> Footprint {
        let span = self.vars[iteration.index()].span;
        let at = at_iteration(steps, &footprint::var(iteration, span));
        let mut out = Footprint { accesses: Vec::new(), open: footprint.open };
        for mut access in footprint.accesses {
            if !steps.keys().any(|&var| access_mentions(&access, var)) && extra.is_empty() {
                out.accesses.push(access);
                continue;
            }
            access.index = access.index.substitute(&at);
            if !access.index.mentions(iteration) {
                let cond_at = cond.map(|cond| cond.substitute(&at));
                access.guards = access
                    .guards
                    .iter()
                    .filter_map(|guard| {
                        let substituted = guard.substitute(&at);
                        if !substituted.mentions(iteration) {
                            Some(substituted)
                        } else {
                            let is_cond =
                                cond_at.as_ref().is_some_and(|cond_at| footprint::same(&substituted, cond_at));
                            is_cond.then(|| guard.clone())
                        }
                    })
                    .collect();
                out.accesses.push(access);
                continue;
            }
            access.guards = access.guards.iter().map(|guard| guard.substitute(&at)).collect();
            access.binders.insert(0, iteration);
            let from_zero = footprint::binary(BinaryOp::Le, footprint::int(0, span), footprint::var(iteration, span));
            access.guards.splice(0..0, std::iter::once(from_zero).chain(extra.iter().cloned()));
            let access = self.over_cells(access);
            out.accesses.push(access);
        }
        out
    }
}

impl Inference<'_> {
    /// An access over one iteration binder `k` whose index is `rest + k * d`, with `d` a positive
    /// literal other than 1 or a size of the launch, as one over the cells it names instead:
    /// `c` with `(c - rest) mod d == 0`, and `k` is `(c - rest) / d` in its guards (`rest + k * d`
    /// is `c` and `0 <= k` is `rest <= c` there, [`at_cell`]). The index is
    /// then the binder itself, which the encoding inverts exactly (`proofs/kernel.md`, E10),
    /// where `k * d` would leave the solver a non-linear existential.
    fn over_cells(&mut self, access: footprint::Access) -> footprint::Access {
        let [iteration] = access.binders[..] else { return access };
        let index = footprint::simplified(&access.index);
        let Some((coefficient, rest)) = footprint::linear(&index, iteration) else { return access };
        let coefficient = footprint::simplified(&coefficient);
        let stride = match &coefficient.kind {
            ExprKind::Int(value) => *value > BigInt::from(1),
            _ => super::candidates::is_positive(&coefficient),
        };
        if !stride {
            return access;
        }
        let span = access.span;
        let cell = self.fresh(span);
        let offset = footprint::binary(BinaryOp::Sub, footprint::var(cell, span), rest.clone());
        let count = footprint::binary(BinaryOp::Div, offset.clone(), coefficient.clone());
        let divides = footprint::binary(
            BinaryOp::Eq,
            footprint::binary(BinaryOp::Mod, offset, coefficient.clone()),
            footprint::int(0, span),
        );
        let at = HashMap::from([(iteration, count)]);
        let mut guards = vec![divides];
        let rest = footprint::simplified(&rest);
        let at_cell = |guard: &Expr| at_cell(guard, iteration, &rest, &coefficient, cell);
        guards.extend(access.guards.iter().map(|guard| at_cell(guard).substitute(&at)));
        footprint::Access { binders: vec![cell], guards, index: footprint::var(cell, span), ..access }
    }
}

/// `expr` with `rest + k * d` written as the cell `c` it names and `0 <= k` as `rest <= c`: exact
/// where `(c - rest) mod d == 0`, and linear, where `(c - rest) / d` in their place would leave the
/// solver divisions to relate across iterations (the grid-stride loop's invariant).
fn at_cell(expr: &Expr, iteration: VarId, rest: &Expr, stride: &Expr, cell: VarId) -> Expr {
    let is_iteration = |expr: &Expr| matches!(expr.kind, ExprKind::Var(found) if found == iteration);
    let span = expr.span;
    match &expr.kind {
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => {
            if let ExprKind::Binary { op: BinaryOp::Mul, lhs: k, rhs: d } = &rhs.kind {
                if is_iteration(k)
                    && footprint::same(&footprint::simplified(d), stride)
                    && footprint::same(&footprint::simplified(lhs), rest)
                {
                    return footprint::var(cell, span);
                }
            }
            let recurse = |side: &Expr| at_cell(side, iteration, rest, stride, cell);
            footprint::binary(BinaryOp::Add, recurse(lhs), recurse(rhs))
        }
        ExprKind::Binary { op: BinaryOp::Le, lhs, rhs }
            if is_iteration(rhs) && matches!(&lhs.kind, ExprKind::Int(zero) if *zero == BigInt::from(0)) =>
        {
            footprint::binary(BinaryOp::Le, rest.clone(), footprint::var(cell, span))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let recurse = |side: &Expr| at_cell(side, iteration, rest, stride, cell);
            Expr {
                kind: ExprKind::Binary { op: *op, lhs: Box::new(recurse(lhs)), rhs: Box::new(recurse(rhs)) },
                ..expr.clone()
            }
        }
        ExprKind::Unary { op, operand } => Expr {
            kind: ExprKind::Unary { op: *op, operand: Box::new(at_cell(operand, iteration, rest, stride, cell)) },
            ..expr.clone()
        },
        _ => expr.clone(),
    }
}

fn access_mentions(access: &footprint::Access, var: VarId) -> bool {
    access.index.mentions(var) || access.guards.iter().any(|guard| guard.mentions(var))
}

/// Each induction variable at iteration `k`: `i + k * d`.
fn at_iteration(steps: &HashMap<VarId, Expr>, k: &Expr) -> HashMap<VarId, Expr> {
    steps
        .iter()
        .map(|(&var, step)| {
            let start = footprint::var(var, k.span);
            let moved = match &step.kind {
                ExprKind::Int(value) if *value == BigInt::from(1) => k.clone(),
                _ => footprint::binary(BinaryOp::Mul, k.clone(), step.clone()),
            };
            (var, footprint::binary(BinaryOp::Add, start, moved))
        })
        .collect()
}

/// The guards that pin the iteration `exit` at which the loop stops: its condition fails there
/// and held at the one before. Empty when the condition names a variable that is not an induction
/// variable or reads memory.
fn exit_guards(cond: &Expr, exit: VarId, steps: &HashMap<VarId, Expr>, assigned: &BTreeSet<VarId>) -> Vec<Expr> {
    let known = assigned.iter().all(|&var| !cond.mentions(var) || steps.contains_key(&var));
    if !known || footprint::reads_memory(cond) {
        return Vec::new();
    }
    let span = cond.span;
    let k = footprint::var(exit, span);
    let before = footprint::binary(BinaryOp::Sub, k.clone(), footprint::int(1, span));
    let fails = footprint::not(&cond.substitute(&at_iteration(steps, &k)));
    let first = footprint::binary(BinaryOp::Eq, k, footprint::int(0, span));
    let held = cond.substitute(&at_iteration(steps, &before));
    vec![fails, footprint::binary(BinaryOp::Or, first, held)]
}

/// The induction variables of a loop body: each variable it moves by a step, with the step.
fn steps(stmts: &[Stmt], assigned: &BTreeSet<VarId>) -> HashMap<VarId, Expr> {
    assigned.iter().filter_map(|&var| Some((var, step(var, stmts, assigned)?))).collect()
}

impl super::Pins {
    /// The induction variables of a loop body, each with its step, the sizes the launch pins
    /// written as the numbers they are.
    pub(super) fn steps(&self, stmts: &[Stmt], assigned: &BTreeSet<VarId>) -> HashMap<VarId, Expr> {
        steps(stmts, assigned)
            .into_iter()
            .map(|(var, step)| (var, footprint::simplified(&self.pinned(&step))))
            .collect()
    }
}

/// How a loop body scales a variable: `var * c` or `var / c` after it, for a literal `c > 1`
/// (C's `s <<= 1`, `s >>= 1` and `n /= 2` read so).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Scaling {
    pub grows: bool,
    pub factor: Expr,
}

/// The variables of a loop body that it scales by a literal factor ([`Scaling`]). Wrapping is
/// taken off as for steps: a guess only, each fact drawn from it is a candidate checked.
pub(super) fn scalings(stmts: &[Stmt], assigned: &BTreeSet<VarId>) -> HashMap<VarId, Scaling> {
    let scaling = |var: VarId| {
        let value = unwrapped(&value_after(footprint::var(var, stmts.first()?.span), stmts)?);
        let ExprKind::Binary { op: op @ (BinaryOp::Mul | BinaryOp::Div), lhs, rhs } = &value.kind else {
            return None;
        };
        let (found, factor) = match (&lhs.kind, &rhs.kind) {
            (ExprKind::Var(found), ExprKind::Int(factor)) => (found, (factor, rhs)),
            (ExprKind::Int(factor), ExprKind::Var(found)) if *op == BinaryOp::Mul => (found, (factor, lhs)),
            _ => return None,
        };
        (*found == var && *factor.0 > BigInt::from(1))
            .then(|| Scaling { grows: *op == BinaryOp::Mul, factor: (**factor.1).clone() })
    };
    assigned.iter().filter_map(|&var| Some((var, scaling(var)?))).collect()
}

/// The step by which `stmts` always move `var`: `d` when `var` is `var + d` after them, `d` free
/// of what they assign and of memory. Wrapping of machine integers is ignored: a loop whose
/// variable wraps is then summarised wrongly, and its invariant fails, never the kernel's proof.
fn step(var: VarId, stmts: &[Stmt], assigned: &BTreeSet<VarId>) -> Option<Expr> {
    let value = value_after(footprint::var(var, stmts.first()?.span), stmts)?;
    let value = unwrapped(&value);
    let step = match &value.kind {
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => match (&lhs.kind, &rhs.kind) {
            (ExprKind::Var(found), _) if *found == var => (**rhs).clone(),
            (_, ExprKind::Var(found)) if *found == var => (**lhs).clone(),
            _ => return None,
        },
        ExprKind::Binary { op: BinaryOp::Sub, lhs, rhs } if matches!(lhs.kind, ExprKind::Var(found) if found == var) => {
            match &rhs.kind {
                ExprKind::Int(value) => footprint::int_of(-value, rhs.span),
                _ => Expr { kind: ExprKind::Unary { op: UnaryOp::Neg, operand: rhs.clone() }, ..(**rhs).clone() },
            }
        }
        _ => return None,
    };
    let unchanging = !assigned.iter().any(|&other| step.mentions(other)) && !footprint::reads_memory(&step);
    unchanging.then_some(step)
}

/// `value` with C's wrapping and overflow checks taken off, at its top and in the operands of
/// its sums and differences: `InRange(v)`, `v mod 2^N` and `((v - least) mod 2^N) + least` are
/// `v`.
fn unwrapped(value: &Expr) -> Expr {
    let power_of_two =
        |expr: &Expr| matches!(&expr.kind, ExprKind::Int(m) if m.bits() > 1 && m.magnitude().count_ones() == 1);
    match &value.kind {
        ExprKind::InRange { value, .. } => unwrapped(value),
        ExprKind::Binary { op: BinaryOp::Mod, lhs, rhs } if power_of_two(rhs) => unwrapped(lhs),
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => {
            if let (ExprKind::Binary { op: BinaryOp::Mod, lhs: shifted, rhs: modulus }, ExprKind::Int(least)) =
                (&lhs.kind, &rhs.kind)
            {
                if let ExprKind::Binary { op: BinaryOp::Sub, lhs: inner, rhs: by } = &shifted.kind {
                    if power_of_two(modulus) && matches!(&by.kind, ExprKind::Int(found) if found == least) {
                        return unwrapped(inner);
                    }
                }
            }
            footprint::binary(BinaryOp::Add, unwrapped(lhs), unwrapped(rhs))
        }
        ExprKind::Binary { op: BinaryOp::Sub, lhs, rhs } => {
            footprint::binary(BinaryOp::Sub, unwrapped(lhs), unwrapped(rhs))
        }
        _ => value.clone(),
    }
}

/// The expression over the state before `stmts` whose value is `expr`'s after them; `None` when
/// a loop in them or a variable given no value changes it.
fn value_after(expr: Expr, stmts: &[Stmt]) -> Option<Expr> {
    stmts.iter().rev().try_fold(expr, |expr, stmt| match &stmt.kind {
        StmtKind::Declare { var, init: Some(value) } | StmtKind::Assign { var, value } => {
            Some(if expr.mentions(*var) { expr.substitute(&HashMap::from([(*var, value.clone())])) } else { expr })
        }
        StmtKind::Declare { var, init: None } => (!expr.mentions(*var)).then_some(expr),
        StmtKind::If { cond, then_branch, else_branch } => {
            let then_value = value_after(expr.clone(), &then_branch.stmts)?;
            let else_value = match else_branch {
                Some(block) => value_after(expr, &block.stmts)?,
                None => expr,
            };
            if footprint::same(&then_value, &else_value) {
                Some(then_value)
            } else {
                let span = then_value.span;
                let ty = then_value.ty;
                let kind = ExprKind::Cond {
                    cond: Box::new(cond.clone()),
                    then_value: Box::new(then_value),
                    else_value: Box::new(else_value),
                };
                Some(Expr { kind, ty, span })
            }
        }
        StmtKind::While { body, .. } => {
            let mut assigned = BTreeSet::new();
            assigned_vars(&body.stmts, &mut assigned);
            (!assigned.iter().any(|&var| expr.mentions(var))).then_some(expr)
        }
        StmtKind::Block(block) => value_after(expr, &block.stmts),
        _ => Some(expr),
    })
}

/// The start values the statements just before a loop give its variables: the nearest plain
/// assignment or initialised declaration of each, among the assignments that end the block
/// before the loop, whose value reads no memory and names no variable a later one of them sets.
pub(super) fn starts(preceding: &[Stmt]) -> HashMap<VarId, Expr> {
    let mut starts = HashMap::new();
    let mut later = BTreeSet::new();
    for stmt in preceding.iter().rev() {
        let (StmtKind::Declare { var, init: Some(value) } | StmtKind::Assign { var, value }) = &stmt.kind else {
            break;
        };
        if !later.contains(var) && !footprint::reads_memory(value) && !later.iter().any(|&other| value.mentions(other))
        {
            starts.insert(*var, value.clone());
        }
        later.insert(*var);
    }
    starts
}
