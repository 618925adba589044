//! Kernel expressions to IVL expressions, and the requirements of the outline
//! ([`lockstep_logic::outline::Check`]) to the IVL conditions that discharge them.
//!
//! Which requirements an expression has, and under which guards and bound variables, the outline
//! decides (`proofs/kernel.md`, E1); here each is translated in the state of the procedure that
//! checks it: a read permitted is `M_a[i] > 0` in the masks of that state, a call's precondition
//! is the callee's clause over the arguments, and the whole is closed as
//! `forall binders :: guard1 ==> guard2 ==> condition`.

pub use super::arith::{euclidean_division, groups, in_bounds, modulo};
use super::names;
use super::sums::Sums;
use crate::ivl::{BinaryOp, Binding, Expr, Quantifier, Type as IvlType};
use lockstep_logic::outline::{Check, Requirement};
use lockstep_logic::{self as logic, Amount, ArrayId, Builtin, ExprKind, VarId};
use num_bigint::BigInt;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Where the values of names come from while translating.
#[derive(Clone)]
pub struct Context<'k> {
    pub kernel: &'k logic::Kernel,
    pub functions: &'k [logic::Function],
    /// The thread's ids: `tid`, `gid`, `lid`.
    pub thread: [Expr; 3],
    /// Private variables (and bound variables) to the IVL expression of their value.
    pub vars: HashMap<VarId, Expr>,
    /// The name of each array's heap and mask.
    pub heaps: Vec<String>,
    pub masks: Vec<String>,
    /// The heaps `\old(...)` reads.
    pub old_heaps: Vec<String>,
    /// Inside a pure function: its variables are named from its own table.
    pub function: Option<&'k logic::Function>,
    /// Inside a recursive function: the value of its own measure, which the calls on its cycle
    /// must make smaller (`proofs/kernel.md`, E5).
    pub measure: Option<Expr>,
    /// The sum functions met so far, shared by every context of the kernel (E18).
    pub sums: Rc<RefCell<Sums>>,
}

impl<'k> Context<'k> {
    pub fn builtin(&self, builtin: Builtin) -> Expr {
        match builtin {
            Builtin::Tid => self.thread[0].clone(),
            Builtin::Gid => self.thread[1].clone(),
            Builtin::Lid => self.thread[2].clone(),
            Builtin::Tcount => super::axes::thread_count(self.kernel),
            Builtin::Gsize => super::axes::linear_size(self.kernel, false),
            Builtin::LocalId(axis) => super::axes::coordinate(self.kernel, self.thread[2].clone(), axis, false),
            Builtin::GroupId(axis) => super::axes::coordinate(self.kernel, self.thread[1].clone(), axis, true),
            Builtin::GroupSize(axis) => super::axes::size(self.kernel, axis, false),
            Builtin::Groups(axis) => super::axes::size(self.kernel, axis, true),
        }
    }

    pub fn array_size(&self, array: ArrayId) -> Expr {
        self.translate(&self.kernel.array(array).size)
    }

    /// The value of `expr`.
    pub fn translate(&self, expr: &logic::Expr) -> Expr {
        self.value(expr, false)
    }

    /// The name of a bound variable.
    fn bound_name(&self, var: VarId) -> String {
        match self.function {
            Some(function) => names::function_var(function, var),
            None => names::bound(self.kernel, var),
        }
    }

