//! Permissions inferred for a kernel that names none (issue 16): from the accesses each thread
//! may make, the thread's precondition, every barrier's resources and every loop's invariant, so
//! that the checker ([`crate::outline`]) proves the kernel free of data races and of barrier
//! divergence as it proves an annotated one.
//!
//! Inference only proposes; it is never trusted. The contracts it writes are permissions (what
//! the launch must provide is what the threads claim), so a wrong guess can only make the
//! checker fail, never make a wrong kernel verify: every access is still checked against the
//! permission held, and the permissions of all threads against each other at the launch and at
//! every barrier, which is where a race shows.
//!
//! The analysis runs backwards over the body. The *footprint* at a point is the set of cells the
//! thread may read or write from there to the next barrier on any path, as guarded accesses over
//! the state at that point ([`footprint`]): an assignment puts its value in place of its
//! variable, a branch guards each side's accesses with its condition, a barrier cuts (the thread
//! gives up everything there and takes the footprint after it as the barrier's resources). A
//! loop without a barrier is summarised by its induction variables ([`summary`]): an access of
//! one iteration over `i` becomes an access over `i + k * step` for every iteration `k >= 0`.
//! A loop with a barrier holds, at its head, the footprint from its head. What cannot be told
//! (a variable with no known value, an index read from memory that no fact of the barrier or
//! launch where it is claimed tells, [`Inference::settled`]) becomes every cell of the array,
//! which claims more, never less. An index that reads only arrays no statement writes is told
//! already: the read has the same value at the launch or barrier as at the access.
//!
//! Candidates, which the driver checks and drops as Houdini does ([`candidates`]): loop
//! invariants about the loops' variables, the same as preconditions of the barriers in the loops,
//! the values barriers hand over ([`values`]), and bounds on the values a loop of barriers
//! computes round by round ([`rounds`]). For those values to be stated at the next barrier, a
//! thread keeps its own cell through an interval in which only it may touch it
//! ([`Inference::keep_own_cells`]).

mod candidates;
pub use candidates::Candidate;
mod contract;
mod footprint;
mod rounds;
mod summary;
mod values;

use crate::{
    ArrayId, Assertion, AssertionKind, Axis, BarrierId, BinaryOp, Block, Builtin, Clause, Expr, ExprKind, Kernel,
    Memory, ObligationId, Span, Stmt, StmtKind, Type, Var, VarId, VarKind,
};
use footprint::{Access, Footprint};
use num_bigint::BigInt;
use std::collections::{BTreeSet, HashMap};

/// A kernel with inferred contracts.
pub struct Inferred {
    /// The kernel: the thread's precondition (and, for what its postcondition reads, its
    /// postcondition) and each barrier's resources start with the inferred permissions; each
    /// loop's invariants start with its candidates ([`candidates`]), then the permissions, then
    /// the candidates the kernel was written with that read memory (which the permissions frame).
    pub kernel: Kernel,
    /// For each loop, in the order the loops stand (an enclosing loop before the ones in its
    /// body): which of its invariants are candidates, which may be dropped.
    pub candidates: Vec<Vec<bool>>,
    /// The spans of the candidate barrier clauses ([`values`]), each empty and its own.
    pub barrier_candidates: Vec<Span>,
    /// The spans of the loop invariants the kernel was written with.
    written_invariants: Vec<Span>,
}

impl Inferred {
    /// Why a failed obligation of this kernel shows only that inference did not find what the
    /// kernel needs, not that the kernel is wrong (`None` when it may be the kernel's fault): an
    /// access the inferred permissions do not cover (the kernel as written names none), or an
    /// invariant it was not written with that does not hold. A race still fails a resource
    /// check, and a failed assert, bound or divergence is the kernel's.
    pub fn shortfall(&self, id: ObligationId, span: Span) -> Option<&'static str> {
        match id {
            ObligationId::AccessRead | ObligationId::AccessWrite => {
                Some("the inferred permissions do not cover this access")
            }
            ObligationId::LoopInvariantEntry | ObligationId::LoopInvariantPreserved
                if !self
                    .written_invariants
                    .iter()
                    .any(|written| written.start <= span.start && span.end <= written.end) =>
            {
                Some("could not infer an invariant of the loop that holds")
            }
            _ if self.barrier_candidates.contains(&span) => Some("could not infer a barrier contract that holds"),
            _ => None,
        }
    }
}

