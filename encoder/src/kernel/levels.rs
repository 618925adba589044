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
//! the levels are compared when no thread runs, so nothing races; a level whose resources are
//! written must still read only what they hold (`frame`, E15).

use super::conjunct::CELL;
use super::expr::{real_zero, Context};
use super::facts::closed_fact;
use super::names;
use super::state::{clauses_span, conjunction, group_block, mask_type, thread_id, Assumed, Encoder};
use crate::ivl::{self, BinaryOp, Binding, Expr, Procedure, Stmt, StmtKind, Type};
use lockstep_logic::outline::{self, Check, Global, Level, Side};
use lockstep_logic::resources::{normal_form, Conjunct, ConjunctKind};
use lockstep_logic::{self as logic, ObligationId};

/// The amount a level's `read` stands for when its contract is framed.
const WILDCARD: &str = "level_wildcard";

impl<'k> Encoder<'k> {
    /// The procedure of a level obligation of the outline: an implication between levels, or the
    /// definedness of a written contract.
    pub(super) fn level_obligation(&mut self, global: &Global) -> Procedure {
        match global {
            Global::Implication { from, to, side, targets, id, serial } => {
                self.implication(*from, *to, *side, targets, *id, *serial)
            }
            Global::Defined { level, parts, serial } => self.definedness(*level, parts, *serial),
            _ => unreachable!("a level obligation"),
        }
    }

