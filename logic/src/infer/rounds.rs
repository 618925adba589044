//! Candidate bounds on the values that a loop of barriers computes round by round (issue 16): a
//! tree reduction adds `tmp[l + s]` into `tmp[l]` for `s = 8, 4, 2, 1`, Pascal's triangle adds
//! `tmp[i - 1]` into `bin[i]` for `N = 1, 2, ...`. In C a signed sum must not overflow
//! (`arith.overflow`), so the thread has to know how large the values it adds can be, and that
//! depends on the round: `1 <= tmp[x] <= 2` when `s == 4`, `<= 4` when `s == 2`. No bound fixed
//! for all rounds holds from one round to the next (each round doubles it).
//!
//! So the kernel's body is run once over intervals, a round at a time: each loop that holds a
//! barrier, whose *counter* (a variable the body assigns) has one value at the head, is
//! unrolled for as long as its condition may hold (its bound from the launch's facts: a work
//! group of at most 8 items). Each array is one interval, joined over every write of every
//! thread (the ids are unknown); a read of an array nothing has written yet is unknown, and an
//! array the kernel never writes has the interval its launch facts give (`in[tid] == 1`). The
//! candidates, one per cell a thread holds there, are:
//!
//! - at the head of such a loop, `c == 8 || c == 4 || ...`: the counter's values, and for each
//!   cell of its invariant's resources, `g ==> (c == 8 ==> lo <= a[e] && a[e] <= hi) && ...`;
//! - at each barrier in it, or at the top of the body, the same for each cell the thread holds
//!   before the barrier (its precondition) and after it (its postcondition).
//!
//! They are guesses, as Houdini makes them: an interval joined over all threads is wider than
//! any one thread's, and a read of a cell the thread did not write may find anything, so each is
//! checked like a written clause and dropped when it fails ([`super::Inferred::without`]). A
//! kernel whose arithmetic cannot overflow (PVL's integers, or C with `--wrapping-integers`)
//! gets none: a bound is then of no use to it.

use super::footprint::{self, same, Footprint};
use super::values::BarrierValues;
use crate::{
    ArrayId, BarrierId, BinaryOp, Block, Builtin, Expr, ExprKind, Kernel, Span, Stmt, StmtKind, Type, UnaryOp, VarId,
};
use num_bigint::BigInt;
use std::collections::{BTreeSet, HashMap};

/// At most this many rounds of one loop are run: a loop that may run longer gets no candidates.
const MOST_ROUNDS: usize = 64;

/// The candidates of the loops, by their statement.
#[derive(Default)]
pub(super) struct LoopBounds {
    /// Facts of the counter alone, which read no memory.
    pub counter: Vec<Expr>,
    /// Bounds on the cells the loop's invariant holds, which its permissions frame.
    pub cells: Vec<Expr>,
}

/// What inference found the thread holds at each point where candidates are stated.
pub(super) struct Held<'f> {
    /// At the launch.
    pub launch: &'f Footprint,
    /// After each barrier: its resources.
    pub barriers: &'f HashMap<BarrierId, Footprint>,
    /// At the head of each loop that holds a barrier.
    pub loops: &'f HashMap<*const Stmt, Footprint>,
}

/// The candidates of the barriers and of the loops of `kernel`.
pub(super) fn candidates(
    kernel: &Kernel,
    held: &Held,
) -> (Vec<(BarrierId, BarrierValues)>, HashMap<*const Stmt, LoopBounds>) {
    let mut run = Run {
        kernel,
        held,
        builtins: launch_bounds(kernel),
        holding: cells(held.launch),
        changed: BTreeSet::new(),
        counter: None,
        barriers: HashMap::new(),
        loops: HashMap::new(),
        overflow_checked: false,
    };
    let mut start = State::default();
    for (array, bounds) in array_bounds(kernel) {
        start.arrays.insert(array, bounds);
    }
    if run.block(&kernel.body, start).is_none() || !run.overflow_checked {
        return Default::default();
    }
    let mut barriers: Vec<(BarrierId, BarrierValues)> = run
        .barriers
        .into_iter()
        .map(|(id, visits)| {
            let after = held.barriers.get(&id).map(cells).unwrap_or_default();
            let clauses = |cells: &[Cell]| {
                cells.iter().filter_map(|cell| bounds_by_round(kernel, visits.counter, &visits.rounds, cell)).collect()
            };
            (id, BarrierValues { requires: clauses(&visits.before), ensures: clauses(&after) })
        })
        .collect();
    barriers.sort_by_key(|(id, _)| *id);
    let loops = run
        .loops
        .into_iter()
        .map(|(stmt, Heads { counter, rounds })| {
            let span = kernel.span;
            let mut values: Vec<&BigInt> = rounds.iter().map(|(value, _)| value).collect();
            values.sort();
            values.dedup();
            let set = values
                .into_iter()
                .map(|value| is_value(counter, value, span))
                .reduce(|lhs, rhs| footprint::binary(BinaryOp::Or, lhs, rhs));
            let resources = held.loops.get(&stmt).map(cells).unwrap_or_default();
            let rounds: Vec<(Option<BigInt>, State)> =
                rounds.into_iter().map(|(value, state)| (Some(value), state)).collect();
            let bounds =
                resources.iter().filter_map(|cell| bounds_by_round(kernel, Some(counter), &rounds, cell)).collect();
            (stmt, LoopBounds { counter: set.into_iter().collect(), cells: bounds })
        })
        .collect();
    (barriers, loops)
}