/// The kernel with inferred permissions and candidate invariants. `kernel` must name no
/// permission ([`Kernel::has_permissions`]).
pub fn permissions(kernel: &Kernel) -> Inferred {
    let pins = Pins::of(kernel);
    let mut inference = Inference {
        kernel,
        vars: kernel.vars.clone(),
        barriers: HashMap::new(),
        barrier_facts: HashMap::new(),
        loop_guesses: Vec::new(),
        barrier_guesses: HashMap::new(),
        loops: HashMap::new(),
        loop_bounds: HashMap::new(),
        pins,
        cut: true,
    };
    let mut end = Footprint::default();
    for clause in &kernel.thread_contract.ensures {
        inference.assertion_reads(&clause.assertion, &mut end);
    }
    let ensures = end.clone();
    // What the precondition reads, the thread brings: its facts are framed by its own permissions.
    let start = inference.block(&kernel.body.stmts, end.clone());
    let mut start = inference.settled(start, None, &kernel.thread_contract.requires);
    for clause in &kernel.thread_contract.requires {
        inference.assertion_reads(&clause.assertion, &mut start);
    }
    // What a group owns of global memory is what its threads bring (local memory is all the
    // group's): each thread brings every cell of global memory it accesses in any barrier
    // interval, so that a barrier can hand it back to it.
    inference.cut = false;
    let everything = inference.block(&kernel.body.stmts, end);
    let everything = inference.settled(everything, None, &kernel.thread_contract.requires);
    inference.cut = true;
    inference.keep_own_cells(&everything);
    // A cell that a thread of the group claims at the launch is in what the group owns already,
    // and a barrier hands it on: another thread that accesses it only later does not bring it too
    // (both claims would add up to more than the cell).
    let is_global = |access: &Access| kernel.array(access.array).memory == Memory::Global;
    let claims: Vec<Access> = start.accesses.iter().filter(|access| is_global(access)).cloned().collect();
    // What the threads write anywhere: a thread brings the cells it writes, so the group owns
    // them already, and no thread of another group may access them.
    let writers: Vec<Access> =
        everything.accesses.iter().filter(|access| access.write && is_global(access)).cloned().collect();
    let mut global = Vec::new();
    for mut access in everything.accesses.into_iter().filter(is_global) {
        let brought = claims
            .iter()
            .filter(|claim| claim.write || !access.write)
            .chain(writers.iter().filter(|writer| !(access.write && footprint::same(&writer.index, &access.index))));
        for owner in brought.filter(|owner| owner.array == access.array) {
            if let Some(claimed) = inference.claimed_in_group(owner, &access.index) {
                access.guards.push(footprint::not(&claimed));
            }
        }
        // A cell some thread of another group writes, this group can never read without a race
        // (no barrier orders two groups): bringing it would only turn that race into a conflict
        // of the launch's claims. Left out, a read of it finds no permission at the barrier that
        // hands it over, and fails there. (A write of it is still brought, so that the race of
        // two writes shows in the launch's claims, where the solver finds it readily.)
        let reads = !access.write;
        for writer in
            claims.iter().chain(&writers).filter(|writer| reads && writer.write && writer.array == access.array)
        {
            if let Some(written) = inference.written_by_other_groups(writer, &access.index) {
                access.guards.push(footprint::not(&written));
            }
        }
        global.push(access);
    }
    let start = start.union(Footprint { accesses: global, open: false });
    let held = rounds::Held { launch: &start, barriers: &inference.barriers, loops: &inference.loops };
    let (round_bounds, loop_bounds) = rounds::candidates(kernel, &held);
    inference.loop_bounds = loop_bounds;
    let mut inferred = kernel.clone();
    let span = Span::new(kernel.span.start, kernel.span.start);
    // Permissions whose cells are named by reads of memory come after every written clause,
    // which may bound the values read (`0 <= p[tid] && p[tid] < tcount`).
    let (requires, reading) = inference.clauses(start, span);
    after_facts(&mut inferred.thread_contract.requires, requires.into_iter().collect());
    inferred.thread_contract.requires.extend(reading);
    let ensures = inference.clause(ensures, span);
    after_facts(&mut inferred.thread_contract.ensures, ensures);
    // The variables each barrier's resources name: what its checks need told.
    let mut named: HashMap<BarrierId, Vec<VarId>> = HashMap::new();
    for (id, barrier) in inferred.barriers.iter_mut().enumerate() {
        let after = inference.barriers.remove(&BarrierId(id as u32)).unwrap_or_default();
        let vars = (0..inference.vars.len() as u32).map(VarId).filter(|&var| after.mentions(var)).collect();
        named.insert(BarrierId(id as u32), vars);
        let resources = inference.clause(after, Span::new(barrier.span.start, barrier.span.start));
        after_facts(&mut barrier.contract.ensures, resources);
    }
    let mut candidates = Vec::new();
    inferred.body = inference.with_invariants(&kernel.body, &mut candidates::Known::default(), &mut candidates);
    for (id, barrier) in inferred.barriers.iter_mut().enumerate() {
        let facts = inference.barrier_facts.remove(&BarrierId(id as u32)).unwrap_or_default();
        let span = Span::new(barrier.span.start, barrier.span.start);
        let facts = facts
            .into_iter()
            .map(|fact| Clause { assertion: Assertion { kind: AssertionKind::Pure(fact), span }, span });
        barrier.contract.requires.splice(0..0, facts);
    }
    let other = inference.fresh(kernel.span);
    let mut values = values::candidates(kernel, other);
    for (id, mut guesses) in inference.barrier_guesses.drain() {
        let vars = named.get(&id).map_or(&[][..], |vars| &vars[..]);
        guesses.retain(|guess| vars.iter().any(|&var| guess.mentions(var)));
        match values.iter_mut().find(|(barrier, _)| *barrier == id) {
            Some((_, found)) => {
                found.requires.splice(0..0, guesses);
            }
            None => values.push((id, values::BarrierValues { requires: guesses, ensures: Vec::new() })),
        }
    }
    for (id, bounds) in round_bounds {
        match values.iter_mut().find(|(barrier, _)| *barrier == id) {
            Some((_, found)) => {
                found.requires.extend(bounds.requires);
                found.ensures.extend(bounds.ensures);
            }
            None => values.push((id, bounds)),
        }
    }
    values.sort_by_key(|(id, _)| *id);
    let barrier_candidates = barrier_values(&mut inferred, values);
    inferred.vars = inference.vars;
    let written_invariants =
        kernel.loop_invariant_spans().into_iter().filter(|span| !kernel.candidate_invariants.contains(span)).collect();
    Inferred { kernel: inferred, candidates, barrier_candidates, written_invariants }
}

