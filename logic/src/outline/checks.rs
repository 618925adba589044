//! Where an expression is defined (`proofs/kernel.md`, E1): every array read in bounds (and,
//! where the thread's permissions frame it, permitted), every divisor non-zero, every pure
//! function's precondition met at its calls, and inside a recursive function every call on its
//! cycle decreasing the measure.
//!
//! Each requirement is closed over the guards and bound variables around the subexpression it
//! comes from: `c ? a[i] : 0` requires `a[i]` only where `c` holds, `&&`, `||` and `==>`
//! short-circuit, and a quantifier's body is required for every value of its range. A
//! subexpression under `\old` keeps its `\old` in the guards and operands of its requirements, so
//! each reads the heap it is evaluated in.

use super::Numbering;
use crate::resources::{negation, Conjunct, ConjunctKind};
use crate::{
    Amount, ArrayId, BinaryOp, Expr, ExprKind, Function, FunctionId, Kernel, MachineInt, ObligationId, Span, Type,
    UnaryOp, VarId,
};
use std::collections::HashMap;

/// One requirement of an expression, for one obligation.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The obligation's number in the [`super::Outline`].
    pub obligation: usize,
    pub requirement: Requirement,
    /// The variables bound around the subexpression (quantifiers, `\forall*`), outermost first.
    pub binders: Vec<VarId>,
    /// The conditions under which the subexpression is evaluated, outermost first; they may
    /// mention the binders.
    pub guards: Vec<Expr>,
}

/// What must hold where a [`Check`] applies.
#[derive(Clone, Debug, PartialEq)]
pub enum Requirement {
    /// `0 <= index < size of array`.
    InBounds { array: ArrayId, index: Expr },
    /// The thread holds some permission on `array[index]`.
    Readable { array: ArrayId, index: Expr },
    /// The divisor is not zero.
    NonZero(Expr),
    /// The value lies in the machine integer type's range.
    InRange { value: Expr, int: MachineInt },
    /// `0 <= index < length`: an index into a private array ([`ExprKind::PrivateIndex`]).
    BelowLength { index: Expr, length: u32 },
    /// The divisor of a permission amount `q \ d` is at least 1, so the amount lies in `(0, q]`.
    Positive(Expr),
    /// Precondition number `clause` of `function`, for these arguments.
    Precondition { function: FunctionId, args: Vec<Expr>, clause: usize },
    /// `measure`, the measure of `callee` ([`crate::recursion::measure`]) over its parameters, is
    /// at least 0 and less than the caller's own where the parameters are these arguments.
    Decreases { callee: FunctionId, args: Vec<Expr>, measure: Expr },
    /// Never holds: a call on a cycle with no measure to compare.
    Unsatisfiable,
}

/// How reads are checked where an expression is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Not at all: the state all threads see, in a global obligation.
    Unchecked,
    /// In bounds only: a written kernel or group contract, read when no thread runs (E11).
    Bounds,
    /// In bounds, and permitted: a read without permission fails this obligation (`access.read`
    /// in code, `frame` in contracts).
    Framed(ObligationId),
}

/// The termination check of a recursive function's own calls (E5).
#[derive(Clone, Debug)]
pub struct Termination {
    pub function: FunctionId,
    /// The functions on its cycle of calls, itself included, with their measures.
    pub cycle: Vec<(FunctionId, Option<Expr>)>,
    /// Why the caller has no measure to compare with, if it has none (yet: while its own measure
    /// is read).
    pub missing: Option<&'static str>,
}

/// Where an expression is evaluated.
pub struct Place<'a> {
    pub kernel: &'a Kernel,
    pub functions: &'a [Function],
    pub reads: Reads,
    pub termination: Option<&'a Termination>,
}

/// The guards and binders around a subexpression while walking.
#[derive(Default)]
struct Scope {
    binders: Vec<VarId>,
    guards: Vec<Expr>,
}

impl Scope {
    /// Numbers an obligation and records its check, closed over the scope.
    fn emit(
        &self,
        numbering: &mut Numbering,
        out: &mut Vec<Check>,
        id: ObligationId,
        span: Span,
        requirement: Requirement,
        message: String,
    ) {
        let obligation = match (id, &requirement) {
            (ObligationId::AccessBounds, Requirement::InBounds { index, .. }) => {
                numbering.add_bounds(span, message, index)
            }
            _ => numbering.add(id, span, message),
        };
        Check { obligation, requirement, binders: self.binders.clone(), guards: self.guards.clone() }
            .at_range_ends(out);
    }
}