/// The integers from `lo` to `hi`, either end open where `None`.
#[derive(Clone, Debug, PartialEq)]
struct Interval {
    lo: Option<BigInt>,
    hi: Option<BigInt>,
}

impl Interval {
    fn unknown() -> Interval {
        Interval { lo: None, hi: None }
    }

    fn exactly(value: BigInt) -> Interval {
        Interval { lo: Some(value.clone()), hi: Some(value) }
    }

    fn boolean(value: Option<bool>) -> Interval {
        match value {
            Some(value) => Interval::exactly(BigInt::from(value as u8)),
            None => Interval { lo: Some(BigInt::from(0)), hi: Some(BigInt::from(1)) },
        }
    }

    /// The one value, if it has one.
    fn value(&self) -> Option<&BigInt> {
        match (&self.lo, &self.hi) {
            (Some(lo), Some(hi)) if lo == hi => Some(lo),
            _ => None,
        }
    }

    /// As a condition: `Some(true)` when it holds for every value, `Some(false)` when for none.
    fn truth(&self) -> Option<bool> {
        let zero = BigInt::from(0);
        if self.value() == Some(&zero) {
            Some(false)
        } else if self.lo.as_ref().is_some_and(|lo| *lo > zero) || self.hi.as_ref().is_some_and(|hi| *hi < zero) {
            Some(true)
        } else {
            None
        }
    }

    fn join(&self, other: &Interval) -> Interval {
        let lo = self.lo.as_ref().zip(other.lo.as_ref()).map(|(a, b)| a.min(b).clone());
        let hi = self.hi.as_ref().zip(other.hi.as_ref()).map(|(a, b)| a.max(b).clone());
        Interval { lo, hi }
    }

    fn plus(&self, other: &Interval) -> Interval {
        let add = |a: &Option<BigInt>, b: &Option<BigInt>| a.as_ref().zip(b.as_ref()).map(|(a, b)| a + b);
        Interval { lo: add(&self.lo, &other.lo), hi: add(&self.hi, &other.hi) }
    }

    fn negated(&self) -> Interval {
        Interval { lo: self.hi.as_ref().map(|hi| -hi), hi: self.lo.as_ref().map(|lo| -lo) }
    }

    fn times(&self, other: &Interval) -> Interval {
        let (Some(a), Some(b), Some(c), Some(d)) = (&self.lo, &self.hi, &other.lo, &other.hi) else {
            return Interval::unknown();
        };
        let products = [a * c, a * d, b * c, b * d];
        Interval { lo: products.iter().min().cloned(), hi: products.iter().max().cloned() }
    }

    /// Truncating division by a positive constant, monotone in the dividend.
    fn divided(&self, divisor: &BigInt) -> Interval {
        Interval { lo: self.lo.as_ref().map(|lo| lo / divisor), hi: self.hi.as_ref().map(|hi| hi / divisor) }
    }

    /// `lhs < rhs` (`strict`) or `lhs <= rhs`, over every pair of values.
    fn less(&self, other: &Interval, strict: bool) -> Option<bool> {
        let below = |a: &BigInt, b: &BigInt| if strict { a < b } else { a <= b };
        if let (Some(hi), Some(lo)) = (&self.hi, &other.lo) {
            if below(hi, lo) {
                return Some(true);
            }
        }
        if let (Some(lo), Some(hi)) = (&self.lo, &other.hi) {
            if !below(lo, hi) {
                return Some(false);
            }
        }
        None
    }
}