struct Inference<'k> {
    kernel: &'k Kernel,
    /// The kernel's variables and the binders inference made.
    vars: Vec<Var>,
    /// The footprint after each barrier: its resources.
    barriers: HashMap<BarrierId, Footprint>,
    /// The conditions each barrier stands under ([`candidates::Known`]): its precondition, which
    /// tells the barrier's checks which of its resources apply (in a loop, that the loop has not
    /// ended before the barrier). The thread proves them when it reaches the barrier.
    barrier_facts: HashMap<BarrierId, Vec<Expr>>,
    /// The candidate invariants of the loops around the point ([`Inference::with_invariants`]).
    loop_guesses: Vec<Expr>,
    /// Those of the loops around each barrier: candidates of its precondition too (those that
    /// name a variable its resources name), which tell its checks what the loops' invariants tell
    /// the thread (a tree's stride at most `gsize`).
    barrier_guesses: HashMap<BarrierId, Vec<Expr>>,
    /// The footprint each loop's invariant holds, by the loop's statement.
    loops: HashMap<*const Stmt, Footprint>,
    /// The candidate bounds of the loops that compute values round by round ([`rounds`]).
    loop_bounds: HashMap<*const Stmt, rounds::LoopBounds>,
    pins: Pins,
    /// Whether a barrier ends the footprint (else the analysis runs through barriers, and
    /// records nothing: every access of the rest of the kernel).
    cut: bool,
}

/// The sizes of the launch that the kernel's precondition pins to numbers (`verify --gsize 64`):
/// written as those numbers in what inference states, a product of a size and a variable is
/// linear.
struct Pins {
    values: HashMap<Builtin, BigInt>,
}

impl Pins {
    fn of(kernel: &Kernel) -> Pins {
        let mut values = HashMap::new();
        for builtin in Builtin::ALL {
            if let Some(value) = kernel.pinned_size(builtin) {
                values.insert(builtin, value);
            }
        }
        let axes = &Axis::ALL[..kernel.dimensions];
        let product = |size: fn(Axis) -> Builtin, values: &HashMap<Builtin, BigInt>| -> Option<BigInt> {
            axes.iter().map(|&axis| values.get(&size(axis)).cloned()).product()
        };
        if let Some(gsize) = product(Builtin::GroupSize, &values) {
            values.entry(Builtin::Gsize).or_insert(gsize);
        }
        if let (Some(gsize), Some(groups)) = (values.get(&Builtin::Gsize).cloned(), product(Builtin::Groups, &values)) {
            values.entry(Builtin::Tcount).or_insert(gsize * groups);
        }
        Pins { values }
    }

    /// `expr` with each pinned size replaced by its number.
    fn pinned(&self, expr: &Expr) -> Expr {
        if self.values.is_empty() {
            return expr.clone();
        }
        footprint::with_builtins(expr, &|builtin| {
            self.values.get(&builtin).map(|value| footprint::int_of(value.clone(), expr.span))
        })
    }
}

/// More accesses than this at one point are given up for every cell of each array they name:
/// branches that each assign what later accesses read double the footprint.
const MOST_ACCESSES: usize = 256;

