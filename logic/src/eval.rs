//! Concrete evaluation of expressions and pure functions: the semantics the encoding must agree
//! with, computed on values.
//!
//! The verifier uses it to check a candidate counterexample against the real definition of a
//! recursive function (which the solver only knows through quantified axioms), and the concrete
//! executor to run kernels. What an expression may read (variables, thread ids, memory, `\old`)
//! comes from an [`Env`]; what an evaluation may cost is bounded by a budget of steps, so a
//! function that does not terminate, or a huge quantifier range, ends in
//! [`EvalError::OutOfSteps`], never in a hang.
//!
//! Calls are memoised: a pure function reads only its arguments (a call's [`Env`] is its `Frame`,
//! which has no memory, ids or `\old`), so a call that once gave a value gives it again, and the
//! [`Memo`] returns it for the one step of the call expression, without evaluating the body or
//! the contract again (both held when it was computed). A naive recursion such as
//! `binom(n-1, k-1) + binom(n-1, k)` then costs steps polynomial in its arguments rather than exponential. Only
//! values are kept: an error names the span of the call that met it, and a call that ran out of
//! steps may succeed with more. Otherwise the budget is as without the memo, so a step limit still
//! ends what does not terminate. A memo belongs to one program's functions, and may be shared by
//! the evaluators of many expressions ([`Evaluator::sharing`]): the concrete executor keeps one for
//! a whole run.
//!
//! Arithmetic is on unbounded integers, as in the logic: `/` truncates towards zero and `%` takes
//! the sign of the dividend, as C does; `mod` lies in `[0, |d|)`.

use crate::{
    ArrayId, BinaryOp, Builtin, Expr, ExprKind, Function, FunctionId, MachineInt, Quantifier, Span, UnaryOp, VarId,
};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A value of a [`crate::Type`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Int(BigInt),
    Bool(bool),
}

impl Value {
    pub fn int(value: impl Into<BigInt>) -> Value {
        Value::Int(value.into())
    }

    fn as_int(&self, span: Span) -> Result<&BigInt, EvalError> {
        match self {
            Value::Int(value) => Ok(value),
            Value::Bool(_) => Err(EvalError::IllTyped { span }),
        }
    }

    fn as_bool(&self, span: Span) -> Result<bool, EvalError> {
        match self {
            Value::Bool(value) => Ok(*value),
            Value::Int(_) => Err(EvalError::IllTyped { span }),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(value) => write!(f, "{value}"),
            Value::Bool(value) => write!(f, "{value}"),
        }
    }
}

/// The most bits an integer an evaluation computes may have ([`EvalError::TooLarge`]).
pub const MAX_VALUE_BITS: u64 = 4096;

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// `/`, `%` or `mod` by zero.
    DivisionByZero { span: Span },
    /// A signed machine operation whose exact result lies outside its type.
    Overflow { value: BigInt, int: MachineInt, span: Span },
    /// A call whose arguments break the function's `requires`.
    PreconditionFailed { function: FunctionId, call: Span, requirement: Span },
    /// A call whose value breaks the function's `ensures`.
    PostconditionFailed { function: FunctionId, call: Span, promise: Span },
    /// The evaluation took more steps (or nested deeper) than its budget allows.
    OutOfSteps,
    /// A quantifier whose range gives no finite bounds for its variable.
    UnboundedQuantifier { span: Span },
    /// A sum, difference or product with more than [`MAX_VALUE_BITS`] bits: the logic's integers
    /// are unbounded, but computing with such values costs more than a run or a counterexample
    /// check can spend (a loop that doubles a value forever would otherwise take hours to reach
    /// its step limit).
    TooLarge { span: Span },
    /// A permission amount `q \ d` whose divisor `d` is not positive.
    NonPositiveAmount { divisor: BigInt, span: Span },
    /// A read of a cell outside its array.
    OutOfBounds { array: ArrayId, index: BigInt, size: usize, span: Span },
    /// An index outside a private array of `length` cells ([`ExprKind::PrivateIndex`]).
    OutsidePrivateArray { index: BigInt, length: u32, span: Span },
    /// Something the environment cannot give: a variable without a value, memory outside an
    /// array, `\old` outside a kernel. The environment says which, at the span.
    Unavailable { span: Span, what: String },
    /// An operand of the wrong type: the IR was not type-checked.
    IllTyped { span: Span },
}