    fn value(&self, expr: &logic::Expr, old: bool) -> Expr {
        let go = |inner: &logic::Expr| self.value(inner, old);
        match &expr.kind {
            ExprKind::Int(value) => Expr::Int(value.clone()),
            ExprKind::Bool(value) => Expr::Bool(*value),
            ExprKind::Builtin(builtin) => self.builtin(*builtin),
            ExprKind::Var(var) => {
                self.vars.get(var).cloned().unwrap_or_else(|| Expr::var(names::param(self.kernel, *var)))
            }
            ExprKind::Result => Expr::var(names::RESULT),
            ExprKind::Read { array, index } => {
                let heaps = if old { &self.old_heaps } else { &self.heaps };
                Expr::select(Expr::var(&heaps[array.index()]), go(index))
            }
            ExprKind::Unary { op, operand } => {
                let operand = go(operand);
                match op {
                    logic::UnaryOp::Not => Expr::negation(operand),
                    logic::UnaryOp::Neg => Expr::binary(BinaryOp::Sub, Expr::int(0), operand),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => arithmetic(*op, go(lhs), go(rhs), lhs.is_non_negative()),
            ExprKind::Cond { cond, then_value, else_value } => {
                Expr::IfThenElse(Box::new(go(cond)), Box::new(go(then_value)), Box::new(go(else_value)))
            }
            ExprKind::Call { function: callee, args } => {
                call(&self.functions[callee.index()], args.iter().map(go).collect())
            }
            ExprKind::Quantifier { quantifier, var, range, body } => {
                let (name, inner) = self.binding(*var);
                let range = inner.value(range, old);
                let body = inner.value(body, old);
                let (quantifier, body) = match quantifier {
                    logic::Quantifier::Forall => (Quantifier::Forall, Expr::binary(BinaryOp::Implies, range, body)),
                    logic::Quantifier::Exists => (Quantifier::Exists, Expr::binary(BinaryOp::And, range, body)),
                };
                Expr::Quantified {
                    quantifier,
                    bound: vec![Binding::new(name, IvlType::Int)],
                    triggers: Vec::new(),
                    body: Box::new(body),
                }
            }
            ExprKind::Sum { var, lower, upper, body } => {
                let (name, inner) = self.binding(*var);
                let translated = inner.value(body, old);
                let heap = IvlType::map(IvlType::Int, IvlType::Int);
                let mut types = boolean_names(body, |var| self.value(var, old));
                types.extend(self.heaps.iter().chain(&self.old_heaps).map(|name| (name.clone(), heap.clone())));
                self.sums.borrow_mut().application(go(lower), go(upper), &name, &translated, &types)
            }
            ExprKind::Old(inner) => self.value(inner, true),
            // A machine result is its exact value; `arith.overflow` checks its range (E19), and
            // `access.bounds` a private array's index.
            ExprKind::InRange { value, .. } | ExprKind::PrivateIndex { index: value, .. } => go(value),
            // The increment's value, a function of the cell, the site and the thread known to be
            // injective (E20).
            ExprKind::Ticket { counter, cell, site, .. } => Expr::Call(
                names::ticket(self.kernel, *counter),
                vec![go(cell), Expr::int(i64::from(*site)), self.thread[1].clone(), self.thread[2].clone()],
            ),
        }
    }

    /// The IVL name of a bound variable, and this context with the variable bound to it.
    fn binding(&self, var: VarId) -> (String, Context<'k>) {
        let name = self.bound_name(var);
        let mut inner = self.clone();
        inner.vars.insert(var, Expr::var(&name));
        (name, inner)
    }

    /// The term of an exact amount: a literal, or for `q \ d` the constant that stands for it
    /// (E16); `None` for `read`.
    pub fn amount(&self, amount: &Amount) -> Option<Expr> {
        match amount {
            Amount::Exact(value) => Some(Expr::Real(value.clone())),
            Amount::Divided { fraction, divisor } => Some(Expr::var(names::amount(fraction, &self.translate(divisor)))),
            Amount::Read => None,
        }
    }

    /// A check of the outline as one closed condition in this state:
    /// `forall binders :: guard1 ==> ... ==> condition` (E1).
    pub fn requirement(&self, check: &Check) -> Expr {
        let mut inner = self.clone();
        let binders: Vec<Binding> = check
            .binders
            .iter()
            .map(|&var| {
                let name = self.bound_name(var);
                inner.vars.insert(var, Expr::var(&name));
                Binding::new(name, IvlType::Int)
            })
            .collect();
        let condition = inner.condition(&check.requirement);
        let guards: Vec<Expr> = check.guards.iter().map(|guard| inner.translate(guard)).collect();
        closed(&binders, &guards, condition)
    }

    /// What a requirement asks, where it applies.
    fn condition(&self, requirement: &Requirement) -> Expr {
        match requirement {
            Requirement::InBounds { array, index } => in_bounds(&self.translate(index), self.array_size(*array)),
            Requirement::Readable { array, index } => {
                let mask = Expr::select(Expr::var(&self.masks[array.index()]), self.translate(index));
                Expr::binary(BinaryOp::Gt, mask, real_zero())
            }
            Requirement::NonZero(divisor) => Expr::binary(BinaryOp::Ne, self.translate(divisor), Expr::int(0)),
            Requirement::InRange { value, int } => {
                // least <= value <= greatest (E19).
                let value = self.translate(value);
                let (least, greatest) = int.bounds();
                Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Le, Expr::Int(least), value.clone()),
                    Expr::binary(BinaryOp::Le, value, Expr::Int(greatest)),
                )
            }
            Requirement::BelowLength { index, length } => {
                in_bounds(&self.translate(index), Expr::int(i64::from(*length)))
            }
            Requirement::Positive(divisor) => Expr::binary(BinaryOp::Ge, self.translate(divisor), Expr::int(1)),
            Requirement::Precondition { function, args, clause } => {
                let function = &self.functions[function.index()];
                let args = args.iter().map(|arg| self.translate(arg));
                let bindings: HashMap<VarId, Expr> = function.params.iter().copied().zip(args).collect();
                FunctionContext {
                    functions: self.functions,
                    sums: &self.sums,
                    function,
                    bindings: &bindings,
                    fuel: default_fuel(),
                }
                .translate(&function.requires[*clause])
            }
            Requirement::Decreases { callee, args, measure } => {
                let called = &self.functions[callee.index()];
                let args = args.iter().map(|arg| self.translate(arg));
                let bindings: HashMap<VarId, Expr> = called.params.iter().copied().zip(args).collect();
                let passed = FunctionContext {
                    functions: self.functions,
                    sums: &self.sums,
                    function: called,
                    bindings: &bindings,
                    fuel: default_fuel(),
                }
                .translate(measure);
                let Some(current) = &self.measure else { return Expr::Bool(false) };
                Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Le, Expr::int(0), passed.clone()),
                    Expr::binary(BinaryOp::Lt, passed, current.clone()),
                )
            }
            Requirement::Unsatisfiable => Expr::Bool(false),
        }
    }
}