impl Inference<'_> {
    /// A new variable for a binder.
    fn fresh(&mut self, span: Span) -> VarId {
        binder(&mut self.vars, span)
    }

    /// The size of `array` when its accesses are checked against it.
    fn size(&self, array: ArrayId) -> Option<Expr> {
        checked_size(self.kernel, array)
    }

    fn forget(&mut self, footprint: Footprint, var: VarId, span: Span) -> Footprint {
        let kernel = self.kernel;
        let vars = &mut self.vars;
        footprint.forget(var, &mut || binder(vars, span), &|array| checked_size(kernel, array))
    }

    fn assign(&mut self, footprint: Footprint, var: VarId, value: &Expr) -> Footprint {
        let kernel = self.kernel;
        let vars = &mut self.vars;
        footprint.assign(var, value, &mut || binder(vars, value.span), &|array| checked_size(kernel, array))
    }

    /// An access with its guards and binders. One whose index reads memory keeps it until
    /// [`Inference::settled`]: up to a write of that memory, a loop, or the barrier or launch where
    /// the footprint is claimed, whose facts may tell the value read.
    fn access(&mut self, array: ArrayId, index: &Expr, write: bool, scope: &Scope, span: Span) -> Access {
        let guards = scope.guards.iter().filter(|guard| !footprint::reads_memory(guard)).cloned().collect();
        Access { array, write, binders: scope.binders.clone(), guards, index: index.clone(), span }
    }

    /// The footprint with each index that reads memory (of `array` only, when given) made every
    /// cell of its array: the value it reads is not known where the footprint stands. `facts`
    /// first tell what they can: a conjunct `m == e` of one, with `m` a read of memory and `e`
    /// free of it, puts `e` in place of `m`.
    fn settled(&mut self, mut footprint: Footprint, array: Option<ArrayId>, facts: &[Clause]) -> Footprint {
        let known: Vec<(Expr, Expr)> = facts
            .iter()
            .flat_map(|clause| memory_values(&clause.assertion))
            .map(|(read, value)| (remainders_as_modulo(&read), value))
            .collect();
        // A read of an array no statement writes has the same value wherever it stands (the
        // thread's contract frames it with its own read permission): `out[p[tid]]`.
        let kernel = self.kernel;
        let reads = |expr: &Expr| {
            expr.any(|part| match part.kind {
                ExprKind::Read { array: read, .. } => array.is_none_or(|array| read == array) && kernel.writes(read),
                _ => false,
            })
        };
        for access in &mut footprint.accesses {
            if !known.is_empty() && reads(&access.index) {
                access.index = access.index.rewrite(&|expr| {
                    let expr = remainders_as_modulo(expr);
                    known.iter().find(|(read, _)| footprint::same(read, &expr)).map(|(_, value)| value.clone())
                });
            }
            if reads(&access.index) {
                let cell = self.fresh(access.span);
                *access = footprint::whole(access, cell, self.size(access.array));
            }
        }
        footprint
    }

    /// Whether some thread of another group writes `cell` by `write`, an access every thread
    /// makes, as a condition free of quantifiers: where the index is `tid + c` (with `c` the same
    /// in every thread) and no guard limits it, the cells `c <= cell < c + tcount` but for the
    /// group's own `c + gid * gsize <= cell < c + gid * gsize + gsize`. `None` where that cannot
    /// be told so.
    fn written_by_other_groups(&mut self, write: &Access, cell: &Expr) -> Option<Expr> {
        if !write.binders.is_empty() || !write.guards.is_empty() || self.kernel.dimensions != 1 {
            return None;
        }
        let span = cell.span;
        let (lid, gid) = (self.fresh(span), self.fresh(span));
        let index = footprint::with_builtins(&footprint::as_thread(&write.index, lid)?, &|builtin| match builtin {
            Builtin::Gid | Builtin::GroupId(Axis::X) => Some(footprint::var(gid, span)),
            _ => None,
        });
        let (by_lid, rest) = footprint::linear(&index, lid)?;
        let (by_gid, first) = footprint::linear(&rest, gid)?;
        let one = matches!(footprint::simplified(&by_lid).kind, ExprKind::Int(one) if one == BigInt::from(1));
        let gsize = matches!(
            footprint::simplified(&by_gid).kind,
            ExprKind::Builtin(Builtin::Gsize | Builtin::GroupSize(Axis::X))
        );
        let varies = |expr: &Expr| {
            expr.any(|inner| match inner.kind {
                ExprKind::Builtin(builtin) => builtin.is_thread_specific() || builtin.is_group_specific(),
                ExprKind::Var(var) => self.vars[var.0 as usize].kind != VarKind::KernelParam,
                ExprKind::Read { .. } | ExprKind::Ticket { .. } => true,
                _ => false,
            })
        };
        if !one || !gsize || varies(&first) {
            return None;
        }
        let builtin = |builtin| Expr { kind: ExprKind::Builtin(builtin), ty: Type::Int, span };
        let within = |first: Expr, size: Expr| {
            let last = footprint::binary(BinaryOp::Add, first.clone(), size);
            let low = footprint::binary(BinaryOp::Le, first, cell.clone());
            footprint::binary(BinaryOp::And, low, footprint::binary(BinaryOp::Lt, cell.clone(), last))
        };
        let group = footprint::binary(BinaryOp::Mul, builtin(Builtin::Gid), builtin(Builtin::Gsize));
        let own = within(footprint::binary(BinaryOp::Add, first.clone(), group), builtin(Builtin::Gsize));
        Some(footprint::binary(BinaryOp::And, within(first, builtin(Builtin::Tcount)), footprint::not(&own)))
    }

    /// Whether some thread of the group claims `cell` by `claim`, an access of the launch's
    /// footprint (over the thread's ids and the kernel's parameters), as a condition free of
    /// quantifiers: the claimant solved for from the cell where the index moves with the local id
    /// one to one, or named by the guard `lid == e` where the index does not move. `None` where
    /// that cannot be told so (binders, more than one dimension, another form).
    fn claimed_in_group(&mut self, claim: &Access, cell: &Expr) -> Option<Expr> {
        if !claim.binders.is_empty() || self.kernel.dimensions != 1 {
            return None;
        }
        let span = cell.span;
        let other = self.fresh(span);
        let index = footprint::as_thread(&claim.index, other)?;
        let guards =
            claim.guards.iter().map(|guard| footprint::as_thread(guard, other)).collect::<Option<Vec<Expr>>>()?;
        let (coefficient, rest) = footprint::linear(&index, other)?;
        let mut parts = Vec::new();
        let builtin = |builtin| Expr { kind: ExprKind::Builtin(builtin), ty: Type::Int, span };
        let claimant = match footprint::simplified(&coefficient).kind {
            ExprKind::Int(one) if one == BigInt::from(1) => footprint::binary(BinaryOp::Sub, cell.clone(), rest),
            ExprKind::Int(zero) if zero == BigInt::from(0) => {
                parts.push(footprint::binary(BinaryOp::Eq, cell.clone(), index));
                let named = guards.iter().find_map(|guard| footprint::named_thread(guard, other));
                match named {
                    Some(named) => named,
                    None if guards.iter().all(|guard| !guard.mentions(other)) => footprint::int(0, span),
                    None => return None,
                }
            }
            _ => return None,
        };
        let claimant = footprint::simplified(&claimant);
        parts.push(footprint::binary(BinaryOp::Le, footprint::int(0, span), claimant.clone()));
        parts.push(footprint::binary(BinaryOp::Lt, claimant.clone(), builtin(Builtin::Gsize)));
        let at = HashMap::from([(other, claimant)]);
        parts.extend(guards.iter().map(|guard| guard.substitute(&at)));
        Some(footprint::all(parts, span))
    }

    /// The footprint before `stmts`, given the one after them.
    fn block(&mut self, stmts: &[Stmt], after: Footprint) -> Footprint {
        stmts.iter().enumerate().rev().fold(after, |after, (at, stmt)| self.stmt(stmt, &stmts[..at], after))
    }

    /// The footprint before `stmt`, given the one after it; `preceding` are the statements of its
    /// block before it, where a loop finds its variables' start values.
    fn stmt(&mut self, stmt: &Stmt, preceding: &[Stmt], after: Footprint) -> Footprint {
        match &stmt.kind {
            StmtKind::Declare { var, init: None } => self.forget(after, *var, stmt.span),
            StmtKind::Declare { var, init: Some(value) } | StmtKind::Assign { var, value } => {
                let mut before = self.assign(after, *var, value);
                self.reads(value, &mut before);
                before
            }
            StmtKind::Write { array, index, value } => {
                let mut before = self.settled(after, Some(*array), &[]);
                let written = self.access(*array, index, true, &Scope::default(), stmt.span);
                before.accesses.push(written);
                self.reads(index, &mut before);
                self.reads(value, &mut before);
                before
            }
            StmtKind::If { cond, then_branch, else_branch } => {
                let no_else = Vec::new();
                let else_stmts = else_branch.as_ref().map_or(&no_else, |block| &block.stmts);
                let mut assigned = BTreeSet::new();
                assigned_vars(&then_branch.stmts, &mut assigned);
                assigned_vars(else_stmts, &mut assigned);
                // Where neither side changes what the accesses after it name, or cuts them off
                // with a barrier, those accesses follow both sides alike: kept once, unguarded.
                let cuts = |stmts: &[Stmt]| self.cut && has_barrier(stmts);
                let shared =
                    !cuts(&then_branch.stmts) && !cuts(else_stmts) && !assigned.iter().any(|&var| after.mentions(var));
                let (rest, then_after, else_after) = if shared {
                    (after, Footprint::default(), Footprint::default())
                } else {
                    (Footprint::default(), after.clone(), after)
                };
                let then_part = self.block(&then_branch.stmts, then_after).guarded(cond);
                let else_part = self.block(else_stmts, else_after).guarded(&footprint::not(cond));
                let mut before = rest.union(then_part).union(else_part);
                self.reads(cond, &mut before);
                self.bounded(before)
            }
            StmtKind::While { invariants, cond, body } => {
                let after = self.settled(after, None, &[]);
                let (before, held) = if self.cut && has_barrier(&body.stmts) {
                    self.barrier_loop(invariants, cond, body, after)
                } else {
                    self.summary(invariants, cond, body, &summary::starts(preceding), after)
                };
                if self.cut {
                    self.loops.insert(stmt as *const Stmt, held);
                }
                before
            }
            // The barrier's written contract reads memory: its precondition before it, its
            // postcondition after it (a GPUVerify barrier invariant names a neighbour's cell).
            StmtKind::Barrier(id) => {
                let contract = &self.kernel.barriers[id.0 as usize].contract;
                // The value an index reads after the barrier is told by its postcondition, if at all.
                let facts = if self.cut { &contract.ensures[..] } else { &[] };
                let mut after = self.settled(after, None, facts);
                for clause in &contract.ensures {
                    self.assertion_reads(&clause.assertion, &mut after);
                }
                let mut before = Footprint::default();
                for clause in &contract.requires {
                    self.assertion_reads(&clause.assertion, &mut before);
                }
                if !self.cut {
                    return after.union(before);
                }
                self.barriers.insert(*id, after);
                before
            }
            StmtKind::Assert(assertion) => {
                let mut before = after;
                self.assertion_reads(assertion, &mut before);
                before
            }
            StmtKind::Assume(fact) => {
                let mut before = after;
                self.reads(fact, &mut before);
                before
            }
            StmtKind::Block(block) => self.block(&block.stmts, after),
        }
    }

    /// A loop whose body holds a barrier. Its invariant holds the footprint from its head: the
    /// body's up to its barriers where the condition holds, what follows the loop where not. The
    /// barriers in the body hand over the body's rest and then that again.
    fn barrier_loop(
        &mut self,
        invariants: &[Clause],
        cond: &Expr,
        body: &Block,
        after: Footprint,
    ) -> (Footprint, Footprint) {
        let probe = self.block(&body.stmts, Footprint::open());
        let start = if probe.open {
            // A path through the body meets no barrier: the next iteration is part of it. Every
            // cell of what the loop and its sequel touch covers that.
            let mut touched = Footprint::default();
            let whole = self.block(&body.stmts, Footprint::default()).union(after.clone());
            for access in whole.accesses {
                let cell = self.fresh(access.span);
                let size = self.size(access.array);
                touched.accesses.push(footprint::whole(&Access { guards: Vec::new(), ..access }, cell, size));
            }
            self.block(&body.stmts, touched)
        } else {
            probe
        };
        let start = self.settled(start, None, &[]);
        let mut head = after.guarded(&footprint::not(cond)).union(start.guarded(cond));
        head.open = false;
        self.reads(cond, &mut head);
        for invariant in invariants {
            self.assertion_reads(&invariant.assertion, &mut head);
        }
        // Again with the head after the body: what each barrier in it hands over.
        self.block(&body.stmts, head.clone());
        (head.clone(), head)
    }

    /// A thread keeps its own cell `a[lid]` through a barrier interval in which its code accesses
    /// it only under conditions, where no thread accesses another cell of `a` there: the cell is
    /// no other thread's to take, and kept, its value is still the thread's to state at the next
    /// barrier (Pascal's triangle: `if (0 < i && i < N) bin[i] += tmp[i - 1]`, and thread 0's
    /// `bin[0]` keeps its value for the next round). Only a cell the launch brings whatever the
    /// conditions (`everything`, the accesses of the whole code), within the array's bounds for
    /// every thread, and no other group's: in local memory, or with one group.
    fn keep_own_cells(&mut self, everything: &Footprint) {
        let kernel = self.kernel;
        let fixed = fixed_vars(kernel);
        let is_own = |access: &Access| {
            let index = access.index.substitute(&fixed);
            access.binders.is_empty()
                && match index.kind {
                    ExprKind::Builtin(Builtin::Lid) => true,
                    ExprKind::Builtin(Builtin::LocalId(Axis::X)) => kernel.dimensions == 1,
                    _ => false,
                }
        };
        let one_group = self.pins.values.get(&Builtin::Groups(Axis::X)).is_some_and(|groups| *groups == 1.into())
            && kernel.dimensions == 1;
        let mut owned: Vec<ArrayId> = everything
            .accesses
            .iter()
            .filter(|access| access.guards.is_empty() && is_own(access))
            .map(|access| access.array)
            .filter(|&array| {
                let array = kernel.array(array);
                let size = self.pins.pinned(&array.size);
                let fits = match &size.kind {
                    ExprKind::Builtin(Builtin::Gsize | Builtin::Tcount | Builtin::GroupSize(Axis::X)) => true,
                    ExprKind::Int(length) => self.pins.values.get(&Builtin::Gsize).is_some_and(|gsize| gsize <= length),
                    _ => false,
                };
                (!array.bounded || fits) && (array.memory == Memory::Local || one_group)
            })
            .collect();
        owned.sort_by_key(|array| array.0);
        owned.dedup();
        for after in self.barriers.values_mut() {
            for &array in &owned {
                let of_array = |access: &&Access| access.array == array;
                if after.accesses.iter().filter(of_array).all(is_own) {
                    for access in after.accesses.iter_mut().filter(|access| access.array == array) {
                        access.guards.clear();
                    }
                }
            }
        }
    }

    /// Collapses a footprint too large to keep into every cell of each array it names.
    fn bounded(&mut self, footprint: Footprint) -> Footprint {
        if footprint.accesses.len() <= MOST_ACCESSES {
            return footprint;
        }
        let mut arrays: Vec<(ArrayId, bool, Span)> = Vec::new();
        for access in &footprint.accesses {
            match arrays.iter_mut().find(|(array, ..)| *array == access.array) {
                Some(entry) => entry.1 |= access.write,
                None => arrays.push((access.array, access.write, access.span)),
            }
        }
        let accesses = arrays
            .into_iter()
            .map(|(array, write, span)| {
                let cell = self.fresh(span);
                let any = Access {
                    array,
                    write,
                    binders: Vec::new(),
                    guards: Vec::new(),
                    index: footprint::int(0, span),
                    span,
                };
                footprint::whole(&any, cell, self.size(array))
            })
            .collect();
        Footprint { accesses, open: footprint.open }
    }

    /// Adds the reads of `expr` to `footprint`, each under the conditions that guard it in the
    /// expression (`c && a[i]` reads `a[i]` only where `c` holds).
    fn reads(&mut self, expr: &Expr, footprint: &mut Footprint) {
        let mut scope = Scope::default();
        self.reads_in(expr, &mut scope, footprint);
    }

    fn reads_in(&mut self, expr: &Expr, scope: &mut Scope, footprint: &mut Footprint) {
        use crate::BinaryOp;
        match &expr.kind {
            ExprKind::Read { array, index } => {
                self.reads_in(index, scope, footprint);
                let read = self.access(*array, index, false, scope, expr.span);
                footprint.accesses.push(read);
            }
            ExprKind::Binary { op: op @ (BinaryOp::And | BinaryOp::Or | BinaryOp::Implies), lhs, rhs } => {
                self.reads_in(lhs, scope, footprint);
                let guard = if *op == BinaryOp::Or { footprint::not(lhs) } else { (**lhs).clone() };
                scope.guards.push(guard);
                self.reads_in(rhs, scope, footprint);
                scope.guards.pop();
            }
            ExprKind::Cond { cond, then_value, else_value } => {
                self.reads_in(cond, scope, footprint);
                scope.guards.push((**cond).clone());
                self.reads_in(then_value, scope, footprint);
                scope.guards.pop();
                scope.guards.push(footprint::not(cond));
                self.reads_in(else_value, scope, footprint);
                scope.guards.pop();
            }
            ExprKind::Quantifier { var, range, body, .. } => {
                scope.binders.push(*var);
                self.reads_in(range, scope, footprint);
                scope.guards.push((**range).clone());
                self.reads_in(body, scope, footprint);
                scope.guards.pop();
                scope.binders.pop();
            }
            ExprKind::Sum { var, lower, upper, body } => {
                self.reads_in(lower, scope, footprint);
                self.reads_in(upper, scope, footprint);
                scope.binders.push(*var);
                scope.guards.push(Expr::half_open_range(*var, lower, upper));
                self.reads_in(body, scope, footprint);
                scope.guards.pop();
                scope.binders.pop();
            }
            _ => {
                let mut children = Vec::new();
                expr.children(&mut children);
                for child in children {
                    self.reads_in(child, scope, footprint);
                }
            }
        }
    }

    /// Adds the reads of an assertion's facts, guards and ranges.
    fn assertion_reads(&mut self, assertion: &Assertion, footprint: &mut Footprint) {
        match &assertion.kind {
            AssertionKind::Pure(expr) => self.reads(expr, footprint),
            AssertionKind::Perm(atom) => self.reads(&atom.index, footprint),
            AssertionKind::Star(lhs, rhs) => {
                self.assertion_reads(lhs, footprint);
                self.assertion_reads(rhs, footprint);
            }
            AssertionKind::Implies(cond, body) => {
                self.reads(cond, footprint);
                self.assertion_reads(body, footprint);
            }
            AssertionKind::Cond(cond, lhs, rhs) => {
                self.reads(cond, footprint);
                self.assertion_reads(lhs, footprint);
                self.assertion_reads(rhs, footprint);
            }
            AssertionKind::ForallStar { range, body, .. } => {
                self.reads(range, footprint);
                self.assertion_reads(body, footprint);
            }
        }
    }

    /// The body again, each loop's invariants starting with its candidates (which `candidates`
    /// marks), then the permissions it holds: the candidates bound the variables the
    /// permissions' locations are computed from, which their bounds checks read. `known` is what
    /// the code before says of the variables.
    fn with_invariants(
        &mut self,
        block: &Block,
        known: &mut candidates::Known,
        candidates: &mut Vec<Vec<bool>>,
    ) -> Block {
        let mut stmts = Vec::new();
        for stmt in &block.stmts {
            let kind = match &stmt.kind {
                StmtKind::While { invariants, cond, body } => {
                    let held = self.loops.remove(&(stmt as *const Stmt)).unwrap_or_default();
                    // The candidates first (the guesses, and those the kernel was written with
                    // that read no memory), then the permissions, then the written candidates
                    // that read memory, which the permissions frame, then the written invariants.
                    let is_candidate = |clause: &Clause| self.kernel.candidate_invariants.contains(&clause.span);
                    let (written_candidates, written): (Vec<Clause>, Vec<Clause>) =
                        invariants.iter().cloned().partition(is_candidate);
                    let (reading, pure): (Vec<Clause>, Vec<Clause>) =
                        written_candidates.into_iter().partition(|clause| assertion_reads_memory(&clause.assertion));
                    let span = Span::new(stmt.span.start, stmt.span.start);
                    let mut guesses = candidates::of_loop(cond, body, known, &self.pins, span);
                    guesses.extend(pure);
                    let bounds = self.loop_bounds.remove(&(stmt as *const Stmt)).unwrap_or_default();
                    let as_clause = |fact: Expr| Clause {
                        assertion: Assertion { kind: AssertionKind::Pure(fact.spanning(span)), span },
                        span,
                    };
                    guesses.extend(bounds.counter.into_iter().map(as_clause));
                    let permissions = self.clause(held, span);
                    // The bounds on cells read memory: after the permissions that frame them.
                    let reading: Vec<Clause> = bounds.cells.into_iter().map(as_clause).chain(reading).collect();
                    let mut marks = vec![true; guesses.len()];
                    marks.extend(std::iter::repeat_n(false, permissions.len()));
                    marks.extend(std::iter::repeat_n(true, reading.len()));
                    marks.extend(std::iter::repeat_n(false, written.len()));
                    candidates.push(marks.clone());
                    let invariants: Vec<Clause> =
                        guesses.into_iter().chain(permissions).chain(reading).chain(written).collect();
                    let mut assigned = BTreeSet::new();
                    assigned_vars(&body.stmts, &mut assigned);
                    for &var in &assigned {
                        known.forget(var);
                    }
                    let mut in_body = known.clone();
                    in_body.holds(cond);
                    let enclosing = self.loop_guesses.len();
                    self.loop_guesses.extend(invariants.iter().zip(&marks).filter(|(_, &mark)| mark).filter_map(
                        |(clause, _)| match &clause.assertion.kind {
                            AssertionKind::Pure(fact) if !footprint::reads_memory(fact) => Some(fact.clone()),
                            _ => None,
                        },
                    ));
                    let body = self.with_invariants(body, &mut in_body, candidates);
                    self.loop_guesses.truncate(enclosing);
                    StmtKind::While { invariants, cond: cond.clone(), body }
                }
                StmtKind::If { cond, then_branch, else_branch } => {
                    let mut else_known = known.clone();
                    else_known.holds(&footprint::not(cond));
                    known.holds(cond);
                    let then_branch = self.with_invariants(then_branch, known, candidates);
                    let else_branch =
                        else_branch.as_ref().map(|block| self.with_invariants(block, &mut else_known, candidates));
                    known.join(&else_known);
                    StmtKind::If { cond: cond.clone(), then_branch, else_branch }
                }
                StmtKind::Block(inner) => StmtKind::Block(self.with_invariants(inner, known, candidates)),
                other => {
                    match other {
                        StmtKind::Declare { var, init } => known.assign(*var, init.as_ref()),
                        StmtKind::Assign { var, value } => known.assign(*var, Some(value)),
                        StmtKind::Barrier(id) => {
                            self.barrier_facts.insert(*id, known.facts(stmt.span));
                            self.barrier_guesses.insert(*id, self.loop_guesses.clone());
                        }
                        _ => {}
                    }
                    other.clone()
                }
            };
            stmts.push(Stmt { kind, span: stmt.span });
        }
        Block { stmts, span: block.span }
    }
}