    /// `from ⇒ to` for one side: for preconditions the upper level is assumed for the arbitrary
    /// group and thread; for postconditions the lower level is assumed for every group or thread
    /// below the arbitrary one above.
    fn implication(
        &mut self,
        from: Level,
        to: Level,
        side: Side,
        targets: &[(Conjunct, usize)],
        id: ObligationId,
        serial: usize,
    ) -> Procedure {
        let kernel = self.kernel;
        let (gid, lid) = (Expr::var(names::GID), Expr::var(names::LID));
        let mut stmts = Vec::new();
        let context = |gid: &Expr, lid: &Expr| {
            let mut context = self.context([thread_id(gid, lid), gid.clone(), lid.clone()]);
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
                let group = (to == Level::Group).then_some(&gid);
                stmts.extend(self.posts_by_tid(from, side, group).map(|fact| Stmt::new(StmtKind::Assume(fact))));
            }
        }
        for (conjunct, number) in targets {
            let fact = closed_fact(&here, conjunct).expect("a target of a level obligation is a fact");
            self.prove(&mut stmts, *number, fact);
        }
        let name = format!("{}_{serial}", id.as_str().replace('.', "_"));
        self.level_procedure(name, Vec::new(), stmts)
    }

    /// The written contract of a level is well defined (E1, E11): every index in bounds, every
    /// divisor non-zero, every call within its precondition, for an arbitrary group. Clauses are
    /// checked in order, each assuming the ones before it; the preconditions in the launch heap,
    /// the postconditions in the final heap (with `\old` reading the launch heap) after all
    /// preconditions. No permission is needed: no thread runs when the levels are compared.
    fn definedness(&mut self, level: Level, parts: &[(Side, Conjunct, Vec<Check>)], serial: usize) -> Procedure {
        let (gid, lid) = (Expr::var(names::GID), Expr::var(names::LID));
        let context = self.context([thread_id(&gid, &lid), gid.clone(), lid.clone()]);
        let mut launch = context.clone();
        launch.heaps = launch.old_heaps.clone();
        let mut stmts = Vec::new();
        let mut masks = Vec::new();
        if outline::resources_written(self.kernel, level) {
            masks = self.level_masks(level, &mut stmts);
        }
        for (side, context) in [(Side::Pre, &launch), (Side::Post, &context)] {
            for (_, conjunct, checks) in parts.iter().filter(|(on, _, _)| *on == side) {
                self.checks(context, checks, &mut stmts);
                stmts.extend(closed_fact(context, conjunct).map(|fact| Stmt::new(StmtKind::Assume(fact))));
            }
            // The written precondition, for an arbitrary group and thread, at the launch (E14).
            if let Some(span) = clauses_span(self.clauses(level, Side::Pre)).filter(|_| side == Side::Pre) {
                let position = if level == Level::Kernel { Assumed::KernelPre } else { Assumed::GroupPre };
                self.probe(&mut stmts, position, span);
            }
        }
        let name = format!("defined_{}_contract_{serial}", level.name());
        self.level_procedure(name, masks, stmts)
    }

    /// The masks of a level that holds its written resources, for framing its contract (E15):
    /// `M := (lambda j :: exact(j) + (read(j) ? w : 0))` with a wildcard `w > 0` for `read`. The
    /// masks are the procedure's locals it returns.
    fn level_masks(&mut self, level: Level, stmts: &mut Vec<Stmt>) -> Vec<Binding> {
        let mut locals = vec![Binding::new(WILDCARD, Type::Real)];
        let wildcard = Expr::var(WILDCARD);
        stmts.push(Stmt::new(StmtKind::Assume(Expr::binary(BinaryOp::Gt, wildcard.clone(), real_zero()))));
        for array in self.arrays() {
            let mask = names::mask(self.kernel, array);
            locals.push(Binding::new(&mask, mask_type()));
            let cell = Expr::var(CELL);
            let held = self.written(level, logic::ArrayId(array as u32), &cell);
            let read = Expr::IfThenElse(Box::new(held.read), Box::new(wildcard.clone()), Box::new(real_zero()));
            let value = Expr::Lambda {
                bound: Binding::new(CELL, Type::Int),
                body: Box::new(Expr::binary(BinaryOp::Add, held.exact, read)),
            };
            stmts.push(Stmt::new(StmtKind::Assign { target: mask, indices: Vec::new(), value }));
        }
        locals
    }

    /// A procedure of the levels: over an arbitrary group `gid` and thread `lid`, with the heaps of
    /// the launch and the end as locals.
    fn level_procedure(&mut self, name: String, mut locals: Vec<Binding>, stmts: Vec<Stmt>) -> Procedure {
        let kernel = self.kernel;
        for index in self.arrays() {
            locals.push(Binding::new(names::heap(kernel, index), Type::map(Type::Int, Type::Int)));
            locals.push(Binding::new(names::old_heap(kernel, index), Type::map(Type::Int, Type::Int)));
        }
        let gid = Expr::var(names::GID);
        let mut facts = vec![
            super::expr::in_bounds(&gid, super::expr::groups()),
            super::expr::in_bounds(&Expr::var(names::LID), Expr::var(names::GSIZE)),
        ];
        facts.extend(group_block(&gid));
        self.procedure(name, &[names::GID, names::LID], facts, true, locals, stmts)
    }

    /// The postconditions of level `from` (the threads of the kernel or of group `group`, or the
    /// groups of the kernel) again, quantified over a thread id `t` rather than a `gid` and `lid`:
    /// thread `t` is thread `t mod gsize` of group `t div gsize` (thread `t - g*gsize` of group
    /// `g`), so this is an instance of the assumption over the threads or groups (E11). A
    /// postcondition about every cell `i` of an array needs the thread whose `tid` is `i` (or its
    /// group), which the solver finds here by matching `a[t]` rather than by dividing or
    /// subtracting.
    fn posts_by_tid(&self, from: Level, side: Side, group: Option<&Expr>) -> Option<Expr> {
        let tid = Expr::var("every_tid");
        let gsize = Expr::var(names::GSIZE);
        let (ids, range) = match group {
            None => (
                [
                    tid.clone(),
                    Expr::binary(BinaryOp::Div, tid.clone(), gsize.clone()),
                    Expr::binary(BinaryOp::Mod, tid.clone(), gsize),
                ],
                super::expr::in_bounds(&tid, Expr::var(names::TCOUNT)),
            ),
            Some(gid) => {
                let start = Expr::binary(BinaryOp::Mul, gid.clone(), gsize.clone());
                let lid = Expr::binary(BinaryOp::Sub, tid.clone(), start.clone());
                let range = Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Le, start.clone(), tid.clone()),
                    Expr::binary(BinaryOp::Lt, tid.clone(), Expr::binary(BinaryOp::Add, start, gsize)),
                );
                ([tid.clone(), gid.clone(), lid], range)
            }
        };
        let context = self.context(ids);
        let facts = self.facts(from, side, &context);
        (!facts.is_empty()).then(|| Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: vec![Binding::new("every_tid", Type::Int)],
            triggers: Vec::new(),
            body: Box::new(Expr::binary(BinaryOp::Implies, range, conjunction(facts))),
        })
    }

    fn clauses(&self, level: Level, side: Side) -> &'k [logic::Clause] {
        outline::clauses(self.kernel, level, side).unwrap_or(&[])
    }

    /// The facts of a level's clauses, closed over their guards and `\forall*`.
    fn facts(&self, level: Level, side: Side, context: &Context) -> Vec<Expr> {
        self.clauses(level, side)
            .iter()
            .flat_map(|clause| normal_form(&clause.assertion))
            .filter_map(|conjunct| closed_fact(context, &conjunct))
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
    // An amount `q \ d` may be all of `q` (where `d` is 1): it may complete a write.
    let may_complete = |clauses: &[logic::Clause]| {
        let mut total = num_rational::BigRational::from_integer(0.into());
        for conjunct in clauses.iter().flat_map(|clause| normal_form(&clause.assertion)) {
            match conjunct.kind {
                ConjunctKind::Perm { array: on, amount: logic::Amount::Exact(amount), .. } if on == array => {
                    total += amount
                }
                ConjunctKind::Perm { array: on, amount: logic::Amount::Divided { .. }, .. } if on == array => {
                    return true
                }
                _ => {}
            }
        }
        total >= num_rational::BigRational::from_integer(1.into())
    };
    kernel.writes(array) && starts.into_iter().any(|clauses| may_complete(clauses))
}