/// `forall binders :: guard1 ==> ... ==> condition` (no quantifier without binders).
pub fn closed(binders: &[Binding], guards: &[Expr], condition: Expr) -> Expr {
    let body = guards.iter().rev().fold(condition, |body, guard| Expr::binary(BinaryOp::Implies, guard.clone(), body));
    if binders.is_empty() {
        body
    } else {
        Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound: binders.to_vec(),
            triggers: Vec::new(),
            body: Box::new(body),
        }
    }
}

/// A pure function's precondition, postcondition or body, over its parameters bound to given
/// expressions, with calls inside it given `fuel`.
pub struct FunctionContext<'f> {
    pub functions: &'f [logic::Function],
    pub sums: &'f RefCell<Sums>,
    pub function: &'f logic::Function,
    pub bindings: &'f HashMap<VarId, Expr>,
    pub fuel: Expr,
}

impl FunctionContext<'_> {
    pub fn translate(&self, expr: &logic::Expr) -> Expr {
        let go = |inner: &logic::Expr| self.translate(inner);
        match &expr.kind {
            ExprKind::Int(value) => Expr::Int(value.clone()),
            ExprKind::Bool(value) => Expr::Bool(*value),
            ExprKind::Var(var) => {
                self.bindings.get(var).cloned().unwrap_or_else(|| Expr::var(names::function_var(self.function, *var)))
            }
            ExprKind::Result => Expr::var(names::RESULT),
            ExprKind::Unary { op: logic::UnaryOp::Not, operand } => Expr::negation(go(operand)),
            ExprKind::Unary { op: logic::UnaryOp::Neg, operand } => {
                Expr::binary(BinaryOp::Sub, Expr::int(0), go(operand))
            }
            ExprKind::Binary { op, lhs, rhs } => arithmetic(*op, go(lhs), go(rhs), lhs.is_non_negative()),
            ExprKind::Cond { cond, then_value, else_value } => {
                Expr::IfThenElse(Box::new(go(cond)), Box::new(go(then_value)), Box::new(go(else_value)))
            }
            ExprKind::Call { function, args } => {
                let callee = &self.functions[function.index()];
                let args = args.iter().map(go);
                Expr::Call(names::function(callee), std::iter::once(self.fuel.clone()).chain(args).collect())
            }
            ExprKind::Quantifier { quantifier, var, range, body } => {
                let (quantifier, body) = match quantifier {
                    logic::Quantifier::Forall => {
                        (Quantifier::Forall, Expr::binary(BinaryOp::Implies, go(range), go(body)))
                    }
                    logic::Quantifier::Exists => (Quantifier::Exists, Expr::binary(BinaryOp::And, go(range), go(body))),
                };
                Expr::Quantified {
                    quantifier,
                    bound: vec![Binding::new(names::function_var(self.function, *var), IvlType::Int)],
                    triggers: Vec::new(),
                    body: Box::new(body),
                }
            }
            ExprKind::Sum { var, lower, upper, body } => {
                let name = names::function_var(self.function, *var);
                let types = boolean_names(body, |var| self.translate(var));
                self.sums.borrow_mut().application(go(lower), go(upper), &name, &go(body), &types)
            }
            // The resolver keeps memory, thread ids and `\old` out of pure functions; should one
            // arrive anyway, it stands for nothing known.
            ExprKind::Read { .. } | ExprKind::Builtin(_) | ExprKind::Old(_) | ExprKind::Ticket { .. } => {
                Expr::var(names::UNKNOWN)
            }
            ExprKind::InRange { value, .. } | ExprKind::PrivateIndex { index: value, .. } => go(value),
        }
    }
}

