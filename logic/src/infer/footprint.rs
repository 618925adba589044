//! Footprints: the accesses a thread may make from a point of its code to the next barrier, as
//! guarded and quantified cells over the state at that point.

use crate::{ArrayId, BinaryOp, Builtin, Expr, ExprKind, Span, Type, UnaryOp, VarId};
use num_bigint::BigInt;
use std::collections::HashMap;

/// One access, or a set of them: `(\forall* binders; guards; a[index])`, read or written.
#[derive(Clone, Debug)]
pub(super) struct Access {
    pub array: ArrayId,
    pub write: bool,
    /// Variables over which the access ranges (an iteration count, a quantifier's variable, a
    /// cell of the whole array), outermost first.
    pub binders: Vec<VarId>,
    /// Conditions under which the access happens: each a conjunct, outermost first. Dropping one
    /// gives more accesses, never fewer.
    pub guards: Vec<Expr>,
    pub index: Expr,
    /// The access in the source: a read's expression or a write's statement.
    pub span: Span,
}

impl Access {
    /// Whether the access names `var` anywhere.
    fn mentions(&self, var: VarId) -> bool {
        self.index.mentions(var) || self.guards.iter().any(|guard| guard.mentions(var))
    }

    /// Whether this is every cell of its array (under guards that do not say which).
    pub fn is_whole(&self) -> bool {
        matches!(self.index.kind, ExprKind::Var(var) if self.binders == [var])
            && self.guards.iter().all(|guard| !guard.mentions(self.binders[0]) || is_range_of(guard, self.binders[0]))
    }
}

/// Whether `guard` is the `0 <= j && j < size` that [`Footprint::whole`] gives a whole array.
fn is_range_of(guard: &Expr, var: VarId) -> bool {
    match &guard.kind {
        ExprKind::Binary { op: BinaryOp::And, lhs, rhs } => {
            matches!(&lhs.kind, ExprKind::Binary { op: BinaryOp::Le, lhs: zero, rhs: bound }
                if matches!(&zero.kind, ExprKind::Int(value) if *value == BigInt::from(0))
                    && matches!(bound.kind, ExprKind::Var(found) if found == var))
                && matches!(&rhs.kind, ExprKind::Binary { op: BinaryOp::Lt, lhs: bound, rhs: size }
                    if matches!(bound.kind, ExprKind::Var(found) if found == var) && !size.mentions(var))
        }
        _ => false,
    }
}

/// The accesses from a point to the next barriers, and whether some path from it reaches the
/// end of the code under analysis with no barrier (`open`): what follows that code then belongs
/// to it too.
#[derive(Clone, Debug, Default)]
pub(super) struct Footprint {
    pub accesses: Vec<Access>,
    pub open: bool,
}

impl Footprint {
    /// No access, and open: the start of a footprint whose continuation is not known yet.
    pub fn open() -> Footprint {
        Footprint { accesses: Vec::new(), open: true }
    }

    pub fn union(mut self, other: Footprint) -> Footprint {
        self.accesses.extend(other.accesses);
        self.open |= other.open;
        self
    }

    /// Whether some access names `var`.
    pub fn mentions(&self, var: VarId) -> bool {
        self.accesses.iter().any(|access| access.mentions(var))
    }

    /// The accesses where `cond` holds: a guard each, outermost.
    pub fn guarded(mut self, cond: &Expr) -> Footprint {
        if !reads_memory(cond) {
            for access in &mut self.accesses {
                access.guards.insert(0, cond.clone());
            }
        }
        self
    }

