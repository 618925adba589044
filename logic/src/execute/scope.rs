//! What the expressions of one thread see ([`View`]): its ids at a contract's level, its variables,
//! memory (recording the reads of code), and `\old`; and the permissions assertions name
//! ([`Claim`], [`Share`]).

use super::{beyond_reach, equations, Location, Machine};
use crate::eval::{Env, EvalError, Evaluator, Value};
use crate::{
    Amount, ArrayId, Assertion, AssertionKind, Axis, Builtin, ExprKind, MachineInt, Memory, Span, VarId, VarKind,
};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// A permission an assertion names: on which cell, how much, and where.
#[derive(Clone, Debug)]
pub(super) struct Claim {
    pub(super) location: Location,
    pub(super) share: Share,
    pub(super) span: Span,
}

/// The permission claims summed per cell.
pub(super) fn total(claims: &[Claim]) -> HashMap<Location, Share> {
    let mut sums: HashMap<Location, Share> = HashMap::new();
    for claim in claims {
        let sum = sums.entry(claim.location).or_default();
        *sum = sum.plus(&claim.share);
    }
    sums
}

/// An amount of permission: an exact fraction, plus some `read` amounts, each as small as needed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Share {
    pub fraction: BigRational,
    pub reads: u32,
}

impl Share {
    pub fn full() -> Share {
        Share { fraction: BigRational::one(), reads: 0 }
    }

    pub(super) fn plus(&self, other: &Share) -> Share {
        Share { fraction: &self.fraction + &other.fraction, reads: self.reads + other.reads }
    }

    pub(super) fn is_positive(&self) -> bool {
        self.fraction > BigRational::zero() || self.reads > 0
    }

    /// Whether this much can be taken out of `whole`: a `read` amount is as small as needed, so
    /// any number of them fit in what is left of a fraction, or in other `read` amounts.
    pub fn fits_in(&self, whole: &Share) -> bool {
        self.fraction < whole.fraction || (self.fraction == whole.fraction && (self.reads == 0 || whole.reads > 0))
    }
}

impl std::fmt::Display for Share {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reads = match self.reads {
            0 => String::new(),
            1 => "a read amount".into(),
            n => format!("{n} read amounts"),
        };
        match (self.fraction.is_zero(), reads.is_empty()) {
            (true, true) => f.write_str("no permission"),
            (true, false) => f.write_str(&reads),
            (false, true) => write!(f, "{}", self.fraction),
            (false, false) => write!(f, "{} and {reads}", self.fraction),
        }
    }
}

/// Why a contract's pure facts do not hold: a false fact (its span), or no value.
pub(super) enum Failure {
    False(Span),
    Error(EvalError),
}

/// The cells an expression of code read, in order, with the places of the reads.
pub(super) type Reads = RefCell<Vec<(ArrayId, usize, Span, usize)>>;

/// The scope of one thread's expressions.
pub(super) struct View<'a, 'k> {
    pub(super) machine: &'a Machine<'k>,
    pub(super) thread: usize,
    pub(super) reads: Option<&'a Reads>,
    /// The variables of enclosing `\forall*`, innermost last (shared with the scope of `\old`).
    pub(super) bound: Rc<RefCell<Vec<(VarId, Value)>>>,
    /// The scope of `\old`, which reads the initial memory; `None` in that scope itself.
    pub(super) old: Option<Box<View<'a, 'k>>>,
    /// Which ids are in scope: a group's contract knows no `tid` or `lid`, the kernel's no `gid`
    /// either.
    pub(super) level: Level,
    /// How many permissions the assertion being checked has named so far: each read records it,
    /// so that framing reads left to right (the last field of [`Reads`]).
    pub(super) claimed: Cell<usize>,
}

/// The level of a contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Level {
    Kernel,
    Group,
    Thread,
}