/// The IVL names of the boolean variables of `expr`, as `translate` spells them, each with its
/// type: a sum's body passes them to its function (E18), which otherwise takes integers.
fn boolean_names(expr: &logic::Expr, translate: impl Fn(&logic::Expr) -> Expr) -> HashMap<String, IvlType> {
    let mut types = HashMap::new();
    let mut work = vec![expr];
    while let Some(next) = work.pop() {
        if let (ExprKind::Var(_), logic::Type::Bool) = (&next.kind, next.ty) {
            if let Expr::Var(name) = translate(next) {
                types.insert(name, IvlType::Bool);
            }
        }
        next.children(&mut work);
    }
    types
}

/// The default fuel of a call: two unfoldings (`proofs/kernel.md`, E5).
pub fn default_fuel() -> Expr {
    Expr::Call(names::SUCC.into(), vec![Expr::Call(names::SUCC.into(), vec![Expr::var(names::NO_FUEL)])])
}

/// `f(fuel, args)`: a call with the default fuel (`proofs/kernel.md`, E5).
pub fn call(function: &logic::Function, args: Vec<Expr>) -> Expr {
    Expr::Call(names::function(function), std::iter::once(default_fuel()).chain(args).collect())
}

/// The IVL for a kernel operator: C's truncating `/` and `%` from Boogie's Euclidean `div` and
/// `mod`; `mod` itself is already the mathematical modulo. Of a dividend known to be at least 0
/// (`non_negative_dividend`), C's `/` and `%` are `div` and `mod`, whatever the divisor's sign.
pub fn arithmetic(op: logic::BinaryOp, left: Expr, right: Expr, non_negative_dividend: bool) -> Expr {
    use logic::BinaryOp as K;
    let simple = |op: BinaryOp| Expr::binary(op, left.clone(), right.clone());
    match op {
        K::Add => simple(BinaryOp::Add),
        K::Sub => simple(BinaryOp::Sub),
        K::Mul => simple(BinaryOp::Mul),
        K::Mod => modulo(left, right),
        K::Div if non_negative_dividend => euclidean_division(left, right),
        K::Rem if non_negative_dividend => modulo(left, right),
        K::Div => truncating_division(left, right),
        // a % b = a - b * (a / b), with C's truncating `/`.
        K::Rem => Expr::binary(
            BinaryOp::Sub,
            left.clone(),
            Expr::binary(BinaryOp::Mul, right.clone(), truncating_division(left, right)),
        ),
        K::Eq => simple(BinaryOp::Eq),
        K::Ne => simple(BinaryOp::Ne),
        K::Lt => simple(BinaryOp::Lt),
        K::Le => simple(BinaryOp::Le),
        K::Gt => simple(BinaryOp::Gt),
        K::Ge => simple(BinaryOp::Ge),
        K::And => simple(BinaryOp::And),
        K::Or => simple(BinaryOp::Or),
        K::Implies => simple(BinaryOp::Implies),
    }
}