/// Adds the candidate clauses of each barrier ([`values`]) after its clauses, each with a span of
/// its own: empty, inside the barrier statement (past its start, where the inferred resources
/// stand), so that only the candidate's checks have it. A barrier takes as many as its statement
/// has room for. The spans, in order.
fn barrier_values(kernel: &mut Kernel, candidates: Vec<(BarrierId, values::BarrierValues)>) -> Vec<Span> {
    let mut spans = Vec::new();
    for (id, values) in candidates {
        let barrier = &mut kernel.barriers[id.0 as usize];
        let offsets = barrier.span.start + 1..barrier.span.end;
        let facts = values
            .requires
            .into_iter()
            .map(|fact| (fact, true))
            .chain(values.ensures.into_iter().map(|fact| (fact, false)));
        for (offset, (fact, requires)) in offsets.zip(facts) {
            let span = Span::new(offset, offset);
            let clause = Clause { assertion: Assertion { kind: AssertionKind::Pure(fact.spanning(span)), span }, span };
            let clauses = if requires { &mut barrier.contract.requires } else { &mut barrier.contract.ensures };
            clauses.push(clause);
            spans.push(span);
        }
    }
    spans
}

/// Adds the inferred `clauses` to a contract's, after the facts that read no memory (the
/// launch's and the C program's, which the permissions' own checks may need) and before the
/// first clause that reads memory (which needs the permissions).
fn after_facts(contract: &mut Vec<Clause>, clauses: Vec<Clause>) {
    let at = contract.iter().position(|clause| assertion_reads_memory(&clause.assertion)).unwrap_or(contract.len());
    contract.splice(at..at, clauses);
}

