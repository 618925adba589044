//! The pre- and postconditions between the levels (PO-4 to PO-7), for written kernel and group
//! contracts (`proofs/kernel.md`, E11):
//! - `kernel.pre`: `K_pre ⇒ ∀gid. G_pre(gid)`;
//! - `group.pre`: `G_pre(gid) ⇒ ∀lid. T_pre(gid, lid)`;
//! - `group.post`: `(∀lid. T_post(gid, lid)) ⇒ G_post(gid)`;
//! - `kernel.post`: `(∀gid. G_post(gid)) ⇒ K_post`.
//!
//! A contract that is not written is the one generated from the level below (`G_pre = ∀lid.
//! T_pre`, and so on), so with a written kernel contract and a generated group contract the
//! kernel's obligations reach down to the threads. Each obligation is a procedure over one
//! arbitrary group (and thread), with the heap of the launch (`H0`) and the heap at the end (`H`):
//! the levels are compared when no thread runs, so no framing is involved.

use super::expr::Context;
use super::{conjunction, names, Assumed, Encoder};
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, Stmt, StmtKind, Type};
use lockstep_logic::resources::{normal_form, Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, ObligationId};

/// Which contract a level's clauses come from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Kernel,
    Group,
    Thread,
}

/// Which clauses: the preconditions (read in the launch heap) or the postconditions (in the final heap).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Pre,
    Post,
}

impl<'k> Encoder<'k> {
    /// The procedures of the level obligations that the written contracts call for.
    pub(super) fn level_procedures(&mut self) -> Vec<Declaration> {
        let kernel = self.kernel;
        let mut procedures = Vec::new();
        let written_kernel = kernel.kernel_contract.is_some();
        let written_group = kernel.group_contract.is_some();
        if written_kernel {
            // K_pre ⇒ G_pre for every group, where G_pre reaches down to the threads if generated.
            let below = if written_group { Level::Group } else { Level::Thread };
            procedures.push(self.implication(Level::Kernel, below, Side::Pre, ObligationId::KernelPre));
            procedures.push(self.implication(below, Level::Kernel, Side::Post, ObligationId::KernelPost));
        }
        if written_group {
            procedures.push(self.implication(Level::Group, Level::Thread, Side::Pre, ObligationId::GroupPre));
            procedures.push(self.implication(Level::Thread, Level::Group, Side::Post, ObligationId::GroupPost));
        }
        for (level, written) in [(Level::Kernel, written_kernel), (Level::Group, written_group)] {
            if written {
                procedures.push(self.definedness(level));
            }
        }
        procedures.into_iter().map(Declaration::Procedure).collect()
    }