/// The intervals at a point: each scalar's (unknown where absent), and each array's over all of
/// its cells (absent while nothing has written it, unless the launch tells it).
#[derive(Clone, Default)]
struct State {
    scalars: HashMap<VarId, Interval>,
    arrays: HashMap<ArrayId, Interval>,
}

impl State {
    /// What holds after either of two ways.
    fn join(&self, other: &State) -> State {
        let scalars = self
            .scalars
            .iter()
            .filter_map(|(var, mine)| other.scalars.get(var).map(|theirs| (*var, mine.join(theirs))))
            .collect();
        let mut arrays = self.arrays.clone();
        for (array, theirs) in &other.arrays {
            let joined = arrays.get(array).map_or_else(|| theirs.clone(), |mine| mine.join(theirs));
            arrays.insert(*array, joined);
        }
        State { scalars, arrays }
    }
}

/// A cell a thread holds: `guard ==> Perm(&array[index], _)`.
#[derive(Clone)]
struct Cell {
    guard: Vec<Expr>,
    array: ArrayId,
    index: Expr,
}

/// The single cells of a footprint, each once (a range over binders states no one cell).
fn cells(footprint: &Footprint) -> Vec<Cell> {
    let mut found: Vec<Cell> = Vec::new();
    for access in footprint.accesses.iter().filter(|access| access.binders.is_empty()) {
        let cell = Cell { guard: access.guards.clone(), array: access.array, index: access.index.clone() };
        let same_guard = |other: &Cell| {
            other.guard.len() == cell.guard.len() && other.guard.iter().zip(&cell.guard).all(|(a, b)| same(a, b))
        };
        if !found.iter().any(|other| other.array == cell.array && same(&other.index, &cell.index) && same_guard(other))
        {
            found.push(cell);
        }
    }
    found
}

/// The value `var` had before `var = value`, in its new value, where the assignment adds to it
/// (`N = N + 1` had `N - 1`; C's range check on a signed sum taken off).
fn undone(var: VarId, value: &Expr) -> Option<Expr> {
    let value = match &value.kind {
        ExprKind::InRange { value, .. } => value,
        _ => value,
    };
    let ExprKind::Binary { op: op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs } = &value.kind else { return None };
    let is_var = |expr: &Expr| matches!(expr.kind, ExprKind::Var(found) if found == var);
    let now = footprint::var(var, value.span);
    match op {
        BinaryOp::Add if is_var(lhs) && !rhs.mentions(var) => {
            Some(footprint::binary(BinaryOp::Sub, now, (**rhs).clone()))
        }
        BinaryOp::Add if is_var(rhs) && !lhs.mentions(var) => {
            Some(footprint::binary(BinaryOp::Sub, now, (**lhs).clone()))
        }
        BinaryOp::Sub if is_var(lhs) && !rhs.mentions(var) => {
            Some(footprint::binary(BinaryOp::Add, now, (**rhs).clone()))
        }
        _ => None,
    }
}

/// A loop the run unrolled: its counter, and the intervals at its head, a round each (the last
/// the one where the loop ends).
struct Heads {
    counter: VarId,
    rounds: Vec<(BigInt, State)>,
}

/// The rounds in which the run reached a barrier.
#[derive(Default)]
struct Visits {
    /// The counter of the loop around it, if any.
    counter: Option<VarId>,
    /// The counter's value and the intervals, each time.
    rounds: Vec<(Option<BigInt>, State)>,
    /// The cells the thread holds before it.
    before: Vec<Cell>,
}

struct Run<'k, 'f> {
    kernel: &'k Kernel,
    held: &'f Held<'f>,
    builtins: HashMap<Builtin, Interval>,
    /// What the thread holds since the last barrier, launch or loop head, in the variables' current
    /// values; `changed` are the variables assigned since in a way that cannot be undone, which
    /// no cell of it may name.
    holding: Vec<Cell>,
    changed: BTreeSet<VarId>,
    /// The counter of the loop being unrolled.
    counter: Option<VarId>,
    barriers: HashMap<BarrierId, Visits>,
    loops: HashMap<*const Stmt, Heads>,
    /// Whether some arithmetic of the code must not overflow.
    overflow_checked: bool,
}