/// The conjuncts of an assertion's facts (through its `**`).
fn facts_of(assertion: &Assertion) -> Vec<&Expr> {
    match &assertion.kind {
        AssertionKind::Pure(expr) => candidates::conjuncts(expr),
        AssertionKind::Star(lhs, rhs) => [facts_of(lhs), facts_of(rhs)].concat(),
        _ => Vec::new(),
    }
}

/// The conjuncts `m == e` (or `e == m`) of an assertion's facts with `m` a read of memory and `e`
/// free of it, as `(m, e)`.
fn memory_values(assertion: &Assertion) -> Vec<(Expr, Expr)> {
    let parts = facts_of(assertion);
    let is_read = |expr: &Expr| matches!(expr.kind, ExprKind::Read { .. });
    parts
        .into_iter()
        .filter_map(|part| match &part.kind {
            ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs } if is_read(lhs) && !footprint::reads_memory(rhs) => {
                Some(((**lhs).clone(), (**rhs).clone()))
            }
            ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs } if is_read(rhs) && !footprint::reads_memory(lhs) => {
                Some(((**rhs).clone(), (**lhs).clone()))
            }
            _ => None,
        })
        .collect()
}

/// `a % b` as `a mod b` where they are the same (`a` non-negative by its form, `b` a positive
/// number): C's `%` is one or the other by what the frontend knows of the operands' signs, which
/// a fact and the code may know differently.
fn remainders_as_modulo(expr: &Expr) -> Expr {
    expr.rewrite(&|part| match &part.kind {
        ExprKind::Binary { op: BinaryOp::Rem, lhs, rhs }
            if lhs.is_non_negative() && matches!(&rhs.kind, ExprKind::Int(value) if *value > BigInt::from(0)) =>
        {
            let kind =
                ExprKind::Binary { op: BinaryOp::Mod, lhs: Box::new(remainders_as_modulo(lhs)), rhs: rhs.clone() };
            Some(Expr { kind, ..part.clone() })
        }
        _ => None,
    })
}