    /// `from ⇒ to` for one side: for preconditions the upper level is assumed for the arbitrary
    /// group and thread; for postconditions the lower level is assumed for every group or thread
    /// below the arbitrary one above.
    fn implication(&mut self, from: Level, to: Level, side: Side, id: ObligationId) -> Procedure {
        let kernel = self.kernel;
        let (gid, lid) = (Expr::var(names::GID), Expr::var(names::LID));
        let mut stmts = Vec::new();
        let context = |gid: &Expr, lid: &Expr| {
            let mut context = self.context([super::thread_id(gid, lid), gid.clone(), lid.clone()], ObligationId::Frame);
            context.check_reads = false;
            if side == Side::Pre {
                context.heaps = context.old_heaps.clone();
            }
            context
        };
        let here = context(&gid, &lid);
        match side {
            Side::Pre => {
                for fact in self.facts(from, side, &here) {
                    stmts.push(Stmt::new(StmtKind::Assume(fact)));
                }
            }
            Side::Post => {
                // The level's own written precondition held at the launch (PO-6, PO-7: the triple
                // of the level is checked, not its postcondition alone).
                let mut launch = here.clone();
                launch.heaps = launch.old_heaps.clone();
                for fact in self.facts(to, Side::Pre, &launch) {
                    stmts.push(Stmt::new(StmtKind::Assume(fact)));
                }
                // An array no thread can write keeps its launch contents (E11).
                for array in self.arrays() {
                    if !writable(kernel, logic::ArrayId(array as u32)) {
                        stmts.push(Stmt::new(StmtKind::Assume(Expr::binary(
                            BinaryOp::Eq,
                            Expr::var(names::heap(kernel, array)),
                            Expr::var(names::old_heap(kernel, array)),
                        ))));
                    }
                }
                // Every group (for the kernel) or every thread of the group (for a group) below.
                let (bound, below) = match to {
                    Level::Kernel => ("every_gid", context(&Expr::var("every_gid"), &Expr::var("every_lid"))),
                    _ => ("every_lid", context(&gid, &Expr::var("every_lid"))),
                };
                let mut variables = vec![Binding::new(bound, Type::Int)];
                let mut range = vec![if to == Level::Kernel {
                    super::expr::in_bounds(&Expr::var("every_gid"), super::expr::groups())
                } else {
                    super::expr::in_bounds(&Expr::var("every_lid"), Expr::var(names::GSIZE))
                }];
                if to == Level::Kernel && from == Level::Thread {
                    variables.push(Binding::new("every_lid", Type::Int));
                    range.push(super::expr::in_bounds(&Expr::var("every_lid"), Expr::var(names::GSIZE)));
                }
                let facts = self.facts(from, side, &below);
                if !facts.is_empty() {
                    stmts.push(Stmt::new(StmtKind::Assume(Expr::Quantified {
                        quantifier: ivl::Quantifier::Forall,
                        bound: variables,
                        triggers: Vec::new(),
                        body: Box::new(Expr::binary(BinaryOp::Implies, conjunction(range), conjunction(facts))),
                    })));
                }
                if to == Level::Kernel && from == Level::Thread {
                    stmts.extend(self.thread_posts_by_tid(side).map(|fact| Stmt::new(StmtKind::Assume(fact))));
                }
            }
        }
        let targets: Vec<(Conjunct, Expr)> = self.fact_conjuncts(to, side, &here);
        let what = match (to, side) {
            (Level::Kernel, Side::Post) => "this kernel postcondition might not follow from the group postconditions",
            (Level::Group, Side::Post) => "this group postcondition might not follow from the thread postconditions",
            (Level::Group, Side::Pre) => "this group precondition might not follow from the kernel precondition",
            (Level::Thread, Side::Pre) if from == Level::Kernel => {
                "this thread precondition might not follow from the kernel precondition"
            }
            _ => "this thread precondition might not follow from the group precondition",
        };
        for (conjunct, fact) in targets {
            let tag = self.tag(id, conjunct.span, what.into());
            stmts.push(Stmt::new(StmtKind::Assert { expr: fact, tag: Some(tag), assumed: true }));
        }
        let name = format!("{}_{}", id.as_str().replace('.', "_"), self.obligations.len());
        self.level_procedure(name, stmts)
    }

    /// The written contract of a level is well defined (E1, E11): every index in bounds, every
    /// divisor non-zero, every call within its precondition, for an arbitrary group. Clauses are
    /// checked in order, each assuming the ones before it; the preconditions in the launch heap,
    /// the postconditions in the final heap (with `\old` reading the launch heap) after all
    /// preconditions. No permission is needed: no thread runs when the levels are compared.
    fn definedness(&mut self, level: Level) -> Procedure {
        let (gid, lid) = (Expr::var(names::GID), Expr::var(names::LID));
        let mut context = self.context([super::thread_id(&gid, &lid), gid.clone(), lid.clone()], ObligationId::Frame);
        context.frame_reads = false;
        let mut launch = context.clone();
        launch.heaps = launch.old_heaps.clone();
        let mut stmts = Vec::new();
        for (side, context) in [(Side::Pre, &launch), (Side::Post, &context)] {
            for conjunct in self.clauses(level, side).iter().flat_map(|clause| normal_form(&clause.assertion)) {
                let (conditions, fact) = super::facts::defined_fact(context, &conjunct);
                for condition in conditions {
                    let tag = self.tag(condition.id, condition.span, condition.message);
                    stmts.push(Stmt::new(StmtKind::Assert { expr: condition.expr, tag: Some(tag), assumed: true }));
                }
                stmts.extend(fact.map(|fact| Stmt::new(StmtKind::Assume(fact))));
            }
            // The written precondition, for an arbitrary group and thread, at the launch (E14).
            if let Some(span) = super::clauses_span(self.clauses(level, Side::Pre)).filter(|_| side == Side::Pre) {
                let position = if level == Level::Kernel { Assumed::KernelPre } else { Assumed::GroupPre };
                self.probe(&mut stmts, position, span);
            }
        }
        let what = if level == Level::Kernel { "kernel" } else { "group" };
        let name = format!("defined_{what}_contract_{}", self.obligations.len());
        self.level_procedure(name, stmts)
    }