    /// The footprint before `var := value`, given the one after it: `value` in place of `var`.
    /// A value that reads memory is not known before the assignment: `var` is forgotten. So is
    /// it in an index or guard that the value would make larger than [`LARGEST`]: substitution
    /// along a chain of assignments can grow expressions exponentially (`x = x * x + x`), and
    /// forgetting claims more, never less.
    pub fn assign(
        self,
        var: VarId,
        value: &Expr,
        fresh: &mut dyn FnMut() -> VarId,
        size: &dyn Fn(ArrayId) -> Option<Expr>,
    ) -> Footprint {
        if reads_memory(value) {
            return self.forget(var, fresh, size);
        }
        let values = HashMap::from([(var, value.clone())]);
        let mut accesses = Vec::new();
        for mut access in self.accesses {
            if access.mentions(var) {
                let index = access.index.substitute(&values);
                if node_count(&index) > LARGEST {
                    access = whole(&access, fresh(), size(access.array));
                } else {
                    access.index = index;
                }
                access.guards = access
                    .guards
                    .iter()
                    .map(|guard| guard.substitute(&values))
                    .filter(|guard| node_count(guard) <= LARGEST)
                    .collect();
            }
            accesses.push(access);
        }
        Footprint { accesses, open: self.open }
    }

    /// The footprint before `var` takes a value nothing tells: the guards that name it are
    /// dropped, and an access whose index names it may be any cell of its array.
    pub fn forget(
        self,
        var: VarId,
        fresh: &mut dyn FnMut() -> VarId,
        size: &dyn Fn(ArrayId) -> Option<Expr>,
    ) -> Footprint {
        self.map(|access| {
            if access.index.mentions(var) {
                *access = whole(access, fresh(), size(access.array));
            }
            access.guards.retain(|guard| !guard.mentions(var));
        })
    }

    fn map(mut self, mut change: impl FnMut(&mut Access)) -> Footprint {
        for access in &mut self.accesses {
            change(access);
        }
        self
    }
}

/// Every cell of the access's array, under the guards of `access` that do not speak of its
/// binders, with `cell` as the new binder, in `[0, size)` when the array is bounded.
pub(super) fn whole(access: &Access, cell: VarId, size: Option<Expr>) -> Access {
    let span = access.span;
    let mut guards: Vec<Expr> = access
        .guards
        .iter()
        .filter(|guard| !access.binders.iter().any(|&binder| guard.mentions(binder)))
        .cloned()
        .collect();
    if let Some(size) = size {
        let at = var(cell, span);
        let low = binary(BinaryOp::Le, int(0, span), at.clone());
        guards.push(binary(BinaryOp::And, low, binary(BinaryOp::Lt, at, size)));
    }
    Access { array: access.array, write: access.write, binders: vec![cell], guards, index: var(cell, span), span }
}

/// The most nodes an inferred index or guard may have: past it, what an assignment would
/// substitute is forgotten instead ([`Footprint::assign`]).
pub(super) const LARGEST: usize = 200;

/// The number of nodes of an expression.
pub(super) fn node_count(expr: &Expr) -> usize {
    let mut count = 0;
    let mut work = vec![expr];
    while let Some(next) = work.pop() {
        count += 1;
        next.children(&mut work);
    }
    count
}

/// Whether the expression reads memory.
pub(super) fn reads_memory(expr: &Expr) -> bool {
    expr.any(|inner| matches!(inner.kind, ExprKind::Read { .. }))
}

pub(super) fn var(var: VarId, span: Span) -> Expr {
    Expr { kind: ExprKind::Var(var), ty: Type::Int, span }
}

pub(super) fn int(value: i64, span: Span) -> Expr {
    int_of(BigInt::from(value), span)
}

pub(super) fn int_of(value: BigInt, span: Span) -> Expr {
    Expr { kind: ExprKind::Int(value), ty: Type::Int, span }
}

/// `lhs op rhs`, typed by the operator, spanning both.
pub(super) fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let ty = match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem | BinaryOp::Mod => Type::Int,
        _ => Type::Bool,
    };
    let span = lhs.span.to(rhs.span);
    Expr { kind: ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span }
}

pub(super) fn not(expr: &Expr) -> Expr {
    match &expr.kind {
        ExprKind::Unary { op: UnaryOp::Not, operand } => (**operand).clone(),
        _ => crate::resources::negation(expr),
    }
}

