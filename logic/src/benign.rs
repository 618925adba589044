//! Benign races, accepted on request (`verify --benign-races`, GPUVerify's default): several
//! threads writing one value to one cell do not race. By default they do, as in the seed's
//! semantics, where every write needs all of a cell.
//!
//! A write is *uniform in a group* when every thread of the group reaches it alike and writes the
//! same cell there: its index and every `if` and `while` condition around it are lock-step safe
//! ([`crate::lockstep`]: no `tid` or `lid`, no private variable assigned differently per thread),
//! where a read of a global array that the kernel never writes is safe at a safe index (the host
//! initialised it; a local array is never initialised, and GPUVerify's adversarial reading gives
//! each read of it any value). Its value must be safe too, and *fixed*: the same each time the
//! thread writes it (literals, ids, sizes, parameters, variables given once from those, and such
//! reads of never-written global arrays). Then each thread of the group makes the same writes,
//! of one value, as the group's first thread, so the kernel is rewritten so that only that thread
//! makes them (`if (lid == 0) a[i] := v;`). A write is *uniform in the kernel* likewise with
//! `gid` in place of `lid` (its cell and value may differ between the threads of a group, but are
//! the same in every group: `p[lid] := lid`), and then only the first group makes it; uniform in
//! both, only the kernel's first thread.
//!
//! Rewritten, the first thread's write still meets in the permission checks whatever another
//! thread does with the cell. What the first thread itself does with it is not checked against the
//! others' writes, so a write is rewritten only where nothing else touches its array in its
//! barrier interval: it is the only statement writing the array, and no statement or annotation
//! reads it, between the two barriers of the kernel's body (not inside a branch or loop) that fence
//! the array's memory around it. So `a[0] := 1; a[0] := 2;` (two values, which threads may
//! interleave) and `x := a[0]; a[0] := 1;` (a read that may see another thread's write) are left
//! as they are, and race. A barrier orders the threads of one group only, so a write left to the
//! first group needs the whole kernel so: nothing else in the kernel writes or reads its array.
//!
//! Only kernels whose permissions are inferred are rewritten: a written contract speaks of what
//! each thread writes.

use crate::lockstep::LockStep;
use crate::{
    ArrayId, Assertion, AssertionKind, BinaryOp, Block, Builtin, Expr, ExprKind, Kernel, Memory, Stmt, StmtKind, Type,
    VarId,
};
use std::collections::HashSet;

/// Rewrites the kernel's uniform writes so that only a first thread makes each; returns how many.
pub fn first_thread_writes(kernel: &mut Kernel) -> usize {
    let stable: HashSet<ArrayId> = (0..kernel.arrays.len() as u32)
        .map(ArrayId)
        .filter(|array| kernel.array(*array).memory == Memory::Global && !kernel.writes(*array))
        .collect();
    let analyses = Analyses {
        in_group: LockStep::over(kernel, Builtin::is_thread_specific, stable.clone()),
        in_kernel: LockStep::over(kernel, varies_between_groups, stable.clone()),
        stable,
        params: kernel.params.iter().copied().collect(),
        memory: kernel.arrays.iter().map(|array| array.memory).collect(),
        alone: alone(kernel),
    };
    let mut rewritten = 0;
    let mut body = Vec::new();
    sequence_mut(&mut kernel.body, &mut body);
    for (position, stmt) in body.into_iter().enumerate() {
        rewrite(stmt, position, &mut Vec::new(), &analyses, &mut rewritten);
    }
    rewritten
}

/// The statements of a block in the order they run, the blocks inside it opened: the body's
/// statements that run once, unconditionally, in every thread.
fn sequence(block: &Block) -> Vec<&Stmt> {
    block
        .stmts
        .iter()
        .flat_map(|stmt| match &stmt.kind {
            StmtKind::Block(inner) => sequence(inner),
            _ => vec![stmt],
        })
        .collect()
}

/// [`sequence`], to rewrite.
fn sequence_mut<'b>(block: &'b mut Block, out: &mut Vec<&'b mut Stmt>) {
    for stmt in &mut block.stmts {
        if matches!(stmt.kind, StmtKind::Block(_)) {
            let StmtKind::Block(inner) = &mut stmt.kind else { unreachable!("matched a block") };
            sequence_mut(inner, out);
        } else {
            out.push(stmt);
        }
    }
}