impl Run<'_, '_> {
    /// The intervals after `block`, or `None` where the run gives up.
    fn block(&mut self, block: &Block, mut state: State) -> Option<State> {
        for stmt in &block.stmts {
            state = self.stmt(stmt, state)?;
        }
        Some(state)
    }

    fn stmt(&mut self, stmt: &Stmt, mut state: State) -> Option<State> {
        match &stmt.kind {
            StmtKind::Declare { var, init } => {
                let value = init.as_ref().map_or_else(Interval::unknown, |init| self.eval(init, &state));
                state.scalars.insert(*var, value);
                self.changed.insert(*var);
            }
            StmtKind::Assign { var, value } => {
                match undone(*var, value) {
                    // `N = N + 1`: a cell held as `bin[N]` before is `bin[N - 1]` now.
                    Some(before) => {
                        let values = HashMap::from([(*var, before)]);
                        for cell in &mut self.holding {
                            cell.index = cell.index.substitute(&values);
                            cell.guard = cell.guard.iter().map(|guard| guard.substitute(&values)).collect();
                        }
                    }
                    None => {
                        self.changed.insert(*var);
                    }
                }
                let value = self.eval(value, &state);
                state.scalars.insert(*var, value);
            }
            StmtKind::Write { array, value, index } => {
                self.eval(index, &state);
                let value = self.eval(value, &state);
                let joined = state.arrays.get(array).map_or_else(|| value.clone(), |old| old.join(&value));
                state.arrays.insert(*array, joined);
            }
            StmtKind::If { cond, then_branch, else_branch } => {
                let truth = self.eval(cond, &state).truth();
                let then_state = match truth {
                    Some(false) => None,
                    _ => Some(self.block(then_branch, state.clone())?),
                };
                let else_state = match (truth, else_branch) {
                    (Some(true), _) => None,
                    (_, Some(block)) => Some(self.block(block, state.clone())?),
                    (_, None) => Some(state),
                };
                state = match (then_state, else_state) {
                    (Some(then_state), Some(else_state)) => then_state.join(&else_state),
                    (Some(only), None) | (None, Some(only)) => only,
                    (None, None) => unreachable!("a condition is true, false or either"),
                };
            }
            StmtKind::While { cond, body, .. } if super::has_barrier(&body.stmts) => {
                state = self.rounds(stmt, cond, body, state)?;
            }
            StmtKind::While { body, .. } => {
                // A loop without a barrier is not unrolled: what it assigns or writes is unknown.
                let mut assigned = BTreeSet::new();
                super::assigned_vars(&body.stmts, &mut assigned);
                for var in assigned {
                    state.scalars.remove(&var);
                    self.changed.insert(var);
                }
                for array in 0..self.kernel.arrays.len() {
                    let array = ArrayId(array as u32);
                    if body.stmts.iter().any(|stmt| stmt.writes(array)) {
                        state.arrays.insert(array, Interval::unknown());
                    }
                }
            }
            StmtKind::Barrier(id) => {
                let counter = self.counter;
                let value = counter.map(|var| state.scalars.get(&var).and_then(Interval::value).cloned());
                let value = match value {
                    Some(None) => return None,
                    Some(Some(value)) => Some(value),
                    None => None,
                };
                let before = self.holding_cells();
                let visits = self.barriers.entry(*id).or_default();
                visits.counter = counter;
                visits.before = before;
                visits.rounds.push((value, state.clone()));
                self.holding = self.held.barriers.get(id).map(cells).unwrap_or_default();
                self.changed.clear();
            }
            StmtKind::Assert(_) => {}
            StmtKind::Assume(fact) => {
                self.eval(fact, &state);
            }
            StmtKind::Block(block) => state = self.block(block, state)?,
        }
        Some(state)
    }

