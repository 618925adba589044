//! Candidate barrier clauses about values (issue 16): what a barrier hands over is not only
//! permission but the values the threads wrote before it, which the code after it computes with
//! (a tile copied from global memory and summed, a factor one thread loads into shared memory).
//! For each barrier that stands at the top of the kernel body, two families, in the thread's ids
//! only (a variable is replaced by the value the code before gave it, else no candidate names it):
//!
//! - *written*: a write `a[e] = v` in the interval before the barrier, under the conditions `g`
//!   of the branches around it, whose value reads no memory but arrays no statement writes (read
//!   as `\old`, their launch contents), gives the barrier precondition `g ==> a[e] == v`; and a
//!   read `a[r]` after the barrier, under its branches' conditions `h`, where `e` names `r` for
//!   the thread `w` of the group (`e` moves with the local id one to one, or a condition
//!   `lid == k` names the one writer), gives the postcondition
//!   `h && 0 <= w < gsize && g[w] ==> a[r] == v[w]`;
//! - *unchanged*: a read `a[r]` after the first barrier of an array no statement before it
//!   writes gives `h ==> a[r] == \old(a[r])` as both precondition and postcondition (past the
//!   first, the thread would need the cell's permission through the barriers between, which the
//!   inferred resources give only where the code accesses it).
//!
//! They are guesses, as Houdini makes them: each is checked like a written clause (the thread
//! proves the precondition, `barrier.functional` the postcondition from the group's
//! preconditions, `frame` and `access.bounds` their definedness), and the driver drops every one
//! that does not hold ([`super::Inferred::without`]). Each has a span of its own, empty and inside
//! the barrier statement, by which its checks are found.

use super::candidates::Known;
use super::footprint::{self, as_thread, named_thread, reads_memory, same};
use crate::{
    ArrayId, BarrierId, BinaryOp, Block, Builtin, Expr, ExprKind, Kernel, Stmt, StmtKind, Type, VarId, VarKind,
};

/// The candidate clauses of one barrier, as facts.
#[derive(Default)]
pub(super) struct BarrierValues {
    pub requires: Vec<Expr>,
    pub ensures: Vec<Expr>,
}

/// The candidates of each barrier at the top of `kernel`'s body; `other` is a fresh variable
/// for the writer's local id.
pub(super) fn candidates(kernel: &Kernel, other: VarId) -> Vec<(BarrierId, BarrierValues)> {
    let mut walk = Walk {
        kernel,
        other,
        known: Known::default(),
        guards: Some(Vec::new()),
        written: Vec::new(),
        pending: Vec::new(),
        after: None,
        out: Vec::new(),
        straight: true,
    };
    walk.block(&kernel.body, true);
    walk.close();
    walk.out
}

/// A write of the interval before a barrier, in the thread's ids.
#[derive(Clone)]
struct Write {
    array: ArrayId,
    index: Expr,
    value: Expr,
    guard: Expr,
}

/// The barrier whose following interval the walk is in.
struct After {
    barrier: BarrierId,
    /// The writes of the interval before it.
    writes: Vec<Write>,
    /// The arrays some statement before it writes.
    written: Vec<ArrayId>,
    values: BarrierValues,
}

struct Walk<'k> {
    kernel: &'k Kernel,
    other: VarId,
    known: Known,
    /// The conditions of the branches around the point, in the thread's ids; `None` where one
    /// cannot be told so.
    guards: Option<Vec<Expr>>,
    /// The arrays some statement so far writes.
    written: Vec<ArrayId>,
    /// The writes of the current interval.
    pending: Vec<Write>,
    after: Option<After>,
    out: Vec<(BarrierId, BarrierValues)>,
    /// Whether every thread comes straight from the launch to the point: no loop or barrier
    /// that not every thread reaches stands before it.
    straight: bool,
}

