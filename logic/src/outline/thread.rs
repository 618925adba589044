//! The per-thread triple `{T_res * T_pre} body {T_res' * T_post}` (seed Theorem 5.3.1, the
//! thread premise; `proofs/kernel.md`, E2): one arbitrary thread runs the body, and each barrier
//! is a call, which checks the barrier's precondition, gives up all permission, forgets the heap,
//! and takes the barrier's resources and postcondition (E3).
//!
//! Contracts are read conjunct by conjunct ([`crate::resources::normal_form`]): inhaling adds
//! permission and assumes facts, exhaling checks and removes them (E4). Reads in code need
//! permission (`access.read`), and reads in contracts need the permission held where the
//! contract is read (`frame`).

use super::checks::{Check, Place, Reads};
use super::Numbering;
use crate::resources::{normal_form, Conjunct, ConjunctKind};
use crate::{ArrayId, BarrierId, Block, Clause, Expr, Function, Kernel, ObligationId, Span, StmtKind, VarId};

/// One conjunct of a contract, where the triple takes, gives or asserts it.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub conjunct: Conjunct,
    /// The definedness of its ranges, guards, fact or index, and an atom's index in bounds.
    pub checks: Vec<Check>,
    /// Where the conjunct is exhaled or asserted: the obligation that the fact holds or the
    /// permission is held.
    pub holds: Option<usize>,
    /// Where an exact permission under `\forall*` is exhaled: the obligation that two values of
    /// the bound variable never name one location (else the amount would be taken once where it
    /// is owed twice).
    pub distinct: Option<usize>,
}

/// A step of the thread's triple.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Add the permissions and assume the facts.
    Inhale(Vec<Part>),
    /// Check and remove the permissions, check the facts: each part's `holds` is an obligation
    /// `id`. `serial` is the number of obligations before it, which names its state.
    Exhale {
        id: ObligationId,
        parts: Vec<Part>,
        serial: usize,
    },
    /// Check the facts and that the permissions are held, removing nothing.
    Assert {
        id: ObligationId,
        parts: Vec<Part>,
    },
    /// `int x;` (no value) or `x := e;`.
    Assign {
        var: VarId,
        value: Option<Expr>,
        checks: Vec<Check>,
    },
    /// `a[i] := e`: the index in bounds (`bounds`, where the array is
    /// [`crate::Array::bounded`]), write permission held (`write`).
    Write {
        array: ArrayId,
        index: Expr,
        value: Expr,
        checks: Vec<Check>,
        bounds: Option<usize>,
        write: usize,
        span: Span,
    },
    If {
        cond: Expr,
        checks: Vec<Check>,
        then_branch: Vec<Command>,
        else_branch: Vec<Command>,
    },
    /// A loop, cut as Viper cuts it (E6): the invariant exhaled on entry; then either one
    /// iteration from the invariant alone, exhaled again at its end, or the exit with the
    /// invariant and the condition false. `serial` names the frame's state.
    Loop {
        invariants: Vec<Clause>,
        cond: Expr,
        entry: Box<Command>,
        /// The invariant an iteration starts from.
        inhaled: Vec<Part>,
        cond_checks: Vec<Check>,
        body: Vec<Command>,
        preserved: Box<Command>,
        /// The invariant the exit takes.
        exit: Vec<Part>,
        /// A barrier in the body takes away the permission the loop does not hold (E6).
        barrier_inside: bool,
        serial: usize,
        span: Span,
    },
    /// The barrier as a call: its precondition asserted (`barrier.pre`), then all permission and
    /// the heap given up, then its resources and postcondition inhaled.
    Barrier {
        barrier: BarrierId,
        pre: Vec<Part>,
        post: Vec<Part>,
    },
    /// `assume e;`.
    Assume {
        expr: Expr,
        checks: Vec<Check>,
        span: Span,
    },
}

/// The triple: the thread precondition inhaled, the body, the thread postcondition exhaled.
pub fn triple(kernel: &Kernel, functions: &[Function], numbering: &mut Numbering) -> Vec<Command> {
    let walker = Walker { kernel, functions };
    let mut commands = vec![Command::Inhale(walker.inhaled(&kernel.thread_contract.requires, numbering))];
    walker.block(&kernel.body, numbering, &mut commands);
    commands.push(walker.exhale(&kernel.thread_contract.ensures, ObligationId::ThreadPost, numbering));
    commands
}

