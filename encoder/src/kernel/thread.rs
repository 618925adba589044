//! The per-thread triple of the outline as the thread procedure (seed Theorem 5.3.1;
//! `proofs/kernel.md`, E2 to E6): its commands as statements over a heap and a permission mask per
//! array, each barrier a call.

use super::conjunct;
use super::expr::{self, Context};
use super::names;
use super::state::{clauses_span, ivl_type, mask_type, thread_id, without_checks, Assumed, Body, Encoder, Grant};
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, StmtKind, Type};
use lockstep_logic::outline::{Command, Part};
use lockstep_logic::{self as logic, VarId, VarKind};
use num_rational::BigRational;
use std::collections::BTreeSet;

impl<'k> Encoder<'k> {
    /// The per-thread triple `{T_res * T_pre} body {T_res' * T_post}` (seed Theorem 5.3.1, the
    /// thread premise; `proofs/kernel.md`, E2).
    pub(super) fn thread(&mut self) -> Procedure {
        let kernel = self.kernel;
        // `tid` is spelled `gid * gsize + lid` everywhere, so arithmetic modulo `gsize` sees the
        // thread's place in its group (E9).
        let thread =
            [thread_id(&Expr::var(names::GID), &Expr::var(names::LID)), Expr::var(names::GID), Expr::var(names::LID)];
        let mut context = self.context(thread);
        for (index, var) in kernel.vars.iter().enumerate() {
            if var.kind == VarKind::Private {
                let id = VarId(index as u32);
                context.vars.insert(id, Expr::var(names::private(kernel, id)));
            }
        }
        let mut body = Body { stmts: Vec::new(), locals: self.thread_state() };
        // Start: no permission, the heap as the launch left it, then inhale the precondition.
        self.forget_permissions(&mut body);
        for index in self.arrays() {
            body.push(StmtKind::Assign {
                target: names::old_heap(kernel, index),
                indices: Vec::new(),
                value: Expr::var(names::heap(kernel, index)),
            });
        }
        // The outline's triple begins with the thread precondition, inhaled.
        let (precondition, rest) = self.outline.thread.split_first().expect("a triple begins with its precondition");
        self.command(&context, precondition, &mut body);
        if let Some(span) = clauses_span(&kernel.thread_contract.requires) {
            self.probe(&mut body.stmts, Assumed::ThreadPre, span);
        }
        self.commands(&context, rest, &mut body);
        self.procedure(
            names::thread_procedure(kernel),
            &[names::TID, names::GID, names::LID],
            self.launch(),
            true,
            body.locals,
            body.stmts,
        )
    }

    /// The thread's state: its private variables, and each array's mask, heap and heap at the
    /// start. A procedure of the thread's own (the invariant's, below) declares all of it, whatever
    /// part of the body the procedure was cut from.
    fn thread_state(&self) -> Vec<Binding> {
        let kernel = self.kernel;
        let mut state = Vec::new();
        for (index, var) in kernel.vars.iter().enumerate() {
            if var.kind == VarKind::Private {
                state.push(Binding::new(names::private(kernel, VarId(index as u32)), ivl_type(var.ty)));
            }
        }
        for index in self.arrays() {
            state.push(Binding::new(names::mask(kernel, index), mask_type()));
            state.push(Binding::new(names::heap(kernel, index), Type::map(Type::Int, Type::Int)));
            state.push(Binding::new(names::old_heap(kernel, index), Type::map(Type::Int, Type::Int)));
        }
        state
    }

    /// Adds the parts' permission to the masks and assumes their facts, left to right; each read
    /// must be covered by permission held at that point (the `frame` obligation, E4).
    fn inhale(&mut self, context: &Context, parts: &[Part], body: &mut Body) {
        for part in parts {
            self.inhale_conjunct(context, part, body);
        }
    }

    /// Checks the parts' facts and permission against the state and removes the permission
    /// (E4). Reads are checked against the permission held before the exhale began: the clauses
    /// form one conjunction, and one snapshot of the masks (named by `serial`) serves them all.
    fn exhale(&mut self, context: &Context, parts: &[Part], serial: usize, body: &mut Body) {
        let mut before = context.clone();
        for index in self.arrays() {
            let saved = format!("{}_before_{serial}", names::mask(self.kernel, index));
            body.locals.push(Binding::new(&saved, mask_type()));
            body.push(StmtKind::Assign {
                target: saved.clone(),
                indices: Vec::new(),
                value: Expr::var(names::mask(self.kernel, index)),
            });
            before.masks[index] = saved;
        }
        for part in parts {
            self.exhale_conjunct(&before, part, body);
        }
    }

    fn commands(&mut self, context: &Context, commands: &[Command], body: &mut Body) {
        for command in commands {
            self.command(context, command, body);
        }
    }