/// The conjunction of `parts`, `true` when there are none.
pub(super) fn all(parts: Vec<Expr>, span: Span) -> Expr {
    parts.into_iter().reduce(|lhs, rhs| binary(BinaryOp::And, lhs, rhs)).unwrap_or(Expr {
        kind: ExprKind::Bool(true),
        ty: Type::Bool,
        span,
    })
}

/// Whether two expressions are the same but for their spans.
pub(super) fn same(lhs: &Expr, rhs: &Expr) -> bool {
    let pairs = |a: &[&Expr], b: &[&Expr]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y));
    match (&lhs.kind, &rhs.kind) {
        (ExprKind::Int(a), ExprKind::Int(b)) => a == b,
        (ExprKind::Bool(a), ExprKind::Bool(b)) => a == b,
        (ExprKind::Builtin(a), ExprKind::Builtin(b)) => a == b,
        (ExprKind::Var(a), ExprKind::Var(b)) => a == b,
        (ExprKind::Result, ExprKind::Result) => true,
        (ExprKind::Read { array: a, index: i }, ExprKind::Read { array: b, index: j }) => a == b && same(i, j),
        (ExprKind::Unary { op: a, operand: x }, ExprKind::Unary { op: b, operand: y }) => a == b && same(x, y),
        (ExprKind::Binary { op: a, lhs: w, rhs: x }, ExprKind::Binary { op: b, lhs: y, rhs: z }) => {
            a == b && same(w, y) && same(x, z)
        }
        (
            ExprKind::Cond { cond: a, then_value: b, else_value: c },
            ExprKind::Cond { cond: x, then_value: y, else_value: z },
        ) => pairs(&[a, b, c], &[x, y, z]),
        (ExprKind::Call { function: f, args: a }, ExprKind::Call { function: g, args: b }) => {
            f == g && pairs(&a.iter().collect::<Vec<_>>(), &b.iter().collect::<Vec<_>>())
        }
        (ExprKind::InRange { value: a, int: m }, ExprKind::InRange { value: b, int: n }) => m == n && same(a, b),
        (ExprKind::PrivateIndex { index: a, length: m }, ExprKind::PrivateIndex { index: b, length: n }) => {
            m == n && same(a, b)
        }
        (ExprKind::Old(a), ExprKind::Old(b)) => same(a, b),
        // Quantifiers and sums bind variables; two are alike only when they are equal.
        _ => lhs == rhs,
    }
}

/// The expression with C's wrapping of 32- and 64-bit results taken off (`InRange(v)`,
/// `v mod 2^N`, `((v - least) mod 2^N) + least` are `v`) and its constant operands folded
/// (`0 + x` is `x`): what a contract states more simply. It may differ from `expr` where C's
/// arithmetic wraps; the checker then finds that the contract does not cover the access.
pub(super) fn simplified(expr: &Expr) -> Expr {
    simplify(expr, Wraps::TakenOff)
}

/// The expression with its constant operands folded and its `InRange` nodes (which only mark an
/// overflow check) taken off, but C's wrapping kept: what holds where the code's arithmetic
/// wraps, as GPUVerify's bit-vectors do.
pub(super) fn folded(expr: &Expr) -> Expr {
    simplify(expr, Wraps::Kept)
}

/// The expression simplified as [`simplified`], but with the wrapping of unsigned results and
/// conversions kept (`(unsigned) start < (unsigned) end` is `start % 2^32 < end % 2^32`, which
/// differs from `start < end` for a negative `start`): the conditions of a contract's
/// permissions, where a signed operation's wrapping, which needs an overflow, is rare, and
/// keeping it would burden the solver with every `int` operation of the condition.
pub(super) fn with_unsigned_wraps(expr: &Expr) -> Expr {
    simplify(expr, Wraps::UnsignedKept)
}

/// Which of C's wraps [`simplify`] takes off.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wraps {
    TakenOff,
    UnsignedKept,
    Kept,
}