struct Walker<'a> {
    kernel: &'a Kernel,
    functions: &'a [Function],
}

impl Walker<'_> {
    fn place(&self, reads: Reads) -> Place<'_> {
        Place { kernel: self.kernel, functions: self.functions, reads, termination: None }
    }

    /// Code: reads need permission (`access.read`).
    fn code_checks(&self, expr: &Expr, numbering: &mut Numbering) -> Vec<Check> {
        let mut checks = Vec::new();
        self.place(Reads::Framed(ObligationId::AccessRead)).checks(expr, &[], &[], numbering, &mut checks);
        checks
    }

    /// A conjunct's definedness ([`super::Place::conjunct_checks`]).
    fn part(&self, conjunct: &Conjunct, reads: Reads, numbering: &mut Numbering) -> Part {
        let mut checks = Vec::new();
        self.place(reads).conjunct_checks(conjunct, numbering, &mut checks);
        Part { conjunct: conjunct.clone(), checks, holds: None, distinct: None }
    }

    /// The parts of inhaled clauses (a contract, read where its permissions frame it).
    fn inhaled(&self, clauses: &[Clause], numbering: &mut Numbering) -> Vec<Part> {
        conjuncts(clauses).map(|conjunct| self.part(&conjunct, Reads::Framed(ObligationId::Frame), numbering)).collect()
    }

    fn exhale(&self, clauses: &[Clause], id: ObligationId, numbering: &mut Numbering) -> Command {
        let serial = numbering.len();
        let what = describe(id);
        let parts = conjuncts(clauses)
            .map(|conjunct| {
                let mut part = self.part(&conjunct, Reads::Framed(ObligationId::Frame), numbering);
                match &conjunct.kind {
                    ConjunctKind::Fact(_) => {
                        part.holds = Some(numbering.add(id, conjunct.span, format!("{what} might not hold")));
                    }
                    ConjunctKind::Perm { array, amount, .. } => {
                        let name = &self.kernel.array(*array).name;
                        part.holds = Some(numbering.add(
                            id,
                            conjunct.span,
                            format!("{what}: the thread might not hold this permission on `{name}`"),
                        ));
                        if !conjunct.binders.is_empty() && amount.is_exact() {
                            part.distinct = Some(numbering.add(
                                id,
                                conjunct.span,
                                format!(
                                    "{what}: two values of the bound variable might name the same location of `{name}`"
                                ),
                            ));
                        }
                    }
                }
                part
            })
            .collect();
        Command::Exhale { id, parts, serial }
    }

    fn asserted(&self, clauses: &[Clause], id: ObligationId, reads: Reads, numbering: &mut Numbering) -> Vec<Part> {
        conjuncts(clauses)
            .map(|conjunct| {
                let mut part = self.part(&conjunct, reads, numbering);
                let message = match id {
                    ObligationId::Assert => "this assertion might not hold".to_string(),
                    other => format!("{} might not hold", describe(other)),
                };
                part.holds = Some(numbering.add(id, conjunct.span, message));
                part
            })
            .collect()
    }

    fn block(&self, block: &Block, numbering: &mut Numbering, out: &mut Vec<Command>) {
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::Declare { var, init: None } => {
                    out.push(Command::Assign { var: *var, value: None, checks: Vec::new() })
                }
                StmtKind::Declare { var, init: Some(value) } | StmtKind::Assign { var, value } => {
                    let checks = self.code_checks(value, numbering);
                    out.push(Command::Assign { var: *var, value: Some(value.clone()), checks });
                }
                StmtKind::Write { array, index, value } => {
                    let mut checks = self.code_checks(index, numbering);
                    checks.extend(self.code_checks(value, numbering));
                    let name = &self.kernel.array(*array).name;
                    let bounds = self.kernel.array(*array).bounded.then(|| {
                        numbering.add_bounds(
                            stmt.span,
                            format!("the index of this write to `{name}` might lie outside the array"),
                            index,
                        )
                    });
                    let write = numbering.add(
                        ObligationId::AccessWrite,
                        stmt.span,
                        format!("this write to `{name}` might not hold write permission"),
                    );
                    out.push(Command::Write {
                        array: *array,
                        index: index.clone(),
                        value: value.clone(),
                        checks,
                        bounds,
                        write,
                        span: stmt.span,
                    });
                }
                StmtKind::If { cond, then_branch, else_branch } => {
                    let checks = self.code_checks(cond, numbering);
                    let mut then_commands = Vec::new();
                    self.block(then_branch, numbering, &mut then_commands);
                    let mut else_commands = Vec::new();
                    if let Some(else_branch) = else_branch {
                        self.block(else_branch, numbering, &mut else_commands);
                    }
                    out.push(Command::If {
                        cond: cond.clone(),
                        checks,
                        then_branch: then_commands,
                        else_branch: else_commands,
                    });
                }
                StmtKind::While { invariants, cond, body } => {
                    let entry = self.exhale(invariants, ObligationId::LoopInvariantEntry, numbering);
                    let serial = numbering.len();
                    let inhaled = self.inhaled(invariants, numbering);
                    let cond_checks = self.code_checks(cond, numbering);
                    let mut body_commands = Vec::new();
                    self.block(body, numbering, &mut body_commands);
                    let preserved = self.exhale(invariants, ObligationId::LoopInvariantPreserved, numbering);
                    let exit = self.inhaled(invariants, numbering);
                    out.push(Command::Loop {
                        invariants: invariants.clone(),
                        cond: cond.clone(),
                        entry: Box::new(entry),
                        inhaled,
                        cond_checks,
                        body: body_commands,
                        preserved: Box::new(preserved),
                        exit,
                        barrier_inside: contains_barrier(body),
                        serial,
                        span: stmt.span,
                    });
                }
                StmtKind::Barrier(id) => {
                    let barrier = self.kernel.barrier(*id);
                    let pre = self.asserted(
                        &barrier.contract.requires,
                        ObligationId::BarrierPre,
                        Reads::Framed(ObligationId::Frame),
                        numbering,
                    );
                    let post = self.inhaled(&barrier.contract.ensures, numbering);
                    out.push(Command::Barrier { barrier: *id, pre, post });
                }
                StmtKind::Assert(assertion) => {
                    let clause = Clause { assertion: assertion.clone(), span: stmt.span };
                    let parts = self.asserted(
                        std::slice::from_ref(&clause),
                        ObligationId::Assert,
                        Reads::Framed(ObligationId::AccessRead),
                        numbering,
                    );
                    out.push(Command::Assert { id: ObligationId::Assert, parts });
                }
                StmtKind::Assume(expr) => {
                    let checks = self.code_checks(expr, numbering);
                    out.push(Command::Assume { expr: expr.clone(), checks, span: stmt.span });
                }
                StmtKind::Block(inner) => self.block(inner, numbering, out),
            }
        }
    }
}

/// The conjuncts of clauses, left to right.
fn conjuncts(clauses: &[Clause]) -> impl Iterator<Item = Conjunct> + '_ {
    clauses.iter().flat_map(|clause| normal_form(&clause.assertion))
}

/// Whether a block has a barrier somewhere inside.
fn contains_barrier(block: &Block) -> bool {
    block.stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Barrier(_) => true,
        StmtKind::If { then_branch, else_branch, .. } => {
            contains_barrier(then_branch) || else_branch.as_ref().is_some_and(contains_barrier)
        }
        StmtKind::While { body, .. } => contains_barrier(body),
        StmtKind::Block(inner) => contains_barrier(inner),
        _ => false,
    })
}

/// How a message names the clause an obligation is about.
fn describe(id: ObligationId) -> &'static str {
    match id {
        ObligationId::ThreadPost => "this postcondition",
        ObligationId::BarrierPre => "this barrier precondition",
        ObligationId::LoopInvariantEntry => "this loop invariant (on entry)",
        ObligationId::LoopInvariantPreserved => "this loop invariant (after an iteration)",
        _ => "this clause",
    }
}