/// Whether a builtin may differ between the groups of a launch.
fn varies_between_groups(builtin: Builtin) -> bool {
    matches!(builtin, Builtin::Tid | Builtin::Gid | Builtin::GroupId(_))
}

struct Analyses {
    in_group: LockStep,
    in_kernel: LockStep,
    stable: HashSet<ArrayId>,
    /// The kernel's parameters, the same each time a thread reads them.
    params: HashSet<VarId>,
    memory: Vec<Memory>,
    /// For each array, where it is written by one statement and read by none.
    alone: Vec<Alone>,
}

impl Analyses {
    /// The condition under which a thread makes a write that the threads reaching it under
    /// `conditions` make alike: `lid == 0`, `gid == 0`, or both; `None` when the write is not
    /// uniform in its group, nor (for global memory) in the kernel.
    fn first(&self, array: ArrayId, index: &Expr, value: &Expr, conditions: &[Expr], position: usize) -> Option<Expr> {
        let alone = &self.alone[array.index()];
        if !alone.in_interval.contains(&position) || !self.fixed(value) {
            return None;
        }
        let uniform = |analysis: &LockStep| {
            analysis.is_safe(index) && analysis.is_safe(value) && conditions.iter().all(|cond| analysis.is_safe(cond))
        };
        let span = index.span;
        let first = |builtin: Builtin| {
            let id = Expr { kind: ExprKind::Builtin(builtin), ty: Type::Int, span };
            let zero = Expr { kind: ExprKind::Int(0.into()), ty: Type::Int, span };
            Expr {
                kind: ExprKind::Binary { op: BinaryOp::Eq, lhs: Box::new(id), rhs: Box::new(zero) },
                ty: Type::Bool,
                span,
            }
        };
        let in_group = uniform(&self.in_group).then(|| first(Builtin::Lid));
        let in_kernel = (self.memory[array.index()] == Memory::Global && alone.in_kernel && uniform(&self.in_kernel))
            .then(|| first(Builtin::Gid));
        match (in_group, in_kernel) {
            (Some(lid), Some(gid)) => Some(Expr {
                kind: ExprKind::Binary { op: BinaryOp::And, lhs: Box::new(lid), rhs: Box::new(gid) },
                ty: Type::Bool,
                span,
            }),
            (first, None) | (None, first) => first,
        }
    }

    /// Whether a value is the same each time a thread computes it: no private variable but one
    /// given once from the thread's ids and the kernel's parameters, and no memory but cells of
    /// never-written global arrays at such indices.
    fn fixed(&self, value: &Expr) -> bool {
        !value.any(|inner| match &inner.kind {
            ExprKind::Var(var) => self.in_group.determined(*var).is_none() && !self.params.contains(var),
            ExprKind::Read { array, .. } => !self.stable.contains(array),
            ExprKind::Old(_) | ExprKind::Result => true,
            _ => false,
        })
    }
}

/// Where each array is left alone but by one write ([`Alone`]).
fn alone(kernel: &Kernel) -> Vec<Alone> {
    let body = sequence(&kernel.body);
    (0..kernel.arrays.len() as u32)
        .map(ArrayId)
        .map(|array| {
            // How many statements of `stmts` write the array, and whether any reads it.
            let touches = |stmts: &[&Stmt]| {
                let (mut writes, mut reads) = (0, false);
                for &stmt in stmts {
                    visit(stmt, &mut |stmt| {
                        writes += matches!(&stmt.kind, StmtKind::Write { array: found, .. } if *found == array) as usize;
                        reads |= reads_array(stmt, array);
                    });
                }
                (writes, reads)
            };
            let memory = kernel.array(array).memory;
            let fences = |stmt: &Stmt| {
                matches!(stmt.kind, StmtKind::Barrier(id) if kernel.barriers[id.index()].fences.fences(memory))
            };
            let mut in_interval = HashSet::new();
            let mut start = 0;
            while start < body.len() {
                let end = (start..body.len()).find(|&at| fences(body[at])).unwrap_or(body.len());
                if touches(&body[start..end]) == (1, false) {
                    in_interval.extend(start..end);
                }
                start = end + 1;
            }
            Alone { in_interval, in_kernel: touches(&body) == (1, false) }
        })
        .collect()
}