    /// A loop that holds a barrier, unrolled a round at a time while its condition may hold.
    fn rounds(&mut self, stmt: &Stmt, cond: &Expr, body: &Block, mut state: State) -> Option<State> {
        // Loops of barriers in loops of barriers are not unrolled.
        if self.counter.is_some() {
            return None;
        }
        let mut assigned = BTreeSet::new();
        super::assigned_vars(&body.stmts, &mut assigned);
        let counter = assigned.into_iter().find(|var| state.scalars.get(var).and_then(Interval::value).is_some())?;
        let head = self.held.loops.get(&(stmt as *const Stmt)).map(cells).unwrap_or_default();
        self.counter = Some(counter);
        let mut heads = Vec::new();
        let mut exit: Option<State> = None;
        for _ in 0..MOST_ROUNDS {
            let value = state.scalars.get(&counter).and_then(Interval::value)?.clone();
            heads.push((value, state.clone()));
            let truth = self.eval(cond, &state).truth();
            if truth != Some(true) {
                exit = Some(exit.map_or_else(|| state.clone(), |exit| exit.join(&state)));
            }
            if truth == Some(false) {
                self.counter = None;
                self.loops.insert(stmt as *const Stmt, Heads { counter, rounds: heads });
                self.holding = head;
                self.changed.clear();
                return exit;
            }
            self.holding = head.clone();
            self.changed.clear();
            state = self.block(body, state)?;
        }
        None
    }

    /// The cells held that name no variable assigned since they were taken.
    fn holding_cells(&self) -> Vec<Cell> {
        self.holding
            .iter()
            .filter(|cell| {
                !self.changed.iter().any(|&var| cell.index.mentions(var) || cell.guard.iter().any(|g| g.mentions(var)))
            })
            .cloned()
            .collect()
    }

    fn eval(&mut self, expr: &Expr, state: &State) -> Interval {
        match &expr.kind {
            ExprKind::Int(value) => Interval::exactly(value.clone()),
            ExprKind::Bool(value) => Interval::boolean(Some(*value)),
            ExprKind::Builtin(builtin) => self.builtins.get(builtin).cloned().unwrap_or_else(Interval::unknown),
            ExprKind::Var(var) => state.scalars.get(var).cloned().unwrap_or_else(Interval::unknown),
            ExprKind::Read { array, index } => {
                self.eval(index, state);
                state.arrays.get(array).cloned().unwrap_or_else(Interval::unknown)
            }
            ExprKind::Unary { op: UnaryOp::Neg, operand } => self.eval(operand, state).negated(),
            ExprKind::Unary { op: UnaryOp::Not, operand } => {
                Interval::boolean(self.eval(operand, state).truth().map(|truth| !truth))
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (lhs, rhs) = (self.eval(lhs, state), self.eval(rhs, state));
                binary(*op, &lhs, &rhs)
            }
            ExprKind::Cond { cond, then_value, else_value } => {
                let truth = self.eval(cond, state).truth();
                let (then_value, else_value) = (self.eval(then_value, state), self.eval(else_value, state));
                match truth {
                    Some(true) => then_value,
                    Some(false) => else_value,
                    None => then_value.join(&else_value),
                }
            }
            ExprKind::InRange { value, .. } => {
                self.overflow_checked = true;
                self.eval(value, state)
            }
            ExprKind::PrivateIndex { index, .. } => self.eval(index, state),
            ExprKind::Old(inner) => self.eval(inner, state),
            ExprKind::Call { .. }
            | ExprKind::Quantifier { .. }
            | ExprKind::Sum { .. }
            | ExprKind::Result
            | ExprKind::Ticket { .. } => Interval::unknown(),
        }
    }
}