impl View<'_, '_> {
    /// Checks the pure facts of an assertion, and collects the permissions it names.
    pub(super) fn assertion(
        &self,
        evaluator: &Evaluator,
        assertion: &Assertion,
        claims: &mut Vec<Claim>,
    ) -> Result<(), Failure> {
        match &assertion.kind {
            AssertionKind::Pure(fact) => match evaluator.expr(fact, self) {
                Ok(Value::Bool(true)) => Ok(()),
                Ok(_) => Err(Failure::False(fact.span)),
                Err(error) => Err(Failure::Error(error)),
            },
            AssertionKind::Perm(atom) => {
                let machine = self.machine;
                let index = evaluator.expr(&atom.index, self).map_err(Failure::Error)?;
                let Value::Int(index) = index else {
                    return Err(Failure::Error(EvalError::IllTyped { span: atom.index.span }));
                };
                let gid = machine.threads[self.thread].ids.gid;
                let size = machine.memory.cells(machine.kernel, atom.array, gid).len();
                let Some(cell) = index.to_usize().filter(|cell| *cell < size) else {
                    let span = assertion.span;
                    return Err(Failure::Error(EvalError::OutOfBounds { array: atom.array, index, size, span }));
                };
                let local = machine.kernel.array(atom.array).memory == Memory::Local;
                let location = Location { array: atom.array, group: local.then_some(gid), index: cell };
                let share = match &atom.amount {
                    Amount::Exact(fraction) => Share { fraction: fraction.clone(), reads: 0 },
                    Amount::Divided { fraction, divisor } => {
                        match evaluator.expr(divisor, self).map_err(Failure::Error)? {
                            Value::Int(value) if value > BigInt::zero() => {
                                Share { fraction: fraction / BigRational::from_integer(value), reads: 0 }
                            }
                            Value::Int(value) => {
                                let span = divisor.span;
                                return Err(Failure::Error(EvalError::NonPositiveAmount { divisor: value, span }));
                            }
                            _ => return Err(Failure::Error(EvalError::IllTyped { span: divisor.span })),
                        }
                    }
                    Amount::Read => Share { fraction: BigRational::zero(), reads: 1 },
                };
                claims.push(Claim { location, share, span: assertion.span });
                self.claimed.set(claims.len());
                Ok(())
            }
            AssertionKind::Star(left, right) => {
                self.assertion(evaluator, left, claims)?;
                self.assertion(evaluator, right, claims)
            }
            AssertionKind::Implies(guard, body) => match evaluator.expr(guard, self).map_err(Failure::Error)? {
                Value::Bool(true) => self.assertion(evaluator, body, claims),
                _ => Ok(()),
            },
            AssertionKind::Cond(cond, then_branch, else_branch) => {
                match evaluator.expr(cond, self).map_err(Failure::Error)? {
                    Value::Bool(true) => self.assertion(evaluator, then_branch, claims),
                    _ => self.assertion(evaluator, else_branch, claims),
                }
            }
            AssertionKind::ForallStar { var, range, body } => {
                let values = evaluator.range(*var, range, self).map_err(Failure::Error)?;
                for value in values {
                    self.bound.borrow_mut().push((*var, Value::Int(value)));
                    let result = self.assertion(evaluator, body, claims);
                    self.bound.borrow_mut().pop();
                    result?;
                }
                Ok(())
            }
        }
    }

    /// The cells the equations `a[i] == e` of an assertion pin, where guards hold. A guard or side
    /// without a value pins nothing; an expression beyond the evaluator's reach stops the search.
    pub(super) fn equations(
        &self,
        evaluator: &Evaluator,
        assertion: &Assertion,
        pinned: &mut Vec<(ArrayId, usize, BigInt)>,
    ) -> Result<(), EvalError> {
        let truth = |expr: &crate::Expr| Ok(self.value(evaluator, expr)? == Some(Value::Bool(true)));
        match &assertion.kind {
            AssertionKind::Pure(fact) => self.fact_equations(evaluator, fact, pinned)?,
            AssertionKind::Perm(_) => {}
            AssertionKind::Star(left, right) => {
                self.equations(evaluator, left, pinned)?;
                self.equations(evaluator, right, pinned)?;
            }
            AssertionKind::Implies(guard, body) => {
                if truth(guard)? {
                    self.equations(evaluator, body, pinned)?;
                }
            }
            AssertionKind::Cond(cond, then_branch, else_branch) => {
                self.equations(evaluator, if truth(cond)? { then_branch } else { else_branch }, pinned)?;
            }
            AssertionKind::ForallStar { var, range, body } => {
                let values = match evaluator.range(*var, range, self) {
                    Err(error) if beyond_reach(&error) => return Err(error),
                    values => values.unwrap_or_default(),
                };
                for value in values {
                    self.bound.borrow_mut().push((*var, Value::Int(value)));
                    let found = self.equations(evaluator, body, pinned);
                    self.bound.borrow_mut().pop();
                    found?;
                }
            }
        }
        Ok(())
    }

    fn fact_equations(
        &self,
        evaluator: &Evaluator,
        fact: &crate::Expr,
        pinned: &mut Vec<(ArrayId, usize, BigInt)>,
    ) -> Result<(), EvalError> {
        for (lhs, rhs) in equations(fact) {
            for (cell, value) in [(lhs, rhs), (rhs, lhs)] {
                let ExprKind::Read { array, index } = &cell.kind else { continue };
                let (Some(Value::Int(index)), Some(Value::Int(value))) =
                    (self.value(evaluator, index)?, self.value(evaluator, value)?)
                else {
                    continue;
                };
                if let Some(index) = index.to_usize() {
                    pinned.push((*array, index, value));
                }
                break;
            }
        }
        Ok(())
    }