/// Where an array is written by one statement and read by none: the positions of the body's
/// statements ([`sequence`]) whose barrier interval (between the body's barriers that fence the
/// array's memory) is such, and whether the whole kernel is. Barriers order the threads of a group
/// only, so a write made by the first group only needs the whole kernel: `x = p[lid]; barrier;
/// p[lid] = 0;` in every group races between groups, which the first group's threads alone would
/// not show.
struct Alone {
    in_interval: HashSet<usize>,
    in_kernel: bool,
}

/// Whether a statement's own expressions and annotations (not those of the statements inside
/// it) read the array; an annotation other than a plain formula counts as reading every array.
fn reads_array(stmt: &Stmt, array: ArrayId) -> bool {
    let reads =
        |expr: &Expr| expr.any(|inner| matches!(&inner.kind, ExprKind::Read { array: found, .. } if *found == array));
    let asserts = |assertion: &Assertion| match &assertion.kind {
        AssertionKind::Pure(expr) => reads(expr),
        _ => true,
    };
    match &stmt.kind {
        StmtKind::Declare { init, .. } => init.as_ref().is_some_and(reads),
        StmtKind::Assign { value, .. } => reads(value),
        StmtKind::Write { index, value, .. } => reads(index) || reads(value),
        StmtKind::If { cond, .. } => reads(cond),
        StmtKind::While { invariants, cond, .. } => {
            reads(cond) || invariants.iter().any(|invariant| asserts(&invariant.assertion))
        }
        StmtKind::Assert(assertion) => asserts(assertion),
        StmtKind::Assume(expr) => reads(expr),
        StmtKind::Barrier(_) | StmtKind::Block(_) => false,
    }
}

/// Calls `each` on a statement and on every statement inside it.
fn visit<'s>(stmt: &'s Stmt, each: &mut impl FnMut(&'s Stmt)) {
    each(stmt);
    let blocks: Vec<&Block> = match &stmt.kind {
        StmtKind::If { then_branch, else_branch, .. } => std::iter::once(then_branch).chain(else_branch).collect(),
        StmtKind::While { body, .. } => vec![body],
        StmtKind::Block(inner) => vec![inner],
        _ => Vec::new(),
    };
    for block in blocks {
        for inner in &block.stmts {
            visit(inner, each);
        }
    }
}

/// Rewrites the uniform writes in a statement at `position` of the body, under `conditions`.
fn rewrite(stmt: &mut Stmt, position: usize, conditions: &mut Vec<Expr>, analyses: &Analyses, rewritten: &mut usize) {
    let span = stmt.span;
    let mut blocks: Vec<(&mut Block, Option<&Expr>)> = match &mut stmt.kind {
        StmtKind::Write { array, index, value } => {
            if let Some(first) = analyses.first(*array, index, value, conditions, position) {
                let write = Stmt { kind: stmt.kind.clone(), span };
                stmt.kind =
                    StmtKind::If { cond: first, then_branch: Block { stmts: vec![write], span }, else_branch: None };
                *rewritten += 1;
            }
            return;
        }
        StmtKind::If { cond, then_branch, else_branch } => {
            std::iter::once(then_branch).chain(else_branch).map(|block| (block, Some(&*cond))).collect()
        }
        StmtKind::While { cond, body, .. } => vec![(body, Some(&*cond))],
        StmtKind::Block(inner) => vec![(inner, None)],
        StmtKind::Declare { .. }
        | StmtKind::Assign { .. }
        | StmtKind::Barrier(_)
        | StmtKind::Assert(_)
        | StmtKind::Assume(_) => Vec::new(),
    };
    for (block, cond) in &mut blocks {
        conditions.extend(cond.cloned());
        for inner in &mut block.stmts {
            rewrite(inner, position, conditions, analyses, rewritten);
        }
        if cond.is_some() {
            conditions.pop();
        }
    }
}