fn binary(op: BinaryOp, lhs: &Interval, rhs: &Interval) -> Interval {
    let exact = lhs.value().zip(rhs.value());
    let zero = BigInt::from(0);
    match op {
        BinaryOp::Add => lhs.plus(rhs),
        BinaryOp::Sub => lhs.plus(&rhs.negated()),
        BinaryOp::Mul => lhs.times(rhs),
        BinaryOp::Div => match (exact, rhs.value()) {
            (Some((a, b)), _) if *b != zero => Interval::exactly(a / b),
            (_, Some(b)) if *b > zero => lhs.divided(b),
            _ => Interval::unknown(),
        },
        BinaryOp::Rem => match exact {
            Some((a, b)) if *b != zero => Interval::exactly(a % b),
            _ => Interval::unknown(),
        },
        BinaryOp::Mod => match rhs.value() {
            Some(m) if *m != zero => {
                let m = if *m < zero { -m } else { m.clone() };
                let within = lhs.lo.as_ref().is_some_and(|lo| *lo >= zero) && lhs.hi.as_ref().is_some_and(|hi| *hi < m);
                match lhs.value() {
                    Some(a) => Interval::exactly(((a % &m) + &m) % &m),
                    None if within => lhs.clone(),
                    None => Interval { lo: Some(zero), hi: Some(m - 1) },
                }
            }
            _ => Interval::unknown(),
        },
        BinaryOp::Lt => Interval::boolean(lhs.less(rhs, true)),
        BinaryOp::Le => Interval::boolean(lhs.less(rhs, false)),
        BinaryOp::Gt => Interval::boolean(rhs.less(lhs, true)),
        BinaryOp::Ge => Interval::boolean(rhs.less(lhs, false)),
        BinaryOp::Eq | BinaryOp::Ne => {
            let equal = match exact {
                Some((a, b)) => Some(a == b),
                // Disjoint intervals are never equal.
                None if lhs.less(rhs, true) == Some(true) || rhs.less(lhs, true) == Some(true) => Some(false),
                None => None,
            };
            Interval::boolean(if op == BinaryOp::Eq { equal } else { equal.map(|equal| !equal) })
        }
        BinaryOp::And | BinaryOp::Or | BinaryOp::Implies => {
            let (a, b) = (lhs.truth(), rhs.truth());
            let truth = match op {
                BinaryOp::And if a == Some(false) || b == Some(false) => Some(false),
                BinaryOp::And => a.zip(b).map(|_| true),
                BinaryOp::Or if a == Some(true) || b == Some(true) => Some(true),
                BinaryOp::Or => a.zip(b).map(|_| false),
                _ if a == Some(false) || b == Some(true) => Some(true),
                _ => a.zip(b).map(|_| false),
            };
            Interval::boolean(truth)
        }
    }
}

/// The conjuncts of the thread's precondition.
fn launch_facts(kernel: &Kernel) -> Vec<&Expr> {
    kernel.thread_contract.requires.iter().flat_map(|clause| super::facts_of(&clause.assertion)).collect()
}

/// A fact `x op c` (or `c op x`) as `x`'s interval, `x` the subexpression `place` accepts.
fn bound_of<T>(fact: &Expr, place: &dyn Fn(&Expr) -> Option<T>) -> Option<(T, Interval)> {
    let ExprKind::Binary { op, lhs, rhs } = &fact.kind else { return None };
    let (subject, value, flipped) = match (place(lhs), constant(rhs), constant(lhs), place(rhs)) {
        (Some(subject), Some(value), _, _) => (subject, value, false),
        (_, _, Some(value), Some(subject)) => (subject, value, true),
        _ => return None,
    };
    let value = &value;
    let one = BigInt::from(1);
    let (lo, hi) = match (op, flipped) {
        (BinaryOp::Eq, _) => (Some(value.clone()), Some(value.clone())),
        (BinaryOp::Le, false) | (BinaryOp::Ge, true) => (None, Some(value.clone())),
        (BinaryOp::Lt, false) | (BinaryOp::Gt, true) => (None, Some(value - &one)),
        (BinaryOp::Ge, false) | (BinaryOp::Le, true) => (Some(value.clone()), None),
        (BinaryOp::Gt, false) | (BinaryOp::Lt, true) => (Some(value + &one), None),
        _ => return None,
    };
    Some((subject, Interval { lo, hi }))
}

/// The value of an expression of numbers alone (`-100`, `1 << 20` as C gives it).
fn constant(expr: &Expr) -> Option<BigInt> {
    match &expr.kind {
        ExprKind::Int(value) => Some(value.clone()),
        ExprKind::Unary { op: UnaryOp::Neg, operand } => constant(operand).map(|value| -value),
        ExprKind::InRange { value, .. } => constant(value),
        ExprKind::Binary { op, lhs, rhs } => {
            let (lhs, rhs) = (Interval::exactly(constant(lhs)?), Interval::exactly(constant(rhs)?));
            binary(*op, &lhs, &rhs).value().cloned()
        }
        _ => None,
    }
}

/// Narrows `entry` by `bound` (a fact meets what is known already).
fn meet(entry: &mut Interval, bound: Interval) {
    if let Some(lo) = bound.lo {
        entry.lo = Some(entry.lo.take().map_or(lo.clone(), |old| old.max(lo)));
    }
    if let Some(hi) = bound.hi {
        entry.hi = Some(entry.hi.take().map_or(hi.clone(), |old| old.min(hi)));
    }
}