/// What an expression reads besides its own subexpressions. Every method has a default that
/// refuses, so an environment gives only what it has.
pub trait Env {
    fn builtin(&self, builtin: Builtin, span: Span) -> Result<Value, EvalError> {
        Err(EvalError::Unavailable { span, what: format!("`{}`", builtin.name()) })
    }

    fn var(&self, var: VarId, span: Span) -> Result<Value, EvalError> {
        Err(EvalError::Unavailable { span, what: format!("variable {}", var.0) })
    }

    fn read(&self, array: ArrayId, index: &BigInt, span: Span) -> Result<Value, EvalError> {
        let _ = index;
        Err(EvalError::Unavailable { span, what: format!("array {}", array.0) })
    }

    /// The state `\old(e)` reads: the kernel's initial one.
    fn old(&self) -> Option<&dyn Env> {
        None
    }

    /// `\result`, in a function's postcondition.
    fn result(&self, span: Span) -> Result<Value, EvalError> {
        Err(EvalError::Unavailable { span, what: "`\\result`".into() })
    }

    /// The value the thread's increment `site` of `counter[cell]` returns ([`ExprKind::Ticket`]).
    fn ticket(
        &self,
        counter: ArrayId,
        cell: &BigInt,
        site: u32,
        int: MachineInt,
        span: Span,
    ) -> Result<Value, EvalError> {
        let _ = (cell, site, int);
        Err(EvalError::Unavailable { span, what: format!("an increment of array {}", counter.0) })
    }
}

/// An environment with nothing in it: for closed expressions.
pub struct Empty;

impl Env for Empty {}

/// The values of the calls of one program's pure functions computed so far: by function, then by
/// arguments.
#[derive(Debug, Default)]
pub struct Memo {
    values: RefCell<HashMap<FunctionId, HashMap<Vec<Value>, Value>>>,
}

/// The most calls a [`Memo`] keeps per function: a function's full memo starts again empty, so that
/// the memory stays bounded however long the memo lives.
const MEMO_CAPACITY: usize = 1 << 18;

impl Memo {
    fn get(&self, function: FunctionId, args: &[Value]) -> Option<Value> {
        self.values.borrow().get(&function)?.get(args).cloned()
    }

    fn insert(&self, function: FunctionId, args: Vec<Value>, value: Value) {
        let mut values = self.values.borrow_mut();
        let calls = values.entry(function).or_default();
        if calls.len() >= MEMO_CAPACITY {
            calls.clear();
        }
        calls.insert(args, value);
    }
}

/// Evaluates expressions that may call the pure functions of one program, within a budget.
pub struct Evaluator<'p> {
    functions: &'p [Function],
    steps_left: Cell<u64>,
    depth: Cell<u32>,
    memo: Rc<Memo>,
}

/// How deeply calls may nest. The budget of steps bounds the work; this bounds the memory.
const MAX_CALL_DEPTH: u32 = 100_000;
/// Below this much free stack, a call runs on a new segment of [`STACK_GROWTH`] bytes.
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_GROWTH: usize = 1024 * 1024;