fn simplify(expr: &Expr, wraps: Wraps) -> Expr {
    let simplified = |expr: &Expr| simplify(expr, wraps);
    let modulus_of_wrap = |modulus: &Expr| matches!(&modulus.kind, ExprKind::Int(m) if *m == BigInt::from(1u64 << 32) || *m == BigInt::from(1u128 << 64));
    let unsigned_wrap = |modulus: &Expr| wraps == Wraps::TakenOff && modulus_of_wrap(modulus);
    let signed_wrap = |modulus: &Expr| wraps != Wraps::Kept && modulus_of_wrap(modulus);
    let zero = |expr: &Expr| matches!(&expr.kind, ExprKind::Int(value) if *value == BigInt::from(0));
    let one = |expr: &Expr| matches!(&expr.kind, ExprKind::Int(value) if *value == BigInt::from(1));
    match &expr.kind {
        ExprKind::InRange { value, .. } => simplified(value),
        ExprKind::Binary { op: BinaryOp::Mod, lhs, rhs } if unsigned_wrap(rhs) => simplified(lhs),
        ExprKind::Binary { op, lhs, rhs } => {
            if let (
                BinaryOp::Add,
                ExprKind::Binary { op: BinaryOp::Mod, lhs: shifted, rhs: modulus },
                ExprKind::Int(least),
            ) = (op, &lhs.kind, &rhs.kind)
            {
                if let ExprKind::Binary { op: BinaryOp::Sub, lhs: inner, rhs: by } = &shifted.kind {
                    if signed_wrap(modulus) && matches!(&by.kind, ExprKind::Int(found) if found == least) {
                        return simplified(inner);
                    }
                }
            }
            let (lhs, rhs) = (simplified(lhs), simplified(rhs));
            match (op, &lhs.kind, &rhs.kind) {
                (BinaryOp::Add, ExprKind::Int(a), ExprKind::Int(b)) => int_of(a + b, expr.span),
                (BinaryOp::Sub, ExprKind::Int(a), ExprKind::Int(b)) => int_of(a - b, expr.span),
                (BinaryOp::Mul, ExprKind::Int(a), ExprKind::Int(b)) => int_of(a * b, expr.span),
                (BinaryOp::Add, _, _) if zero(&lhs) => rhs,
                (BinaryOp::Add | BinaryOp::Sub, _, _) if zero(&rhs) => lhs,
                (BinaryOp::Mul, _, _) if one(&lhs) => rhs,
                (BinaryOp::Mul | BinaryOp::Div, _, _) if one(&rhs) => lhs,
                (BinaryOp::Mul, _, _) if zero(&lhs) || zero(&rhs) => int(0, expr.span),
                _ => {
                    Expr { kind: ExprKind::Binary { op: *op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ..expr.clone() }
                }
            }
        }
        ExprKind::Unary { op, operand } => {
            Expr { kind: ExprKind::Unary { op: *op, operand: Box::new(simplified(operand)) }, ..expr.clone() }
        }
        ExprKind::Cond { cond, then_value, else_value } => Expr {
            kind: ExprKind::Cond {
                cond: Box::new(simplified(cond)),
                then_value: Box::new(simplified(then_value)),
                else_value: Box::new(simplified(else_value)),
            },
            ..expr.clone()
        },
        _ => expr.clone(),
    }
}

/// `expr` with each builtin that `value` gives a value replaced by it, through reads, operators,
/// conditionals and `\old`; under a quantifier or a call a builtin is left as it is.
pub(super) fn with_builtins(expr: &Expr, value: &dyn Fn(Builtin) -> Option<Expr>) -> Expr {
    if !expr.any(|inner| matches!(inner.kind, ExprKind::Builtin(_))) {
        return expr.clone();
    }
    let recurse = |inner: &Expr| Box::new(with_builtins(inner, value));
    let kind = match &expr.kind {
        ExprKind::Builtin(builtin) => match value(*builtin) {
            Some(replaced) => return Expr { span: expr.span, ..replaced },
            None => ExprKind::Builtin(*builtin),
        },
        ExprKind::Read { array, index } => ExprKind::Read { array: *array, index: recurse(index) },
        ExprKind::Unary { op, operand } => ExprKind::Unary { op: *op, operand: recurse(operand) },
        ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary { op: *op, lhs: recurse(lhs), rhs: recurse(rhs) },
        ExprKind::Cond { cond, then_value, else_value } => {
            ExprKind::Cond { cond: recurse(cond), then_value: recurse(then_value), else_value: recurse(else_value) }
        }
        ExprKind::InRange { value: inner, int } => ExprKind::InRange { value: recurse(inner), int: *int },
        // The ids and sizes are the same at the launch.
        ExprKind::Old(inner) => ExprKind::Old(recurse(inner)),
        _ => return expr.clone(),
    };
    Expr { kind, ..expr.clone() }
}

/// `expr` as `coefficient * var + rest`, when it is linear in `var` by its form (sums,
/// differences, negations and products by factors free of `var`).
pub(super) fn linear(expr: &Expr, var: VarId) -> Option<(Expr, Expr)> {
    if !expr.mentions(var) {
        return Some((int(0, expr.span), expr.clone()));
    }
    match &expr.kind {
        ExprKind::Var(found) if *found == var => Some((int(1, expr.span), int(0, expr.span))),
        ExprKind::Binary { op: op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs } => {
            let (a, b) = linear(lhs, var)?;
            let (c, d) = linear(rhs, var)?;
            Some((binary(*op, a, c), binary(*op, b, d)))
        }
        ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } if !lhs.mentions(var) => {
            let (c, d) = linear(rhs, var)?;
            Some((binary(BinaryOp::Mul, (**lhs).clone(), c), binary(BinaryOp::Mul, (**lhs).clone(), d)))
        }
        ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } if !rhs.mentions(var) => {
            let (a, b) = linear(lhs, var)?;
            Some((binary(BinaryOp::Mul, a, (**rhs).clone()), binary(BinaryOp::Mul, b, (**rhs).clone())))
        }
        _ => None,
    }
}