    /// The value of `expr`, `None` if it has none, or the error if it is beyond the evaluator's
    /// reach.
    fn value(&self, evaluator: &Evaluator, expr: &crate::Expr) -> Result<Option<Value>, EvalError> {
        match evaluator.expr(expr, self) {
            Err(error) if beyond_reach(&error) => Err(error),
            value => Ok(value.ok()),
        }
    }
}

impl Env for View<'_, '_> {
    fn builtin(&self, builtin: Builtin, span: Span) -> Result<Value, EvalError> {
        let ids = self.machine.threads[self.thread].ids;
        let launch = &self.machine.launch;
        let in_scope = match self.level {
            Level::Thread => true,
            Level::Group => !builtin.is_thread_specific(),
            Level::Kernel => !builtin.is_thread_specific() && !builtin.is_group_specific(),
        };
        if !in_scope {
            return Err(EvalError::Unavailable { span, what: format!("`{}` at this level", builtin.name()) });
        }
        Ok(Value::int(match builtin {
            Builtin::Tid => ids.tid,
            Builtin::Gid => ids.gid,
            Builtin::Lid => ids.lid,
            Builtin::Tcount => launch.tcount(),
            Builtin::Gsize => launch.gsize,
            Builtin::LocalId(axis) => along(ids.lid, &launch.axes.gsize, axis),
            Builtin::GroupId(axis) => along(ids.gid, &launch.axes.groups, axis),
            Builtin::GroupSize(axis) => launch.axes.gsize[axis as usize],
            Builtin::Groups(axis) => launch.axes.groups[axis as usize],
        }))
    }

    fn var(&self, var: VarId, span: Span) -> Result<Value, EvalError> {
        if let Some((_, value)) = self.bound.borrow().iter().rev().find(|(bound, _)| *bound == var) {
            return Ok(value.clone());
        }
        let kernel = self.machine.kernel;
        self.machine.threads[self.thread].vars[var.index()].clone().ok_or_else(|| EvalError::Unavailable {
            span,
            what: match kernel.var(var).kind {
                VarKind::Private => format!("`{}` (declared later)", kernel.var(var).name),
                _ => format!("`{}`", kernel.var(var).name),
            },
        })
    }

    fn read(&self, array: ArrayId, index: &BigInt, span: Span) -> Result<Value, EvalError> {
        let machine = self.machine;
        let gid = machine.threads[self.thread].ids.gid;
        let store = if self.old.is_some() { &machine.memory } else { &machine.initial };
        let cells = store.cells(machine.kernel, array, gid);
        let cell = index.to_usize().filter(|cell| *cell < cells.len()).ok_or_else(|| EvalError::OutOfBounds {
            array,
            index: index.clone(),
            size: cells.len(),
            span,
        })?;
        if let Some(reads) = self.reads {
            reads.borrow_mut().push((array, cell, span, self.claimed.get()));
        }
        Ok(Value::Int(cells[cell].clone()))
    }

    fn old(&self) -> Option<&dyn Env> {
        self.old.as_deref().map(|old| old as &dyn Env)
    }

    fn ticket(
        &self,
        counter: ArrayId,
        cell: &BigInt,
        site: u32,
        int: MachineInt,
        span: Span,
    ) -> Result<Value, EvalError> {
        let machine = self.machine;
        let gid = machine.threads[self.thread].ids.gid;
        let cells = machine.memory.cells(machine.kernel, counter, gid);
        let index = cell.to_usize().filter(|index| *index < cells.len()).ok_or_else(|| EvalError::OutOfBounds {
            array: counter,
            index: cell.clone(),
            size: cells.len(),
            span,
        })?;
        let group = (machine.kernel.array(counter).memory == Memory::Local).then_some(gid);
        let location = Location { array: counter, group, index };
        let mut tickets = machine.tickets.borrow_mut();
        let key = (self.thread, location, site);
        if let Some(value) = tickets.given.get(&key) {
            return Ok(Value::Int(value.clone()));
        }
        let made = tickets.made.entry(location).or_default();
        let value = int.wrap(&(&cells[index] + BigInt::from(*made)));
        *made += 1;
        tickets.given.insert(key, value.clone());
        Ok(Value::Int(value))
    }
}

/// The coordinate along `axis` of the linear id `id` in a box of these extents, `x` fastest.
fn along(id: u32, extents: &[u32; 3], axis: Axis) -> u32 {
    let below: u32 = extents[..axis as usize].iter().product();
    id / below % extents[axis as usize]
}