impl<'p> Evaluator<'p> {
    /// An evaluator that may take `steps` steps in all (one per expression node evaluated).
    pub fn new(functions: &'p [Function], steps: u64) -> Evaluator<'p> {
        Evaluator::sharing(functions, steps, Rc::default())
    }

    /// An evaluator like [`Evaluator::new`] that keeps the values of calls in `memo`, which must be
    /// a memo of the same `functions`.
    pub fn sharing(functions: &'p [Function], steps: u64, memo: Rc<Memo>) -> Evaluator<'p> {
        Evaluator { functions, steps_left: Cell::new(steps), depth: Cell::new(0), memo }
    }

    /// The value of a call of `function` on `args`, after checking its `requires`; its `ensures`
    /// are checked on the value. A call already computed costs no step (see the module
    /// documentation).
    pub fn call(&self, function: FunctionId, args: Vec<Value>, call: Span) -> Result<Value, EvalError> {
        if let Some(value) = self.memo.get(function, &args) {
            return Ok(value);
        }
        let definition = &self.functions[function.index()];
        let mut frame = Frame { function: definition, args, result: None };
        for requirement in &definition.requires {
            if !self.expr(requirement, &frame)?.as_bool(requirement.span)? {
                return Err(EvalError::PreconditionFailed { function, call, requirement: requirement.span });
            }
        }
        if self.depth.get() >= MAX_CALL_DEPTH {
            return Err(EvalError::OutOfSteps);
        }
        self.depth.set(self.depth.get() + 1);
        // Deep recursion (a function over a large argument) grows the stack rather than
        // overflowing it.
        let value = stacker::maybe_grow(STACK_RED_ZONE, STACK_GROWTH, || self.expr(&definition.body, &frame));
        self.depth.set(self.depth.get() - 1);
        frame.result = Some(value?);
        for promise in &definition.ensures {
            if !self.expr(promise, &frame)?.as_bool(promise.span)? {
                return Err(EvalError::PostconditionFailed { function, call, promise: promise.span });
            }
        }
        let value = frame.result.expect("just set");
        self.memo.insert(function, frame.args, value.clone());
        Ok(value)
    }

    /// The value of `expr` in `env`.
    pub fn expr(&self, expr: &Expr, env: &dyn Env) -> Result<Value, EvalError> {
        self.in_scope(expr, env, &mut Vec::new())
    }

    /// Evaluates with the quantifier variables `bound` (innermost last) in scope.
    fn in_scope(&self, expr: &Expr, env: &dyn Env, bound: &mut Vec<(VarId, Value)>) -> Result<Value, EvalError> {
        let steps = self.steps_left.get();
        if steps == 0 {
            return Err(EvalError::OutOfSteps);
        }
        self.steps_left.set(steps - 1);
        let span = expr.span;
        Ok(match &expr.kind {
            ExprKind::Int(value) => Value::Int(value.clone()),
            ExprKind::Bool(value) => Value::Bool(*value),
            ExprKind::Builtin(builtin) => env.builtin(*builtin, span)?,
            ExprKind::Var(var) => match bound.iter().rev().find(|(bound, _)| bound == var) {
                Some((_, value)) => value.clone(),
                None => env.var(*var, span)?,
            },
            ExprKind::Read { array, index } => {
                let index = self.in_scope(index, env, bound)?;
                env.read(*array, index.as_int(span)?, span)?
            }
            ExprKind::Unary { op, operand } => {
                let operand = self.in_scope(operand, env, bound)?;
                match op {
                    UnaryOp::Not => Value::Bool(!operand.as_bool(span)?),
                    UnaryOp::Neg => Value::Int(-operand.as_int(span)?.clone()),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span, env, bound)?,
            ExprKind::Cond { cond, then_value, else_value } => {
                if self.in_scope(cond, env, bound)?.as_bool(cond.span)? {
                    self.in_scope(then_value, env, bound)?
                } else {
                    self.in_scope(else_value, env, bound)?
                }
            }
            ExprKind::Call { function, args } => {
                let args = args.iter().map(|arg| self.in_scope(arg, env, bound)).collect::<Result<Vec<_>, _>>()?;
                self.call(*function, args, span)?
            }
            ExprKind::Quantifier { quantifier, var, range, body } => {
                self.quantifier(*quantifier, *var, range, body, span, env, bound)?
            }
            ExprKind::Sum { var, lower, upper, body } => self.sum(*var, lower, upper, body, env, bound)?,
            ExprKind::Old(inner) => {
                let old = env.old().ok_or_else(|| EvalError::Unavailable { span, what: "`\\old`".into() })?;
                self.in_scope(inner, old, bound)?
            }
            ExprKind::Result => env.result(span)?,
            ExprKind::InRange { value, int } => {
                let result = self.in_scope(value, env, bound)?;
                let (least, greatest) = int.bounds();
                let exact = result.as_int(span)?;
                if *exact < least || *exact > greatest {
                    return Err(EvalError::Overflow { value: exact.clone(), int: *int, span });
                }
                result
            }
            ExprKind::Ticket { counter, cell, site, int } => {
                let cell = self.in_scope(cell, env, bound)?;
                env.ticket(*counter, cell.as_int(span)?, *site, *int, span)?
            }
            ExprKind::PrivateIndex { index, length } => {
                let result = self.in_scope(index, env, bound)?;
                let exact = result.as_int(span)?;
                if exact.sign() == num_bigint::Sign::Minus || *exact >= BigInt::from(*length) {
                    return Err(EvalError::OutsidePrivateArray { index: exact.clone(), length: *length, span });
                }
                result
            }
        })
    }

    /// The value of `\sum(var; lower <= var < upper; body)`, in a function of its own so that the
    /// frame of the recursive [`Evaluator::in_scope`] stays small.
    fn sum(
        &self,
        var: VarId,
        lower: &Expr,
        upper: &Expr,
        body: &Expr,
        env: &dyn Env,
        bound: &mut Vec<(VarId, Value)>,
    ) -> Result<Value, EvalError> {
        let lower = self.in_scope(lower, env, bound)?.as_int(lower.span)?.clone();
        let upper = self.in_scope(upper, env, bound)?.as_int(upper.span)?.clone();
        let mut total = BigInt::zero();
        let mut value = lower;
        while value < upper {
            bound.push((var, Value::Int(value.clone())));
            let term = self.in_scope(body, env, bound).and_then(|term| Ok(term.as_int(body.span)?.clone()));
            bound.pop();
            total += term?;
            value += 1;
        }
        Ok(Value::Int(total))
    }

    fn binary(
        &self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        span: Span,
        env: &dyn Env,
        bound: &mut Vec<(VarId, Value)>,
    ) -> Result<Value, EvalError> {
        let left = self.in_scope(lhs, env, bound)?;
        // The connectives are short-circuit, as the logic's well-definedness reads them: the right
        // operand need only be defined where it matters.
        match op {
            BinaryOp::And if !left.as_bool(lhs.span)? => return Ok(Value::Bool(false)),
            BinaryOp::Or if left.as_bool(lhs.span)? => return Ok(Value::Bool(true)),
            BinaryOp::Implies if !left.as_bool(lhs.span)? => return Ok(Value::Bool(true)),
            BinaryOp::And | BinaryOp::Or | BinaryOp::Implies => {
                return Ok(Value::Bool(self.in_scope(rhs, env, bound)?.as_bool(rhs.span)?))
            }
            _ => {}
        }
        let right = self.in_scope(rhs, env, bound)?;
        if let BinaryOp::Eq | BinaryOp::Ne = op {
            return Ok(Value::Bool((left == right) == (op == BinaryOp::Eq)));
        }
        let (a, b) = (left.as_int(lhs.span)?, right.as_int(rhs.span)?);
        let nonzero = || if b.is_zero() { Err(EvalError::DivisionByZero { span }) } else { Ok(()) };
        let bounded = |value: BigInt| {
            if value.bits() > MAX_VALUE_BITS {
                Err(EvalError::TooLarge { span })
            } else {
                Ok(Value::Int(value))
            }
        };
        Ok(match op {
            BinaryOp::Add => bounded(a + b)?,
            BinaryOp::Sub => bounded(a - b)?,
            BinaryOp::Mul => bounded(a * b)?,
            // BigInt's `/` and `%` truncate towards zero, as C's do.
            BinaryOp::Div => nonzero().map(|()| Value::Int(a / b))?,
            BinaryOp::Rem => nonzero().map(|()| Value::Int(a % b))?,
            BinaryOp::Mod => nonzero().map(|()| {
                let remainder = a % b;
                Value::Int(if remainder.is_negative() { remainder + b.abs() } else { remainder })
            })?,
            BinaryOp::Lt => Value::Bool(a < b),
            BinaryOp::Le => Value::Bool(a <= b),
            BinaryOp::Gt => Value::Bool(a > b),
            BinaryOp::Ge => Value::Bool(a >= b),
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::And | BinaryOp::Or | BinaryOp::Implies => {
                unreachable!("handled above")
            }
        })
    }

    /// The values of `var` that `range` allows, in increasing order: the range must bound the
    /// variable below and above (see [`Evaluator::quantifier`]).
    pub fn range(&self, var: VarId, range: &Expr, env: &dyn Env) -> Result<Vec<BigInt>, EvalError> {
        let mut bound = Vec::new();
        let (low, high) = self.limits(var, range, env, &mut bound)?;
        let mut values = Vec::new();
        let mut value = low;
        while value <= high {
            bound.push((var, Value::Int(value.clone())));
            let in_range = self.in_scope(range, env, &mut bound).and_then(|in_range| in_range.as_bool(range.span));
            bound.pop();
            if in_range? {
                values.push(value.clone());
            }
            value += 1;
        }
        Ok(values)
    }

    /// The least and greatest value the conjuncts of `range` allow `var`; the count of values
    /// between them is charged to the budget up front.
    fn limits(
        &self,
        var: VarId,
        range: &Expr,
        env: &dyn Env,
        bound: &mut Vec<(VarId, Value)>,
    ) -> Result<(BigInt, BigInt), EvalError> {
        let (mut low, mut high): (Option<BigInt>, Option<BigInt>) = (None, None);
        for limit in bounds(range, var) {
            let mut rest = self.in_scope(limit.other, env, bound)?.as_int(limit.other.span)?.clone();
            for (term, positive) in &limit.terms {
                let value = self.in_scope(term, env, bound)?.as_int(term.span)?.clone();
                if *positive {
                    rest -= value;
                } else {
                    rest += value;
                }
            }
            match limit.solve(rest) {
                (true, value) => low = Some(low.map_or(value.clone(), |low| low.max(value))),
                (false, value) => high = Some(high.map_or(value.clone(), |high| high.min(value))),
            }
        }
        let (Some(low), Some(high)) = (low, high) else {
            return Err(EvalError::UnboundedQuantifier { span: range.span });
        };
        let count: BigInt = (&high - &low + 1u32).max(BigInt::zero());
        if count.to_u64().is_none_or(|count| count > self.steps_left.get()) {
            return Err(EvalError::OutOfSteps);
        }
        Ok((low, high))
    }

    /// A quantifier over the integers its range allows: the range must bound the variable below
    /// and above by conjuncts such as `lo <= i` and `i < hi`, so the values are finitely many.
    #[allow(clippy::too_many_arguments)]
    fn quantifier(
        &self,
        quantifier: Quantifier,
        var: VarId,
        range: &Expr,
        body: &Expr,
        span: Span,
        env: &dyn Env,
        bound: &mut Vec<(VarId, Value)>,
    ) -> Result<Value, EvalError> {
        let (low, high) = self.limits(var, range, env, bound).map_err(|error| match error {
            EvalError::UnboundedQuantifier { .. } => EvalError::UnboundedQuantifier { span },
            other => other,
        })?;
        let want = quantifier == Quantifier::Forall;
        let mut value = low;
        while value <= high {
            bound.push((var, Value::Int(value.clone())));
            let in_range = self.in_scope(range, env, bound).and_then(|in_range| in_range.as_bool(range.span));
            let holds = match in_range {
                Ok(true) => self.in_scope(body, env, bound).and_then(|holds| holds.as_bool(body.span)).map(Some),
                Ok(false) => Ok(None),
                Err(error) => Err(error),
            };
            bound.pop();
            if holds? == Some(!want) {
                return Ok(Value::Bool(!want));
            }
            value += 1;
        }
        Ok(Value::Bool(want))
    }
}

/// The arguments of one function call, and its value once known: the environment of its body
/// and contract.
struct Frame<'f> {
    function: &'f Function,
    args: Vec<Value>,
    result: Option<Value>,
}

impl Env for Frame<'_> {
    fn var(&self, var: VarId, span: Span) -> Result<Value, EvalError> {
        match self.function.params.iter().position(|param| *param == var) {
            Some(position) => Ok(self.args[position].clone()),
            None => Err(EvalError::Unavailable { span, what: format!("`{}`", self.function.vars[var.index()].name) }),
        }
    }

    fn result(&self, span: Span) -> Result<Value, EvalError> {
        self.result.clone().ok_or(EvalError::Unavailable { span, what: "`\\result`".into() })
    }
}

/// A bound on a quantified variable `v`, from a conjunct `c*v + terms OP other`: `v` against
/// `(other - terms) / c`, rounded inwards.
struct Limit<'e> {
    /// The side without `v`.
    other: &'e Expr,
    /// The terms added to `c*v` on its side, with their signs.
    terms: Vec<(&'e Expr, bool)>,
    coefficient: i64,
    /// The comparison, seen from `c*v + terms` on the left.
    op: BinaryOp,
}

impl Limit<'_> {
    /// Whether it bounds from below, and the inclusive bound given the value of `other - terms`.
    fn solve(&self, rest: BigInt) -> (bool, BigInt) {
        let c = BigInt::from(self.coefficient);
        // Integer c*v OP rest, as c*v >= low or c*v <= high.
        let (at_least, value) = match self.op {
            BinaryOp::Lt => (false, rest - 1),
            BinaryOp::Le => (false, rest),
            BinaryOp::Gt => (true, rest + 1),
            _ => (true, rest),
        };
        // Dividing by a negative coefficient turns the comparison around.
        let at_least_v = at_least == (self.coefficient > 0);
        let (quotient, remainder) = (&value / &c, &value % &c);
        let exact = remainder.is_zero();
        // Truncation rounds towards zero; the bound must round inwards (up for a lower bound).
        let floor = if !exact && (value.is_negative() != c.is_negative()) { &quotient - 1 } else { quotient.clone() };
        let ceil = if exact { floor.clone() } else { &floor + 1 };
        (at_least_v, if at_least_v { ceil } else { floor })
    }
}