impl Check {
    /// Records the check, its innermost bound variables eliminated where that is exact (E1). A
    /// bounds check `forall j :: lo <= j < hi ==> 0 <= e(j) < size`, whose index `e` is linear in
    /// `j` and whose only guard naming `j` is that range, holds exactly when `lo < hi` implies the
    /// index in bounds at both ends, `e(lo)` and `e(hi - 1)`: over an interval, a linear function
    /// takes its least and its greatest value at the ends. The solver then gets two checks without
    /// a quantifier, where the quantifier had no term to trigger on and sent z3's instantiation
    /// searching (a tree reduction's sums spent seconds there).
    fn at_range_ends(self, out: &mut Vec<Check>) {
        match self.ends() {
            Some(ends) => ends.into_iter().for_each(|end| end.at_range_ends(out)),
            None => out.push(self),
        }
    }

    fn ends(&self) -> Option<Vec<Check>> {
        let Requirement::InBounds { array, index } = &self.requirement else { return None };
        let (&var, outer) = self.binders.split_last()?;
        let mut naming = self.guards.iter().enumerate().filter(|(_, guard)| guard.mentions(var));
        let (position, range) = naming.next()?;
        if naming.next().is_some() || !is_linear_in(index, var) {
            return None;
        }
        let (first, last) = interval(range, var)?;
        let mut guards = self.guards.clone();
        guards[position] = binary(BinaryOp::Le, &first, &last, Type::Bool);
        // An index that does not name `var` is the same at both ends.
        let ends = if index.mentions(var) { vec![first, last] } else { vec![first] };
        Some(
            ends.into_iter()
                .map(|end| Check {
                    obligation: self.obligation,
                    requirement: Requirement::InBounds {
                        array: *array,
                        index: index.substitute(&HashMap::from([(var, end)])),
                    },
                    binders: outer.to_vec(),
                    guards: guards.clone(),
                })
                .collect(),
        )
    }
}

/// Whether `expr` is `a * var + b` for some `a` and `b` that do not mention `var`.
fn is_linear_in(expr: &Expr, var: VarId) -> bool {
    if !expr.mentions(var) {
        return true;
    }
    match &expr.kind {
        ExprKind::Var(found) => *found == var,
        ExprKind::Old(inner) | ExprKind::Unary { op: UnaryOp::Neg, operand: inner } => is_linear_in(inner, var),
        ExprKind::Binary { op: BinaryOp::Add | BinaryOp::Sub, lhs, rhs } => {
            is_linear_in(lhs, var) && is_linear_in(rhs, var)
        }
        ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } => {
            lhs.mentions(var) != rhs.mentions(var) && is_linear_in(lhs, var) && is_linear_in(rhs, var)
        }
        _ => false,
    }
}

/// The least and the greatest value of `var` in `range`, when `range` is a lower and an upper
/// bound of `var` (in either order, strict or not, `\old` or not) by expressions that read no
/// memory, so that their value is the same wherever the index they replace is evaluated.
fn interval(range: &Expr, var: VarId) -> Option<(Expr, Expr)> {
    let range = match &range.kind {
        ExprKind::Old(inner) => inner,
        _ => range,
    };
    let ExprKind::Binary { op: BinaryOp::And, lhs, rhs } = &range.kind else { return None };
    match (bound(lhs, var)?, bound(rhs, var)?) {
        (Bound::Least(first), Bound::Greatest(last)) | (Bound::Greatest(last), Bound::Least(first)) => {
            Some((first, last))
        }
        _ => None,
    }
}

enum Bound {
    Least(Expr),
    Greatest(Expr),
}