    fn command(&mut self, context: &Context, command: &Command, body: &mut Body) {
        let kernel = self.kernel;
        match command {
            Command::Inhale(parts) => self.inhale(context, parts, body),
            Command::Exhale { parts, serial, .. } => self.exhale(context, parts, *serial, body),
            Command::Assert { parts, .. } => {
                for part in parts {
                    self.assert_conjunct(context, part, body);
                }
            }
            Command::Assign { var, value: None, .. } => body.push(StmtKind::Havoc(vec![names::private(kernel, *var)])),
            Command::Assign { var, value: Some(value), checks } => {
                self.checks(context, checks, &mut body.stmts);
                let value = context.translate(value);
                body.push(StmtKind::Assign { target: names::private(kernel, *var), indices: Vec::new(), value });
            }
            Command::Write { array, index, value, checks, bounds, write, .. } => {
                self.checks(context, checks, &mut body.stmts);
                let index = context.translate(index);
                let written = context.translate(value);
                if let Some(bounds) = bounds {
                    self.prove(&mut body.stmts, *bounds, expr::in_bounds(&index, context.array_size(*array)));
                }
                let mask = Expr::select(Expr::var(names::mask(kernel, array.index())), index.clone());
                let all = Some(expr::real_one());
                self.prove(&mut body.stmts, *write, expr::holds(mask, all.clone()));
                let grant = Grant {
                    mask: names::mask(kernel, array.index()),
                    index: index.clone(),
                    guard: Expr::Bool(true),
                    amount: all,
                };
                self.grant(body, &grant);
                body.push(StmtKind::Assign {
                    target: names::heap(kernel, array.index()),
                    indices: vec![index],
                    value: written,
                });
            }
            Command::If { cond, checks, then_branch, else_branch } => {
                self.checks(context, checks, &mut body.stmts);
                let cond = context.translate(cond);
                let mut then_body = Body { stmts: Vec::new(), locals: Vec::new() };
                self.commands(context, then_branch, &mut then_body);
                let mut else_body = Body { stmts: Vec::new(), locals: Vec::new() };
                self.commands(context, else_branch, &mut else_body);
                body.locals.extend(then_body.locals.into_iter().chain(else_body.locals));
                body.push(StmtKind::If {
                    cond: Some(cond),
                    then_branch: then_body.stmts,
                    else_branch: else_body.stmts,
                });
            }
            Command::Loop { .. } => self.while_loop(context, command, body),
            Command::Barrier { barrier, pre, post } => self.barrier(context, kernel.barrier(*barrier), pre, post, body),
            Command::Assume { expr, checks, span } => {
                self.checks(context, checks, &mut body.stmts);
                body.push(StmtKind::Assume(context.translate(expr)));
                self.probe(&mut body.stmts, Assumed::Assume, *span);
            }
        }
    }

    /// A barrier as a call (seed section 5.3; E3): assert `B_pre`, give up all permission, forget
    /// the heap, inhale `B_res * B_post`. Private variables survive.
    fn barrier(&mut self, context: &Context, barrier: &logic::Barrier, pre: &[Part], post: &[Part], body: &mut Body) {
        for part in pre {
            self.assert_conjunct(context, part, body);
        }
        self.forget_permissions(body);
        let heaps: Vec<String> = self.arrays().map(|index| names::heap(self.kernel, index)).collect();
        if !heaps.is_empty() {
            body.push(StmtKind::Havoc(heaps));
        }
        self.inhale(context, post, body);
        if let Some(span) = clauses_span(&barrier.contract.ensures) {
            self.probe(&mut body.stmts, Assumed::BarrierPost, span);
        }
    }

