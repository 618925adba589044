//! Which thread names a location: the inverse of a permission's or a fact's index, found
//! symbolically for the indices kernels write (`proofs/kernel.md`, E8), so that the resource and
//! barrier checks name that thread outright instead of asking the solver to find it.

use super::expr::{self, Context};
use super::names;
use crate::ivl::{BinaryOp, Expr};
use lockstep_logic::{self as logic, Axis, Builtin, ExprKind, VarId, VarKind};
use num_bigint::BigInt;
use num_traits::Signed;

/// The thread that names a location.
pub(super) enum Inverse {
    /// The inverting thread's `tid`, as an expression of the location.
    OfTid(Expr),
    OfLid(Expr),
}

impl Inverse {
    /// The inverting thread's `lid` in the group `gid`.
    pub(super) fn lid(self, gid: &Expr) -> Expr {
        match self {
            Inverse::OfTid(tid) => {
                let block = Expr::binary(BinaryOp::Mul, gid.clone(), Expr::var(names::GSIZE));
                Expr::binary(BinaryOp::Sub, tid, block)
            }
            Inverse::OfLid(lid) => lid,
        }
    }
}

/// The inverse of an index that is linear in `tid` or `lid` with coefficient 1 or -1: `tid`, `lid`,
/// and `e + c`, `c + e`, `e - c`, `c - e` of such an `e`, where `c` is the same in all threads of a
/// group (built from literals, `gid`, `gsize`, `tcount`, kernel parameters and the private variables
/// `shared` admits, read in `context`): the thread id that names `location`, which is unique.
pub(super) fn symbolic_inverse(
    index: &logic::Expr,
    location: &Expr,
    context: &Context,
    shared: &dyn Fn(VarId) -> bool,
) -> Option<Inverse> {
    let offset = |expr: &logic::Expr| offset(expr, context, shared);
    let invert = |inner: &logic::Expr, location: Expr| symbolic_inverse(inner, &location, context, shared);
    if context.kernel.dimensions > 1 {
        if let Some(lid) = mixed_radix(index, location, context, shared) {
            return Some(Inverse::OfLid(lid));
        }
    }
    match &index.kind {
        ExprKind::Builtin(Builtin::Tid) => Some(Inverse::OfTid(location.clone())),
        ExprKind::Builtin(Builtin::Lid) => Some(Inverse::OfLid(location.clone())),
        ExprKind::Binary { op: logic::BinaryOp::Add, lhs, rhs } => match (offset(lhs), offset(rhs)) {
            (_, Some(c)) => invert(lhs, Expr::binary(BinaryOp::Sub, location.clone(), c)),
            (Some(c), None) => invert(rhs, Expr::binary(BinaryOp::Sub, location.clone(), c)),
            (None, None) => None,
        },
        ExprKind::Binary { op: logic::BinaryOp::Sub, lhs, rhs } => match (offset(lhs), offset(rhs)) {
            (_, Some(c)) => invert(lhs, Expr::binary(BinaryOp::Add, location.clone(), c)),
            (Some(c), None) => invert(rhs, Expr::binary(BinaryOp::Sub, c, location.clone())),
            (None, None) => None,
        },
        // `k * e` names `location` only at `e = location div k`; where `k` does not divide it, no
        // thread names it, which the callers see when they compare the index there with `location`.
        ExprKind::Binary { op: logic::BinaryOp::Mul, lhs, rhs } => {
            let factor = |expr: &logic::Expr| match &expr.kind {
                ExprKind::Int(k) => i64::try_from(k).ok().filter(|k| *k > 0),
                _ => None,
            };
            let (k, inner) = match (factor(lhs), factor(rhs)) {
                (Some(k), _) => (k, rhs),
                (None, Some(k)) => (k, lhs),
                (None, None) => return None,
            };
            invert(inner, Expr::binary(BinaryOp::Div, location.clone(), Expr::int(k)))
        }
        ExprKind::Binary { op: logic::BinaryOp::Mod | logic::BinaryOp::Rem, lhs, rhs } => {
            let modulus = offset(rhs)?;
            let lid = invert(lhs, location.clone())?.lid(&context.thread[1]);
            Some(Inverse::OfLid(expr::modulo(lid, modulus)))
        }
        _ => None,
    }
}