/// `expr` of the thread of the same group whose local id is the variable `other`: `None` where a
/// thread-specific value is left that no replacement makes the other thread's (an id along
/// another axis, an increment's value).
pub(super) fn as_thread(expr: &Expr, other: VarId) -> Option<Expr> {
    let span = expr.span;
    let lid = var(other, span);
    let builtin = |builtin| Expr { kind: ExprKind::Builtin(builtin), ty: Type::Int, span };
    let first = binary(BinaryOp::Mul, builtin(Builtin::Gid), builtin(Builtin::Gsize));
    let tid = binary(BinaryOp::Add, first, lid.clone());
    let replaced = with_builtins(expr, &|builtin| match builtin {
        Builtin::Lid | Builtin::LocalId(crate::Axis::X) => Some(lid.clone()),
        Builtin::Tid => Some(tid.clone()),
        _ => None,
    });
    let thread_specific = |inner: &Expr| match inner.kind {
        ExprKind::Builtin(builtin) => builtin.is_thread_specific(),
        ExprKind::Ticket { .. } => true,
        _ => false,
    };
    (!replaced.any(thread_specific)).then_some(replaced)
}

/// The `k` of a conjunct `other == k` (or `k == other`) of `guard`.
pub(super) fn named_thread(guard: &Expr, other: VarId) -> Option<Expr> {
    match &guard.kind {
        ExprKind::Binary { op: BinaryOp::And, lhs, rhs } => {
            named_thread(lhs, other).or_else(|| named_thread(rhs, other))
        }
        ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs } => match (&lhs.kind, &rhs.kind) {
            (ExprKind::Var(found), _) if *found == other && !rhs.mentions(other) => Some((**rhs).clone()),
            (_, ExprKind::Var(found)) if *found == other && !lhs.mentions(other) => Some((**lhs).clone()),
            _ => None,
        },
        _ => None,
    }
}