/// The sizes of the launch as the precondition bounds them: a size is at least 1.
fn launch_bounds(kernel: &Kernel) -> HashMap<Builtin, Interval> {
    let is_size = |builtin: &Builtin| {
        matches!(builtin, Builtin::Gsize | Builtin::Tcount | Builtin::GroupSize(_) | Builtin::Groups(_))
    };
    let mut bounds: HashMap<Builtin, Interval> = HashMap::new();
    for fact in launch_facts(kernel) {
        let place = |expr: &Expr| match expr.kind {
            ExprKind::Builtin(builtin) if is_size(&builtin) => Some(builtin),
            _ => None,
        };
        if let Some((builtin, bound)) = bound_of(fact, &place) {
            let entry = bounds.entry(builtin).or_insert(Interval { lo: Some(BigInt::from(1)), hi: None });
            meet(entry, bound);
        }
    }
    bounds
}

/// The values the precondition gives the cells of arrays no statement writes (`in[tid] == 1`):
/// the same bound for every cell, as the precondition states it for every thread's.
fn array_bounds(kernel: &Kernel) -> HashMap<ArrayId, Interval> {
    let mut bounds: HashMap<ArrayId, Interval> = HashMap::new();
    for fact in launch_facts(kernel) {
        let place = |expr: &Expr| match &expr.kind {
            ExprKind::Read { array, .. } if !kernel.writes(*array) => Some(*array),
            _ => None,
        };
        if let Some((array, bound)) = bound_of(fact, &place) {
            meet(bounds.entry(array).or_insert_with(Interval::unknown), bound);
        }
    }
    bounds
}

fn int(value: &BigInt, span: Span) -> Expr {
    footprint::int_of(value.clone(), span)
}

/// `counter == value`.
fn is_value(counter: VarId, value: &BigInt, span: Span) -> Expr {
    footprint::binary(BinaryOp::Eq, footprint::var(counter, span), int(value, span))
}

/// `lo <= cell && cell <= hi` (either side that is bounded; `cell == v` for one value), or `None`
/// when neither is.
fn within(cell: &Expr, interval: &Interval) -> Option<Expr> {
    let span = cell.span;
    if let Some(value) = interval.value() {
        return Some(footprint::binary(BinaryOp::Eq, cell.clone(), int(value, span)));
    }
    let lo = interval.lo.as_ref().map(|lo| footprint::binary(BinaryOp::Le, int(lo, span), cell.clone()));
    let hi = interval.hi.as_ref().map(|hi| footprint::binary(BinaryOp::Le, cell.clone(), int(hi, span)));
    lo.into_iter().chain(hi).reduce(|lhs, rhs| footprint::binary(BinaryOp::And, lhs, rhs))
}

/// The candidate bound of `cell` over the rounds: `g ==> lo <= a[e] && a[e] <= hi` where every
/// round has the same interval, else `g ==> (c == v ==> ...) && ...` a round each. `None` for an
/// array the code never writes (its launch facts say it), or where some round has no bound.
fn bounds_by_round(
    kernel: &Kernel,
    counter: Option<VarId>,
    rounds: &[(Option<BigInt>, State)],
    cell: &Cell,
) -> Option<Expr> {
    if !kernel.writes(cell.array) {
        return None;
    }
    let span = kernel.span;
    let read =
        Expr { kind: ExprKind::Read { array: cell.array, index: Box::new(cell.index.clone()) }, ty: Type::Int, span };
    // Each counter value once, its intervals joined.
    let mut by_value: Vec<(Option<BigInt>, Interval)> = Vec::new();
    for (value, state) in rounds {
        let interval = state.arrays.get(&cell.array)?;
        match by_value.iter_mut().find(|(found, _)| found == value) {
            Some((_, found)) => *found = found.join(interval),
            None => by_value.push((value.clone(), interval.clone())),
        }
    }
    let first = &by_value.first()?.1;
    let bound = if by_value.iter().all(|(_, interval)| interval == first) {
        within(&read, first)?
    } else {
        let counter = counter?;
        let rounds: Option<Vec<Expr>> = by_value
            .iter()
            .map(|(value, interval)| {
                let round = is_value(counter, value.as_ref()?, span);
                Some(footprint::binary(BinaryOp::Implies, round, within(&read, interval)?))
            })
            .collect();
        rounds?.into_iter().reduce(|lhs, rhs| footprint::binary(BinaryOp::And, lhs, rhs))?
    };
    Some(if cell.guard.is_empty() {
        bound
    } else {
        footprint::binary(BinaryOp::Implies, footprint::all(cell.guard.clone(), span), bound)
    })
}