    /// A loop, cut as Viper cuts it (E6): exhale the invariant on entry; havoc the variables the
    /// body assigns and the heap; then either run one iteration from the invariant alone and
    /// exhale it again, or leave with the rest of the permission and the invariant.
    fn while_loop(&mut self, context: &Context, command: &Command, body: &mut Body) {
        let Command::Loop {
            invariants,
            cond,
            entry,
            inhaled,
            cond_checks,
            body: loop_body,
            preserved,
            exit: exit_parts,
            barrier_inside,
            serial,
            ..
        } = command
        else {
            unreachable!("a loop command")
        };
        let kernel = self.kernel;
        // Whether any state satisfies the invariant at all, asked in a procedure of its own: in
        // the thread's, the entry check comes first, and its failure (an unsatisfiable invariant
        // never holds on entry) would make an iteration unreachable by itself.
        if let Some(span) = clauses_span(invariants) {
            let mut start = Body { stmts: Vec::new(), locals: self.thread_state() };
            self.forget_permissions(&mut start);
            // The iteration's inhale checks the invariant's definedness; this one only assumes.
            self.inhale(context, inhaled, &mut start);
            let mut stmts = without_checks(start.stmts);
            self.probe(&mut stmts, Assumed::LoopInvariant, span);
            let name = names::invariant_probe(kernel, self.probes.len() - 1);
            let thread = [names::TID, names::GID, names::LID];
            let procedure = self.procedure(name, &thread, self.launch(), true, start.locals, stmts);
            self.extra_declarations.push(Declaration::Procedure(procedure));
        }
        self.command(context, entry, body);
        // Each mask and heap as the loop finds it, in a fresh local.
        let mut save = |original: String, ty: Type| {
            let saved = format!("{original}_frame_{serial}");
            body.locals.push(Binding::new(&saved, ty));
            body.push(StmtKind::Assign { target: saved.clone(), indices: Vec::new(), value: Expr::var(original) });
            saved
        };
        let mut frame = Vec::new();
        let mut frame_heaps = Vec::new();
        for index in self.arrays() {
            frame.push(save(names::mask(kernel, index), mask_type()));
            frame_heaps.push(save(names::heap(kernel, index), Type::map(Type::Int, Type::Int)));
        }
        let mut assigned = BTreeSet::new();
        assigned_in(loop_body, &mut assigned);
        let mut havocked: Vec<String> = assigned.iter().map(|&var| names::private(kernel, var)).collect();
        havocked.extend(self.arrays().map(|index| names::heap(kernel, index)));
        if !havocked.is_empty() {
            body.push(StmtKind::Havoc(havocked));
        }
        // One iteration from the invariant alone.
        let mut iteration = Body { stmts: Vec::new(), locals: Vec::new() };
        self.forget_permissions(&mut iteration);
        self.inhale(context, inhaled, &mut iteration);
        self.checks(context, cond_checks, &mut iteration.stmts);
        let condition = context.translate(cond);
        iteration.push(StmtKind::Assume(condition.clone()));
        self.commands(context, loop_body, &mut iteration);
        self.command(context, preserved, &mut iteration);
        iteration.push(StmtKind::Assume(Expr::Bool(false)));
        // Leaving: the frame plus the invariant, and the condition false. A barrier in the body
        // takes the frame away (the thread gave up everything there), so after such a loop only
        // the invariant's permission remains, whether or not an iteration ran (E6).
        let mut exit = Body { stmts: Vec::new(), locals: Vec::new() };
        if *barrier_inside {
            self.forget_permissions(&mut exit);
        } else {
            for (index, saved) in frame.iter().enumerate() {
                exit.push(StmtKind::Assign {
                    target: names::mask(kernel, index),
                    indices: Vec::new(),
                    value: Expr::var(saved),
                });
            }
        }
        self.inhale(context, exit_parts, &mut exit);
        if !barrier_inside {
            // The frame's values survive a loop without a barrier (E6): where the thread kept some
            // permission outside the loop and the invariant gave the body less than all of the
            // location, the body could not write it, and no other thread could either.
            for (index, (saved_mask, saved_heap)) in frame.iter().zip(&frame_heaps).enumerate() {
                let cell = Expr::var(conjunct::CELL);
                let kept = Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Lt, expr::real_zero(), Expr::select(Expr::var(saved_mask), cell.clone())),
                    Expr::binary(
                        BinaryOp::Lt,
                        Expr::binary(
                            BinaryOp::Sub,
                            Expr::select(Expr::var(names::mask(kernel, index)), cell.clone()),
                            Expr::select(Expr::var(saved_mask), cell.clone()),
                        ),
                        Expr::Real(BigRational::from_integer(1.into())),
                    ),
                );
                let unchanged = Expr::binary(
                    BinaryOp::Eq,
                    Expr::select(Expr::var(names::heap(kernel, index)), cell.clone()),
                    Expr::select(Expr::var(saved_heap), cell),
                );
                exit.push(StmtKind::Assume(Expr::Quantified {
                    quantifier: ivl::Quantifier::Forall,
                    bound: vec![Binding::new(conjunct::CELL, Type::Int)],
                    triggers: Vec::new(),
                    body: Box::new(Expr::binary(BinaryOp::Implies, kept, unchanged)),
                }));
            }
        }
        exit.push(StmtKind::Assume(Expr::negation(condition)));
        body.locals.extend(iteration.locals.into_iter().chain(exit.locals));
        body.push(StmtKind::If { cond: None, then_branch: iteration.stmts, else_branch: exit.stmts });
    }
}

/// The private variables commands assign (declarations included).
fn assigned_in(commands: &[Command], out: &mut BTreeSet<VarId>) {
    for command in commands {
        match command {
            Command::Assign { var, .. } => {
                out.insert(*var);
            }
            Command::If { then_branch, else_branch, .. } => {
                assigned_in(then_branch, out);
                assigned_in(else_branch, out);
            }
            Command::Loop { body, .. } => assigned_in(body, out),
            _ => {}
        }
    }
}