impl Walk<'_> {
    /// `top` when the block is the body's (or a block directly in it), where a barrier is one
    /// every thread reaches once.
    fn block(&mut self, block: &Block, top: bool) {
        for stmt in &block.stmts {
            self.stmt(stmt, top);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, top: bool) {
        match &stmt.kind {
            StmtKind::Declare { var, init } => {
                self.reads(init.iter());
                self.known.assign(*var, init.as_ref());
            }
            StmtKind::Assign { var, value } => {
                self.reads([value]);
                self.known.assign(*var, Some(value));
            }
            StmtKind::Write { array, index, value } => {
                self.reads([index, value]);
                self.write(*array, index, value);
            }
            StmtKind::Barrier(id) if top => {
                self.close();
                self.after = Some(After {
                    barrier: *id,
                    writes: std::mem::take(&mut self.pending),
                    written: self.written.clone(),
                    values: BarrierValues::default(),
                });
            }
            StmtKind::If { cond, then_branch, else_branch } if !super::has_barrier(std::slice::from_ref(stmt)) => {
                self.reads([cond]);
                let outer = self.guards.clone();
                let before = self.known.clone();
                let cond_here = self.in_ids(cond);
                self.guarded(&outer, cond_here.clone());
                self.block(then_branch, false);
                let mut then_known = std::mem::replace(&mut self.known, before);
                self.guarded(&outer, cond_here.map(|cond| footprint::not(&cond)));
                if let Some(block) = else_branch {
                    self.block(block, false);
                }
                then_known.join(&self.known);
                self.known = then_known;
                self.guards = outer;
            }
            StmtKind::Block(inner) => self.block(inner, top),
            StmtKind::Assert(assertion) => {
                if let crate::AssertionKind::Pure(fact) = &assertion.kind {
                    self.reads([fact]);
                }
            }
            StmtKind::Assume(fact) => self.reads([fact]),
            // A loop, or a barrier not every thread reaches once: the interval ends (no candidate
            // speaks of what follows), and what it writes is written.
            _ => {
                self.close();
                self.straight = false;
                let mut assigned = std::collections::BTreeSet::new();
                super::assigned_vars(std::slice::from_ref(stmt), &mut assigned);
                for var in assigned {
                    self.known.forget(var);
                }
                let kernel = self.kernel;
                for array in (0..kernel.arrays.len() as u32).map(ArrayId) {
                    if stmt.writes(array) {
                        self.written.push(array);
                    }
                }
                self.pending.clear();
            }
        }
    }

    /// The guards of a branch: the outer ones and `cond`, or none that can be told.
    fn guarded(&mut self, outer: &Option<Vec<Expr>>, cond: Option<Expr>) {
        self.guards = match (outer, cond) {
            (Some(outer), Some(cond)) => Some(outer.iter().cloned().chain([cond]).collect()),
            _ => None,
        };
    }

    /// Ends the interval after the current barrier: its candidates are made.
    fn close(&mut self) {
        if let Some(after) = self.after.take() {
            self.out.push((after.barrier, after.values));
        }
    }

    /// `expr` in the thread's ids and the kernel's parameters, where the code before tells the
    /// variables it names.
    fn in_ids(&self, expr: &Expr) -> Option<Expr> {
        let values = self.known.values();
        let expr = expr.substitute(values);
        let kernel = self.kernel;
        let uniform = |inner: &Expr| match inner.kind {
            ExprKind::Var(var) => kernel.var(var).kind == VarKind::KernelParam,
            ExprKind::Ticket { .. } | ExprKind::Call { .. } | ExprKind::Quantifier { .. } | ExprKind::Sum { .. } => {
                false
            }
            _ => true,
        };
        let mut parts = vec![&expr];
        while let Some(next) = parts.pop() {
            if !uniform(next) {
                return None;
            }
            next.children(&mut parts);
        }
        Some(footprint::simplified(&expr))
    }

    fn write(&mut self, array: ArrayId, index: &Expr, value: &Expr) {
        // An earlier write of the same cell is overwritten.
        let index_here = self.in_ids(index).filter(|index| !reads_memory(index));
        self.pending
            .retain(|write| write.array != array || index_here.as_ref().is_some_and(|at| !same(at, &write.index)));
        self.written.push(array);
        let kernel = self.kernel;
        let (Some(index), Some(guards)) = (index_here, &self.guards) else { return };
        let Some(value) = self.in_ids(value) else { return };
        // The value may read only arrays no statement writes: their launch contents.
        if value.any(|inner| matches!(inner.kind, ExprKind::Read { array, .. } if kernel.writes(array))) {
            return;
        }
        let value = launch_reads(&value);
        self.pending.push(Write {
            array,
            index,
            value,
            guard: footprint::all(guards.clone(), placeholder_span(kernel)),
        });
    }

    /// The candidates of the reads of `exprs` in the interval after a barrier.
    fn reads<'e>(&mut self, exprs: impl IntoIterator<Item = &'e Expr>) {
        if self.after.is_none() {
            return;
        }
        let mut cells = Vec::new();
        let mut work: Vec<&Expr> = exprs.into_iter().collect();
        while let Some(next) = work.pop() {
            if let ExprKind::Read { array, index } = &next.kind {
                cells.push((next.span.start, *array, index));
            }
            next.children(&mut work);
        }
        // In the order they stand, as the clauses are printed.
        cells.sort_by_key(|(start, ..)| *start);
        for (_, array, index) in cells {
            self.read(array, index);
        }
    }

    fn read(&mut self, array: ArrayId, index: &Expr) {
        let Some(guards) = self.guards.clone() else { return };
        let Some(index) = self.in_ids(index).filter(|index| !reads_memory(index)) else { return };
        let kernel = self.kernel;
        let span = placeholder_span(kernel);
        let cell = Expr { kind: ExprKind::Read { array, index: Box::new(index.clone()) }, ty: Type::Int, span };
        let after = self.after.as_mut().expect("a read after a barrier");
        let guard = footprint::all(guards.clone(), span);
        let equals = |value: Expr| footprint::binary(BinaryOp::Eq, cell.clone(), value);
        // Only the first barrier: a later one would need the cell's permission handed through
        // the barriers before it, which inference gives only where the code accesses the cell.
        if !after.written.contains(&array) && self.out.is_empty() && self.straight {
            let unchanged = implies(guard, equals(old(&cell)));
            push_new(&mut after.values.requires, unchanged.clone());
            push_new(&mut after.values.ensures, unchanged);
            return;
        }
        let barrier = kernel.barrier(after.barrier);
        if !barrier.fences.fences(kernel.array(array).memory) || kernel.dimensions != 1 {
            return;
        }
        for write in after.writes.iter().filter(|write| write.array == array) {
            let Some(writer) = writer(write, &index, self.other) else { continue };
            let at = std::collections::HashMap::from([(self.other, writer.lid.clone())]);
            let gsize = Expr { kind: ExprKind::Builtin(Builtin::Gsize), ty: Type::Int, span };
            let mut conditions = guards.clone();
            conditions.extend(writer.conditions);
            conditions.push(footprint::binary(BinaryOp::Le, footprint::int(0, span), writer.lid.clone()));
            conditions.push(footprint::binary(BinaryOp::Lt, writer.lid.clone(), gsize));
            let (Some(guard), Some(value)) = (as_thread(&write.guard, self.other), as_thread(&write.value, self.other))
            else {
                continue;
            };
            conditions.push(guard.substitute(&at));
            let value = value.substitute(&at);
            let fact = implies(footprint::all(conditions, span), equals(footprint::simplified(&value)));
            push_new(&mut after.values.ensures, fact);
            push_new(&mut after.values.requires, implies(write.guard.clone(), written(write, span)));
        }
    }
}