/// C's `a / b`: `a div b` for `a >= 0`, `-((-a) div b)` otherwise (Euclidean `div` rounds the
/// quotient of a non-negative dividend towards zero whatever the divisor's sign).
fn truncating_division(left: Expr, right: Expr) -> Expr {
    let negated = Expr::binary(BinaryOp::Sub, Expr::int(0), left.clone());
    Expr::IfThenElse(
        Box::new(Expr::binary(BinaryOp::Ge, left.clone(), Expr::int(0))),
        Box::new(euclidean_division(left, right.clone())),
        Box::new(Expr::binary(BinaryOp::Sub, Expr::int(0), euclidean_division(negated, right))),
    )
}

/// Whether `held` permission is enough for an amount (its term, `None` for `read`): at least it,
/// or any for `read`.
pub fn holds(held: Expr, exact: Option<Expr>) -> Expr {
    match exact {
        Some(amount) => Expr::binary(BinaryOp::Ge, held, amount),
        None => Expr::binary(BinaryOp::Gt, held, real_zero()),
    }
}

pub fn real_one() -> Expr {
    Expr::Real(num_rational::BigRational::from_integer(BigInt::from(1)))
}

pub fn real_zero() -> Expr {
    Expr::Real(num_rational::BigRational::from_integer(BigInt::from(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gsize() -> Expr {
        Expr::var(names::GSIZE)
    }

    fn plus(left: Expr, right: i64) -> Expr {
        Expr::binary(BinaryOp::Add, left, Expr::int(right))
    }

    #[test]
    fn a_ring_index_that_goes_round_twice_is_spelled_as_the_single_step() {
        let lid = Expr::var(names::LID);
        let twice = modulo(plus(modulo(plus(lid.clone(), 3), gsize()), 2), gsize());
        assert_eq!(twice, modulo(plus(lid, 5), gsize()));
    }

    #[test]
    fn a_conditional_that_ends_in_a_modulo_is_not_taken_for_one() {
        // `(lid < 2 ? 7 : lid mod gsize) + 2`, whose value at lid = 0 is 9 mod gsize, not 2 mod gsize.
        let lid = Expr::var(names::LID);
        let written = Expr::IfThenElse(
            Box::new(Expr::binary(BinaryOp::Lt, lid.clone(), Expr::int(2))),
            Box::new(Expr::int(7)),
            Box::new(modulo(lid.clone(), gsize())),
        );
        assert_ne!(modulo(plus(written, 2), gsize()), modulo(plus(lid, 2), gsize()));
    }

    #[test]
    fn a_large_literal_offset_takes_two_cases_whatever_its_size() {
        let lid = Expr::var(names::LID);
        let size = |offset: i64| {
            let mut count = 0;
            modulo(plus(lid.clone(), offset), gsize()).walk(&mut |_| count += 1);
            count
        };
        assert_eq!(size(2), size(64));
    }
}