/// Whether an assertion reads memory or names a permission: what needs permissions before it.
fn assertion_reads_memory(assertion: &Assertion) -> bool {
    match &assertion.kind {
        AssertionKind::Pure(expr) => footprint::reads_memory(expr),
        _ => true,
    }
}

/// The size of `array` when its accesses are checked against it ([`crate::Array::bounded`]).
fn checked_size(kernel: &Kernel, array: ArrayId) -> Option<Expr> {
    let array = kernel.array(array);
    array.bounded.then(|| array.size.clone())
}

/// A new bound variable, added to `vars`.
fn binder(vars: &mut Vec<Var>, span: Span) -> VarId {
    let id = VarId(vars.len() as u32);
    vars.push(Var { name: format!("j{}", id.0), ty: Type::Int, kind: VarKind::Bound, span });
    id
}

/// The conditions and binders an expression's reads stand under.
#[derive(Default)]
struct Scope {
    guards: Vec<Expr>,
    binders: Vec<VarId>,
}

/// The variables the kernel's body declares at its top with a value of the launch alone
/// (`int i = get_local_id(0);`) and never assigns again, with those values.
fn fixed_vars(kernel: &Kernel) -> HashMap<VarId, Expr> {
    let mut declared = HashMap::new();
    for stmt in &kernel.body.stmts {
        if let StmtKind::Declare { var, init: Some(value) } = &stmt.kind {
            if !footprint::reads_memory(value) && !value.any(|expr| matches!(expr.kind, ExprKind::Var(_))) {
                declared.insert(*var, value.clone());
            }
        }
    }
    let mut assigned = BTreeSet::new();
    let others: Vec<Stmt> = kernel
        .body
        .stmts
        .iter()
        .filter(|stmt| !matches!(&stmt.kind, StmtKind::Declare { var, .. } if declared.contains_key(var)))
        .cloned()
        .collect();
    assigned_vars(&others, &mut assigned);
    declared.retain(|var, _| !assigned.contains(var));
    declared
}

/// Whether a barrier stands anywhere in `stmts`.
fn has_barrier(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Barrier(_) => true,
        StmtKind::If { then_branch, else_branch, .. } => {
            has_barrier(&then_branch.stmts) || else_branch.as_ref().is_some_and(|block| has_barrier(&block.stmts))
        }
        StmtKind::While { body, .. } | StmtKind::Block(body) => has_barrier(&body.stmts),
        _ => false,
    })
}

/// The variables `stmts` assign or declare, anywhere in them.
fn assigned_vars(stmts: &[Stmt], out: &mut BTreeSet<VarId>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Declare { var, .. } | StmtKind::Assign { var, .. } => {
                out.insert(*var);
            }
            StmtKind::If { then_branch, else_branch, .. } => {
                assigned_vars(&then_branch.stmts, out);
                if let Some(block) = else_branch {
                    assigned_vars(&block.stmts, out);
                }
            }
            StmtKind::While { body, .. } | StmtKind::Block(body) => assigned_vars(&body.stmts, out),
            _ => {}
        }
    }
}
