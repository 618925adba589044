//! Which thread names a location: the inverse of a permission's or a fact's index, found
//! symbolically for the indices kernels write (`proofs/kernel.md`, E8), so that the resource and
//! barrier checks name that thread outright instead of asking the solver to find it.

use super::expr::{self, Context};
use super::names;
use crate::ivl::{BinaryOp, Expr};
use lockstep_logic::{self as logic, Builtin, ExprKind, VarId, VarKind};

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