/// `var`'s bound in a comparison of `var` with an expression that reads no memory.
fn bound(comparison: &Expr, var: VarId) -> Option<Bound> {
    let ExprKind::Binary { op, lhs, rhs } = &comparison.kind else { return None };
    let is_var = |side: &Expr| matches!(side.kind, ExprKind::Var(found) if found == var);
    // `var op other`, or the same comparison written the other way round.
    let (op, other) = if is_var(lhs) {
        (*op, rhs)
    } else if is_var(rhs) {
        (mirrored(*op)?, lhs)
    } else {
        return None;
    };
    let reads = |expr: &Expr| {
        matches!(
            expr.kind,
            ExprKind::Read { .. } | ExprKind::Old(_) | ExprKind::Sum { .. } | ExprKind::Quantifier { .. }
        )
    };
    if other.mentions(var) || other.any(reads) {
        return None;
    }
    let one = Expr { kind: ExprKind::Int(1.into()), ty: Type::Int, span: other.span };
    Some(match op {
        BinaryOp::Ge => Bound::Least((**other).clone()),
        BinaryOp::Gt => Bound::Least(binary(BinaryOp::Add, other, &one, Type::Int)),
        BinaryOp::Le => Bound::Greatest((**other).clone()),
        BinaryOp::Lt => Bound::Greatest(binary(BinaryOp::Sub, other, &one, Type::Int)),
        _ => return None,
    })
}

/// The comparison with its operands exchanged: `a < b` is `b > a`.
fn mirrored(op: BinaryOp) -> Option<BinaryOp> {
    Some(match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        _ => return None,
    })
}

fn binary(op: BinaryOp, lhs: &Expr, rhs: &Expr, ty: Type) -> Expr {
    let kind = ExprKind::Binary { op, lhs: Box::new(lhs.clone()), rhs: Box::new(rhs.clone()) };
    Expr { kind, ty, span: lhs.span.to(rhs.span) }
}