/// The thread of the group that writes the cell `index` by `write`: its local id, and what else
/// must hold for it to be that thread.
struct Writer {
    lid: Expr,
    conditions: Vec<Expr>,
}

fn writer(write: &Write, index: &Expr, other: VarId) -> Option<Writer> {
    let at = as_thread(&write.index, other)?;
    let guard = as_thread(&write.guard, other)?;
    let (coefficient, rest) = footprint::linear(&at, other)?;
    match footprint::simplified(&coefficient).kind {
        ExprKind::Int(one) if one == 1.into() => {
            let lid = footprint::simplified(&footprint::binary(BinaryOp::Sub, index.clone(), rest));
            Some(Writer { lid, conditions: Vec::new() })
        }
        // One cell for every writer: the guard names the one thread that writes it.
        ExprKind::Int(zero) if zero == 0.into() => {
            let named = named_thread(&guard, other)?;
            Some(Writer { lid: named, conditions: vec![footprint::binary(BinaryOp::Eq, index.clone(), rest)] })
        }
        _ => None,
    }
}

/// `a[e] == v` of a write.
fn written(write: &Write, span: crate::Span) -> Expr {
    let cell =
        Expr { kind: ExprKind::Read { array: write.array, index: Box::new(write.index.clone()) }, ty: Type::Int, span };
    footprint::binary(BinaryOp::Eq, cell, write.value.clone())
}

/// `guard ==> fact`, or `fact` where the guard is `true`.
fn implies(guard: Expr, fact: Expr) -> Expr {
    let trivial = |part: &Expr| match &part.kind {
        ExprKind::Bool(true) => true,
        ExprKind::Binary { op: BinaryOp::Eq | BinaryOp::Le | BinaryOp::Ge, lhs, rhs } => same(lhs, rhs),
        _ => false,
    };
    let conditions: Vec<Expr> = conjuncts(guard).into_iter().filter(|part| !trivial(part)).collect();
    if conditions.is_empty() {
        return fact;
    }
    let span = fact.span;
    footprint::binary(BinaryOp::Implies, footprint::all(conditions, span), fact)
}

fn conjuncts(expr: Expr) -> Vec<Expr> {
    match expr.kind {
        ExprKind::Binary { op: BinaryOp::And, lhs, rhs } => [conjuncts(*lhs), conjuncts(*rhs)].concat(),
        _ => vec![expr],
    }
}

/// `\old(expr)`.
fn old(expr: &Expr) -> Expr {
    Expr { kind: ExprKind::Old(Box::new(expr.clone())), ..expr.clone() }
}

/// `expr` with each read as `\old`: the launch contents, which an array no statement writes keeps.
fn launch_reads(expr: &Expr) -> Expr {
    expr.rewrite(&|inner| matches!(inner.kind, ExprKind::Read { .. }).then(|| old(inner)))
}

fn push_new(facts: &mut Vec<Expr>, fact: Expr) {
    if !facts.iter().any(|other| same(other, &fact)) {
        facts.push(fact);
    }
}

/// The span a candidate is built with: [`super::barrier_values`] gives each its own when it places
/// it in its barrier.
fn placeholder_span(kernel: &Kernel) -> crate::Span {
    crate::Span::new(kernel.span.start, kernel.span.start)
}