/// The inverse of an index of a launch of several dimensions that is a uniform `c` plus literal
/// multiples of the axes' ids (`k_1 * lid_a + k_2 * lid_b ...`), every axis of the kernel once,
/// every size pinned to a literal, and the coefficients a mixed radix: taken from the largest, each
/// exceeds what the smaller ones can add up to (`sum k_j * (gsize_j - 1) < k_i`), as in a tile's
/// padded row `lid_y * 17 + lid_x`. Then the ids are the digits of `location - c`, largest
/// coefficient first, and they name at most one thread: `lid = lid_x + gsize_x * lid_y + ...`
/// (`proofs/kernel.md`, E17).
fn mixed_radix(
    index: &logic::Expr,
    location: &Expr,
    context: &Context,
    shared: &dyn Fn(VarId) -> bool,
) -> Option<Expr> {
    let kernel = context.kernel;
    let mut coefficients: [BigInt; 3] = Default::default();
    let mut constant = Vec::new();
    axis_terms(index, &BigInt::from(1), context, shared, &mut coefficients, &mut constant)?;
    let axes = &Axis::ALL[..kernel.dimensions];
    let sizes: Vec<BigInt> = axes
        .iter()
        .map(|&axis| kernel.pinned_size(Builtin::GroupSize(axis)).filter(|size| *size >= BigInt::from(1)))
        .collect::<Option<_>>()?;
    if axes.iter().any(|&axis| coefficients[axis as usize] <= BigInt::from(0)) {
        return None;
    }
    let mut order: Vec<Axis> = axes.to_vec();
    order.sort_by(|a, b| coefficients[*b as usize].cmp(&coefficients[*a as usize]));
    for (position, &axis) in order.iter().enumerate() {
        let below: BigInt = order[position + 1..]
            .iter()
            .map(|&lower| &coefficients[lower as usize] * (&sizes[lower as usize] - 1))
            .sum();
        if below >= coefficients[axis as usize] {
            return None;
        }
    }
    let mut rest = constant.into_iter().fold(location.clone(), |rest, (positive, term)| {
        Expr::binary(if positive { BinaryOp::Sub } else { BinaryOp::Add }, rest, term)
    });
    let mut lid = Expr::int(0);
    for (position, &axis) in order.iter().enumerate() {
        let coefficient = Expr::Int(coefficients[axis as usize].clone());
        let digit = expr::euclidean_division(rest.clone(), coefficient.clone());
        if position + 1 < order.len() {
            rest = expr::modulo(rest, coefficient);
        }
        let stride: BigInt = sizes[..axis as usize].iter().product();
        lid = Expr::binary(BinaryOp::Add, lid, Expr::binary(BinaryOp::Mul, Expr::Int(stride), digit));
    }
    Some(lid)
}

/// Adds `scale * expr` to `coefficients` (of `lid_x`, `lid_y`, `lid_z`) and, with its sign, to
/// the uniform `constant` part; `None` where `expr` is not such a sum.
fn axis_terms(
    expr: &logic::Expr,
    scale: &BigInt,
    context: &Context,
    shared: &dyn Fn(VarId) -> bool,
    coefficients: &mut [BigInt; 3],
    constant: &mut Vec<(bool, Expr)>,
) -> Option<()> {
    if let Some(uniform) = offset(expr, context, shared) {
        // The sign goes with the term, the magnitude into it: `-2 * u` is `(false, 2 * u)`.
        let magnitude = scale.abs();
        let term = if magnitude == BigInt::from(1) {
            uniform
        } else {
            Expr::binary(BinaryOp::Mul, Expr::Int(magnitude), uniform)
        };
        constant.push((*scale > BigInt::from(0), term));
        return Some(());
    }
    match &expr.kind {
        ExprKind::Builtin(Builtin::LocalId(axis)) => {
            coefficients[*axis as usize] += scale;
            Some(())
        }
        ExprKind::Binary { op: op @ (logic::BinaryOp::Add | logic::BinaryOp::Sub), lhs, rhs } => {
            axis_terms(lhs, scale, context, shared, coefficients, constant)?;
            let scale = if *op == logic::BinaryOp::Add { scale.clone() } else { -scale };
            axis_terms(rhs, &scale, context, shared, coefficients, constant)
        }
        ExprKind::Binary { op: logic::BinaryOp::Mul, lhs, rhs } => match (&lhs.kind, &rhs.kind) {
            (ExprKind::Int(k), _) => axis_terms(rhs, &(scale * k), context, shared, coefficients, constant),
            (_, ExprKind::Int(k)) => axis_terms(lhs, &(scale * k), context, shared, coefficients, constant),
            _ => None,
        },
        _ => None,
    }
}

/// The one thread whose guards can hold: a guard `e == c` (or `c == e`, or such a conjunct of a
/// guard), where `c` is the same in all threads and `e` has a [`symbolic_inverse`].
pub(super) fn pinned_thread(guards: &[logic::Expr], context: &Context) -> Option<Inverse> {
    let mut work: Vec<&logic::Expr> = guards.iter().collect();
    while let Some(guard) = work.pop() {
        let ExprKind::Binary { op, lhs, rhs } = &guard.kind else { continue };
        match op {
            logic::BinaryOp::And => work.extend([&**lhs, &**rhs]),
            logic::BinaryOp::Eq => {
                for (thread_side, value) in [(lhs, rhs), (rhs, lhs)] {
                    let inverse = offset(value, context, &|_| false)
                        .and_then(|value| symbolic_inverse(thread_side, &value, context, &|_| false));
                    if inverse.is_some() {
                        return inverse;
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// An expression that is the same in all threads of a group ([`uniform`]), read in `context`.
fn offset(expr: &logic::Expr, context: &Context, shared: &dyn Fn(VarId) -> bool) -> Option<Expr> {
    uniform(context.kernel, expr, shared).then(|| context.translate(expr))
}

/// Whether an expression has one value for all threads of a group and needs no state: literals,
/// `gid`, `gsize`, `tcount`, kernel parameters, the private variables `shared` admits, and
/// arithmetic on them.
fn uniform(kernel: &logic::Kernel, expr: &logic::Expr, shared: &dyn Fn(VarId) -> bool) -> bool {
    match &expr.kind {
        ExprKind::Int(_) => true,
        ExprKind::Builtin(builtin) => !builtin.is_thread_specific(),
        ExprKind::Var(var) => kernel.var(*var).kind == VarKind::KernelParam || shared(*var),
        ExprKind::Unary { operand, .. } => uniform(kernel, operand, shared),
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(op, logic::BinaryOp::Add | logic::BinaryOp::Sub | logic::BinaryOp::Mul)
                && uniform(kernel, lhs, shared)
                && uniform(kernel, rhs, shared)
        }
        _ => false,
    }
}