/// The bounds the top-level conjuncts of `range` put on `var`: comparisons `<`, `<=`, `>`, `>=`
/// with `c*var` plus terms without `var` on one side (`c` a nonzero constant) and no `var` on the
/// other.
fn bounds(range: &Expr, var: VarId) -> Vec<Limit<'_>> {
    let mut found = Vec::new();
    let mut pending = vec![range];
    while let Some(expr) = pending.pop() {
        let ExprKind::Binary { op, lhs, rhs } = &expr.kind else { continue };
        match op {
            BinaryOp::And => pending.extend([lhs.as_ref(), rhs.as_ref()]),
            BinaryOp::Le | BinaryOp::Lt | BinaryOp::Ge | BinaryOp::Gt => {
                let mirrored = match op {
                    BinaryOp::Le => BinaryOp::Ge,
                    BinaryOp::Lt => BinaryOp::Gt,
                    BinaryOp::Ge => BinaryOp::Le,
                    _ => BinaryOp::Lt,
                };
                let oriented = [(lhs.as_ref(), rhs.as_ref(), *op), (rhs.as_ref(), lhs.as_ref(), mirrored)];
                for (side, other, op) in oriented {
                    if other.mentions(var) {
                        continue;
                    }
                    let mut terms = Vec::new();
                    if let Some(coefficient) = linear(side, var, true, &mut terms).filter(|c| *c != 0) {
                        found.push(Limit { other, terms, coefficient, op });
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// The coefficient of `var` in `expr` if `expr` is `c*var` plus terms without `var` (collected in
/// `terms` with their signs, `positive` being the sign of `expr` itself).
fn linear<'e>(expr: &'e Expr, var: VarId, positive: bool, terms: &mut Vec<(&'e Expr, bool)>) -> Option<i64> {
    let sign = if positive { 1 } else { -1 };
    if !expr.mentions(var) {
        terms.push((expr, positive));
        return Some(0);
    }
    match &expr.kind {
        ExprKind::Var(v) if *v == var => Some(sign),
        ExprKind::Unary { op: UnaryOp::Neg, operand } => linear(operand, var, !positive, terms),
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => {
            Some(linear(lhs, var, positive, terms)? + linear(rhs, var, positive, terms)?)
        }
        ExprKind::Binary { op: BinaryOp::Sub, lhs, rhs } => {
            Some(linear(lhs, var, positive, terms)? + linear(rhs, var, !positive, terms)?)
        }
        ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } => {
            let (constant, factor) = match (&lhs.kind, &rhs.kind) {
                (ExprKind::Int(constant), _) => (constant, rhs.as_ref()),
                (_, ExprKind::Int(constant)) => (constant, lhs.as_ref()),
                _ => return None,
            };
            let constant = constant.to_i64()?;
            let mut inner = Vec::new();
            let coefficient = linear(factor, var, true, &mut inner)?;
            // Terms under a constant factor would need scaling; `c*v` alone is what ranges use.
            inner.is_empty().then_some(sign * constant * coefficient)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Type, Var, VarKind};

    fn expr(kind: ExprKind, ty: Type) -> Expr {
        Expr { kind, ty, span: Span::default() }
    }

    fn int(value: i64) -> Expr {
        expr(ExprKind::Int(value.into()), Type::Int)
    }

    fn var(id: u32) -> Expr {
        expr(ExprKind::Var(VarId(id)), Type::Int)
    }

    fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        let ty = if matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem | BinaryOp::Mod
        ) {
            Type::Int
        } else {
            Type::Bool
        };
        expr(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty)
    }

    fn call(function: u32, args: Vec<Expr>) -> Expr {
        expr(ExprKind::Call { function: FunctionId(function), args }, Type::Bool)
    }

    fn closed(value: &Expr) -> Result<Value, EvalError> {
        Evaluator::new(&[], 1_000).expr(value, &Empty)
    }

    /// `pure bool pow2(int n) = n == 1 || (n > 1 && n % 2 == 0 && pow2(n / 2));`, with
    /// `requires` as given.
    fn pow2(requires: Vec<Expr>) -> Function {
        let n = || var(0);
        let even = binary(BinaryOp::Eq, binary(BinaryOp::Rem, n(), int(2)), int(0));
        let halves = call(0, vec![binary(BinaryOp::Div, n(), int(2))]);
        let recursive = binary(BinaryOp::And, binary(BinaryOp::And, binary(BinaryOp::Gt, n(), int(1)), even), halves);
        Function {
            name: "pow2".into(),
            span: Span::default(),
            params: vec![VarId(0)],
            vars: vec![Var { name: "n".into(), ty: Type::Int, kind: VarKind::FunctionParam, span: Span::default() }],
            result: Type::Bool,
            requires,
            ensures: Vec::new(),
            decreases: None,
            body: binary(BinaryOp::Or, binary(BinaryOp::Eq, n(), int(1)), recursive),
        }
    }

    #[test]
    fn division_truncates_and_mod_is_never_negative() {
        let cases = [
            (BinaryOp::Div, -7, 2, -3),
            (BinaryOp::Rem, -7, 2, -1),
            (BinaryOp::Mod, -7, 2, 1),
            (BinaryOp::Mod, -7, -2, 1),
            (BinaryOp::Div, 7, -2, -3),
            (BinaryOp::Rem, 7, -2, 1),
        ];
        for (op, a, b, expected) in cases {
            assert_eq!(closed(&binary(op, int(a), int(b))), Ok(Value::int(expected)), "{a} {op:?} {b}");
        }
        assert_eq!(
            closed(&binary(BinaryOp::Div, int(1), int(0))),
            Err(EvalError::DivisionByZero { span: Span::default() })
        );
    }

    #[test]
    fn connectives_do_not_evaluate_what_they_do_not_need() {
        let undefined = binary(BinaryOp::Eq, binary(BinaryOp::Div, int(1), int(0)), int(0));
        let false_ = binary(BinaryOp::Eq, int(0), int(1));
        assert_eq!(closed(&binary(BinaryOp::And, false_.clone(), undefined.clone())), Ok(Value::Bool(false)));
        assert_eq!(closed(&binary(BinaryOp::Implies, false_.clone(), undefined.clone())), Ok(Value::Bool(true)));
        assert!(closed(&binary(BinaryOp::Or, false_, undefined)).is_err());
    }

    #[test]
    fn a_recursive_function_is_computed_by_its_definition() {
        let functions = [pow2(Vec::new())];
        let evaluate =
            |n: i64| Evaluator::new(&functions, 10_000).call(FunctionId(0), vec![Value::int(n)], Span::default());
        let powers: Vec<i64> = (-4..=40).filter(|&n| evaluate(n) == Ok(Value::Bool(true))).collect();
        assert_eq!(powers, [1, 2, 4, 8, 16, 32]);
    }

    #[test]
    fn a_call_that_breaks_the_precondition_has_no_value() {
        let functions = [pow2(vec![binary(BinaryOp::Gt, var(0), int(0))])];
        let evaluator = Evaluator::new(&functions, 10_000);
        assert_eq!(evaluator.call(FunctionId(0), vec![Value::int(8)], Span::default()), Ok(Value::Bool(true)));
        assert!(matches!(
            evaluator.call(FunctionId(0), vec![Value::int(0)], Span::default()),
            Err(EvalError::PreconditionFailed { .. })
        ));
    }

    #[test]
    fn a_call_that_does_not_terminate_runs_out_of_steps() {
        // `f(n) = f(n + 1)`.
        let mut looping = pow2(Vec::new());
        looping.body = call(0, vec![binary(BinaryOp::Add, var(0), int(1))]);
        let functions = [looping];
        let evaluator = Evaluator::new(&functions, 1_000_000);
        assert_eq!(evaluator.call(FunctionId(0), vec![Value::int(0)], Span::default()), Err(EvalError::OutOfSteps));
    }

    #[test]
    fn ranges_bound_their_variable_through_linear_terms() {
        let k = || var(1);
        let values = |range: Expr| {
            let found = Evaluator::new(&[], 10_000).range(VarId(1), &range, &Empty).expect("bounded");
            found.iter().map(|value| value.to_string()).collect::<Vec<_>>().join(" ")
        };
        // 0 <= k && 3 + 4*k < 20: k in 0..=4.
        let strided = binary(
            BinaryOp::And,
            binary(BinaryOp::Le, int(0), k()),
            binary(BinaryOp::Lt, binary(BinaryOp::Add, int(3), binary(BinaryOp::Mul, int(4), k())), int(20)),
        );
        assert_eq!(values(strided), "0 1 2 3 4");
        // k >= -3 && 0 <= 10 - 2*k: k in -3..=5 (the coefficient is negative).
        let falling = binary(
            BinaryOp::And,
            binary(BinaryOp::Ge, k(), int(-3)),
            binary(BinaryOp::Le, int(0), binary(BinaryOp::Sub, int(10), binary(BinaryOp::Mul, int(2), k()))),
        );
        assert_eq!(values(falling), "-3 -2 -1 0 1 2 3 4 5");
        // -7 < 2*k && k*3 <= 7: k in -3..=2 (rounding inwards on both sides).
        let rounded = binary(
            BinaryOp::And,
            binary(BinaryOp::Lt, int(-7), binary(BinaryOp::Mul, int(2), k())),
            binary(BinaryOp::Le, binary(BinaryOp::Mul, k(), int(3)), int(7)),
        );
        assert_eq!(values(rounded), "-3 -2 -1 0 1 2");
    }

    #[test]
    fn quantifiers_range_over_the_bounds_of_their_range() {
        // (\forall int i; 0 <= i && i < n; i * i < 50) for n = 8 (up to 7 * 7 = 49) and n = 9.
        let quantified = |n: i64, quantifier| {
            let range =
                binary(BinaryOp::And, binary(BinaryOp::Le, int(0), var(1)), binary(BinaryOp::Lt, var(1), int(n)));
            let body = binary(BinaryOp::Lt, binary(BinaryOp::Mul, var(1), var(1)), int(50));
            let kind = ExprKind::Quantifier { quantifier, var: VarId(1), range: Box::new(range), body: Box::new(body) };
            closed(&expr(kind, Type::Bool))
        };
        assert_eq!(quantified(8, Quantifier::Forall), Ok(Value::Bool(true)));
        assert_eq!(quantified(9, Quantifier::Forall), Ok(Value::Bool(false)));
        assert_eq!(quantified(0, Quantifier::Exists), Ok(Value::Bool(false)));
        let unbounded = ExprKind::Quantifier {
            quantifier: Quantifier::Forall,
            var: VarId(1),
            range: Box::new(binary(BinaryOp::Le, int(0), var(1))),
            body: Box::new(binary(BinaryOp::Le, int(0), var(1))),
        };
        assert!(matches!(closed(&expr(unbounded, Type::Bool)), Err(EvalError::UnboundedQuantifier { .. })));
    }
}