    /// A procedure of the levels: over an arbitrary group `gid` and thread `lid`, with the heaps of
    /// the launch and the end as locals.
    fn level_procedure(&mut self, name: String, stmts: Vec<Stmt>) -> Procedure {
        let kernel = self.kernel;
        let mut locals = Vec::new();
        for index in self.arrays() {
            locals.push(Binding::new(names::heap(kernel, index), Type::map(Type::Int, Type::Int)));
            locals.push(Binding::new(names::old_heap(kernel, index), Type::map(Type::Int, Type::Int)));
        }
        let gid = Expr::var(names::GID);
        let mut facts = vec![
            super::expr::in_bounds(&gid, super::expr::groups()),
            super::expr::in_bounds(&Expr::var(names::LID), Expr::var(names::GSIZE)),
        ];
        facts.extend(super::group_block(&gid));
        self.procedure(name, &[names::GID, names::LID], facts, true, locals, stmts)
    }

    /// The thread postconditions of every thread again, quantified over its `tid` rather than its
    /// `gid` and `lid`: thread `t` is thread `t mod gsize` of group `t div gsize`, so this is an
    /// instance of the assumption over all groups and threads (E11). A kernel postcondition about
    /// every cell `i` of an array needs the thread whose `tid` is `i`, which the solver finds here by
    /// matching `a[t]` rather than by dividing `i`.
    fn thread_posts_by_tid(&self, side: Side) -> Option<Expr> {
        let tid = Expr::var("every_tid");
        let gsize = Expr::var(names::GSIZE);
        let mut context = self.context(
            [
                tid.clone(),
                Expr::binary(BinaryOp::Div, tid.clone(), gsize.clone()),
                Expr::binary(BinaryOp::Mod, tid.clone(), gsize),
            ],
            ObligationId::Frame,
        );
        context.check_reads = false;
        let facts = self.facts(Level::Thread, side, &context);
        (!facts.is_empty()).then(|| Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: vec![Binding::new("every_tid", Type::Int)],
            triggers: Vec::new(),
            body: Box::new(Expr::binary(
                BinaryOp::Implies,
                super::expr::in_bounds(&tid, Expr::var(names::TCOUNT)),
                conjunction(facts),
            )),
        })
    }

    fn clauses(&self, level: Level, side: Side) -> &'k [logic::Clause] {
        let kernel = self.kernel;
        let contract = match level {
            Level::Kernel => kernel.kernel_contract.as_ref(),
            Level::Group => kernel.group_contract.as_ref(),
            Level::Thread => Some(&kernel.thread_contract),
        };
        match (contract, side) {
            (Some(contract), Side::Pre) => &contract.requires,
            (Some(contract), Side::Post) => &contract.ensures,
            (None, _) => &[],
        }
    }

    /// The facts of a level's clauses, closed over their guards and `\forall*`.
    fn facts(&self, level: Level, side: Side, context: &Context) -> Vec<Expr> {
        self.fact_conjuncts(level, side, context).into_iter().map(|(_, fact)| fact).collect()
    }

    fn fact_conjuncts(&self, level: Level, side: Side, context: &Context) -> Vec<(Conjunct, Expr)> {
        self.clauses(level, side)
            .iter()
            .flat_map(|clause| normal_form(&clause.assertion))
            .filter(|conjunct| matches!(conjunct.kind, ConjunctKind::Fact(_)))
            .filter_map(|conjunct| {
                let fact = super::facts::closed_fact(context, &conjunct)?;
                Some((conjunct, fact))
            })
            .collect()
    }
}

/// Whether some thread may write some location of the array: some statement writes it, and at
/// the launch or at some barrier a thread may receive exact amounts of it that add up to all of a
/// location. Within a barrier interval a thread gains no permission, so it writes only what it
/// held entirely at the interval's start (E11).
fn writable(kernel: &logic::Kernel, array: logic::ArrayId) -> bool {
    let starts = std::iter::once(&kernel.thread_contract.requires)
        .chain(kernel.barriers.iter().map(|barrier| &barrier.contract.ensures));
    let may_complete = |clauses: &[logic::Clause]| {
        let total: num_rational::BigRational = clauses
            .iter()
            .flat_map(|clause| normal_form(&clause.assertion))
            .filter_map(|conjunct| match conjunct.kind {
                ConjunctKind::Perm { array: on, amount: logic::Amount::Exact(amount), .. } if on == array => {
                    Some(amount)
                }
                _ => None,
            })
            .sum();
        total >= num_rational::BigRational::from_integer(1.into())
    };
    kernel.writes(array) && starts.into_iter().any(|clauses| may_complete(clauses))
}