impl Place<'_> {
    /// The checks of an expression evaluated under `binders` and `guards`, in evaluation order.
    pub fn checks(
        &self,
        expr: &Expr,
        binders: &[VarId],
        guards: &[Expr],
        numbering: &mut Numbering,
        out: &mut Vec<Check>,
    ) {
        let mut scope = Scope { binders: binders.to_vec(), guards: guards.to_vec() };
        self.walk(expr, false, &mut scope, numbering, out);
    }

    /// The checks of a conjunct, in order: each `\forall*` range (under its binder), each guard,
    /// and the fact or the atom's index, each under the ranges and guards before it; then an
    /// atom's location in bounds, and a divided amount positive (E1).
    pub fn conjunct_checks(&self, conjunct: &Conjunct, numbering: &mut Numbering, out: &mut Vec<Check>) {
        let mut binders = Vec::new();
        let mut guards = Vec::new();
        for binder in &conjunct.binders {
            binders.push(binder.var);
            self.checks(&binder.range, &binders, &guards, numbering, out);
            guards.push(binder.range.clone());
        }
        for guard in &conjunct.guards {
            self.checks(guard, &binders, &guards, numbering, out);
            guards.push(guard.clone());
        }
        let body = match &conjunct.kind {
            ConjunctKind::Fact(fact) => fact,
            ConjunctKind::Perm { index, .. } => index,
        };
        self.checks(body, &binders, &guards, numbering, out);
        if let ConjunctKind::Perm { array, index, amount } = &conjunct.kind {
            let scope = Scope { binders: binders.clone(), guards: guards.clone() };
            let name = &self.kernel.array(*array).name;
            let message = format!("this permission names a location that might lie outside `{name}`");
            if self.kernel.array(*array).bounded {
                let requirement = Requirement::InBounds { array: *array, index: index.clone() };
                scope.emit(numbering, out, ObligationId::AccessBounds, conjunct.span, requirement, message);
            }
            if let Amount::Divided { divisor, .. } = amount {
                self.checks(divisor, &binders, &guards, numbering, out);
                let message = "this permission amount might not be positive: its divisor might be less than 1".into();
                let requirement = Requirement::Positive(divisor.clone());
                scope.emit(numbering, out, ObligationId::AmountPositive, divisor.span, requirement, message);
            }
        }
    }

    fn walk(&self, expr: &Expr, old: bool, scope: &mut Scope, numbering: &mut Numbering, out: &mut Vec<Check>) {
        // An operand of a requirement or a guard, read in the heap its expression reads.
        let operand = |inner: &Expr| if old { wrap_old(inner) } else { inner.clone() };
        match &expr.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Builtin(_) | ExprKind::Var(_) | ExprKind::Result => {}
            ExprKind::Read { array, index } => {
                self.walk(index, old, scope, numbering, out);
                let name = &self.kernel.array(*array).name;
                // Sizes never change, so a read under `\old` has the same bounds (E1).
                if self.reads != Reads::Unchecked && self.kernel.array(*array).bounded {
                    scope.emit(
                        numbering,
                        out,
                        ObligationId::AccessBounds,
                        expr.span,
                        Requirement::InBounds { array: *array, index: operand(index) },
                        format!("the index of this read of `{name}` might lie outside the array"),
                    );
                }
                // What a read under `\old` may see is framed by the precondition, not by the
                // permissions held now.
                if let (Reads::Framed(id), false) = (self.reads, old) {
                    scope.emit(
                        numbering,
                        out,
                        id,
                        expr.span,
                        Requirement::Readable { array: *array, index: (**index).clone() },
                        format!("this read of `{name}` might not hold permission"),
                    );
                }
            }
            ExprKind::Unary { operand: inner, .. } => self.walk(inner, old, scope, numbering, out),
            ExprKind::Binary { op, lhs, rhs } => {
                self.walk(lhs, old, scope, numbering, out);
                // Short-circuit operators define their right operand only where it is evaluated.
                let guard = match op {
                    BinaryOp::And | BinaryOp::Implies => Some(operand(lhs)),
                    BinaryOp::Or => Some(negation(&operand(lhs))),
                    _ => None,
                };
                match guard {
                    Some(guard) => {
                        scope.guards.push(guard);
                        self.walk(rhs, old, scope, numbering, out);
                        scope.guards.pop();
                    }
                    None => self.walk(rhs, old, scope, numbering, out),
                }
                if matches!(op, BinaryOp::Div | BinaryOp::Rem | BinaryOp::Mod) {
                    let requirement = Requirement::NonZero(operand(rhs));
                    let message = "this divisor might be zero".to_string();
                    scope.emit(numbering, out, ObligationId::DivisionByZero, rhs.span, requirement, message);
                }
            }
            ExprKind::Cond { cond, then_value, else_value } => {
                self.walk(cond, old, scope, numbering, out);
                scope.guards.push(operand(cond));
                self.walk(then_value, old, scope, numbering, out);
                scope.guards.pop();
                scope.guards.push(negation(&operand(cond)));
                self.walk(else_value, old, scope, numbering, out);
                scope.guards.pop();
            }
            ExprKind::Call { function: callee, args } => {
                for arg in args {
                    self.walk(arg, old, scope, numbering, out);
                }
                let args: Vec<Expr> = args.iter().map(operand).collect();
                if let Some((requirement, message)) =
                    self.termination.and_then(|termination| termination.check(self.functions, *callee, &args))
                {
                    scope.emit(numbering, out, ObligationId::FunctionTermination, expr.span, requirement, message);
                }
                let function = &self.functions[callee.index()];
                for clause in 0..function.requires.len() {
                    scope.emit(
                        numbering,
                        out,
                        ObligationId::CallPre,
                        expr.span,
                        Requirement::Precondition { function: *callee, args: args.clone(), clause },
                        format!("the precondition of `{}` might not hold at this call", function.name),
                    );
                }
            }
            ExprKind::Quantifier { var, range, body, .. } => {
                scope.binders.push(*var);
                self.walk(range, old, scope, numbering, out);
                scope.guards.push(operand(range));
                self.walk(body, old, scope, numbering, out);
                scope.guards.pop();
                scope.binders.pop();
            }
            ExprKind::Sum { var, lower, upper, body } => {
                self.walk_sum(*var, lower, upper, body, old, scope, numbering, out)
            }
            ExprKind::Old(inner) => self.walk(inner, true, scope, numbering, out),
            ExprKind::InRange { value, int } => {
                self.walk(value, old, scope, numbering, out);
                let (least, greatest) = int.bounds();
                let message = format!(
                    "this operation might overflow `{}` (its result must lie in [{least}, {greatest}]): signed overflow is undefined behaviour",
                    int.name()
                );
                let requirement = Requirement::InRange { value: operand(value), int: *int };
                scope.emit(numbering, out, ObligationId::ArithOverflow, expr.span, requirement, message);
            }
            ExprKind::Ticket { counter, cell, .. } => {
                self.walk(cell, old, scope, numbering, out);
                // The increment reads and writes its cell atomically, needing no permission (no
                // other access to the counter runs alongside), but the cell must exist.
                if self.reads != Reads::Unchecked && self.kernel.array(*counter).bounded {
                    let name = &self.kernel.array(*counter).name;
                    scope.emit(
                        numbering,
                        out,
                        ObligationId::AccessBounds,
                        expr.span,
                        Requirement::InBounds { array: *counter, index: operand(cell) },
                        format!("the counter this increments might lie outside `{name}`"),
                    );
                }
            }
            ExprKind::PrivateIndex { index, length } => {
                self.walk(index, old, scope, numbering, out);
                let message = match length {
                    0 => "this access might be through a null pointer, which points to no cell".to_string(),
                    _ => format!(
                        "this index might lie outside the private array's {length} cells (it must lie in [0, {length})): an access outside an array is undefined behaviour"
                    ),
                };
                let requirement = Requirement::BelowLength { index: operand(index), length: *length };
                scope.emit(numbering, out, ObligationId::AccessBounds, expr.span, requirement, message);
            }
        }
    }
}

impl Place<'_> {
    /// The checks of a `\sum`: its bounds, and its body for every index in range. A function of its
    /// own, so that the frame of the recursive `walk` stays small.
    #[allow(clippy::too_many_arguments)]
    fn walk_sum(
        &self,
        var: VarId,
        lower: &Expr,
        upper: &Expr,
        body: &Expr,
        old: bool,
        scope: &mut Scope,
        numbering: &mut Numbering,
        out: &mut Vec<Check>,
    ) {
        self.walk(lower, old, scope, numbering, out);
        self.walk(upper, old, scope, numbering, out);
        let range = Expr::half_open_range(var, lower, upper);
        scope.binders.push(var);
        scope.guards.push(if old { wrap_old(&range) } else { range });
        self.walk(body, old, scope, numbering, out);
        scope.guards.pop();
        scope.binders.pop();
    }
}

impl Termination {
    /// For a call of `callee` on the cycle: what it must make smaller, and what a failure means.
    fn check(&self, functions: &[Function], callee: FunctionId, args: &[Expr]) -> Option<(Requirement, String)> {
        let (_, measure) = self.cycle.iter().find(|(member, _)| *member == callee)?;
        let (caller, called) = (&functions[self.function.index()], &functions[callee.index()]);
        let forever = if callee == self.function {
            format!("so `{}` might not terminate", caller.name)
        } else {
            format!("so `{}` and `{}` might call each other forever", caller.name, called.name)
        };
        let Some(measure) = measure else {
            let message = format!(
                "`{}` has no measure (no `decreases` clause and no int parameter), {forever}; write `decreases e;` with an int `e` that every call on the cycle makes smaller",
                called.name
            );
            return Some((Requirement::Unsatisfiable, message));
        };
        if let Some(reason) = self.missing {
            return Some((Requirement::Unsatisfiable, format!("{reason}, {forever}")));
        }
        // An inferred measure is a parameter, named as such; a written one is the clause.
        let measured = |function: &Function, measure: &Expr| match (&function.decreases, &measure.kind) {
            (None, ExprKind::Var(param)) => format!("`{}`", function.vars[param.index()].name),
            _ => "`decreases` measure".to_string(),
        };
        let message = if callee == self.function {
            format!(
                "this recursive call might not pass a smaller non-negative {}, {forever}",
                measured(called, measure)
            )
        } else {
            let own = self.cycle.iter().find(|(member, _)| *member == self.function).and_then(|(_, own)| own.as_ref());
            let own = own.map_or_else(|| "none".to_string(), |own| measured(caller, own));
            format!(
                "this call of `{}` might not make the measure smaller: `{}`'s ({}) must be at least 0 and less than `{}`'s ({own}), {forever}",
                called.name,
                called.name,
                measured(called, measure),
                caller.name
            )
        };
        Some((Requirement::Decreases { callee, args: args.to_vec(), measure: measure.clone() }, message))
    }
}

fn wrap_old(expr: &Expr) -> Expr {
    Expr { kind: ExprKind::Old(Box::new(expr.clone())), ty: expr.ty, span: expr.span }
}
