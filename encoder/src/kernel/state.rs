//! The state the translation of an outline shares: the [`Encoder`] (the kernel, its outline, the
//! functions, the fresh names made so far), the statements being built ([`Body`]), and the rules
//! every procedure follows: a check tagged with its obligation's number and assumed after it or
//! not (E4), a probe for vacuity (E14), the launch facts (E9), the recursive functions'
//! definitions a procedure may assume (E5), the empty mask and wildcard amounts (E3, E4).

use super::expr::{self, Context};
use super::names;
use super::sums::Sums;
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, Spec, Stmt, StmtKind, Type};
use lockstep_logic::outline::{Check, Outline};
use lockstep_logic::recursion::CallGraph;
use lockstep_logic::{self as logic, FunctionId, ObligationId, Span, VarId, VarKind};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The tags of probes begin with it; the tags of obligations with `o`.
pub(super) const PROBE_PREFIX: char = 'v';

/// Whether a check's tag is a [`Probe`]'s.
pub fn is_probe(tag: &str) -> bool {
    tag.starts_with(PROBE_PREFIX)
}

/// A place whose assumptions might contradict each other (or the launch, or the path to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub position: Assumed,
    /// The assumptions: the clauses, or the `assume` statement.
    pub span: Span,
}

/// What is assumed at a [`Probe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assumed {
    ThreadPre,
    BarrierPost,
    /// A loop invariant, where an iteration starts from it alone.
    LoopInvariant,
    GroupPre,
    KernelPre,
    /// An `assume` statement.
    Assume,
}

pub(super) struct Encoder<'k> {
    pub(super) kernel: &'k logic::Kernel,
    pub(super) functions: &'k [logic::Function],
    pub(super) outline: &'k Outline<'k>,
    /// The calls between the functions, and which recurse.
    pub(super) calls: CallGraph,
    /// Wildcard amounts chosen so far (each a fresh local variable).
    pub(super) wildcards: usize,
    /// Functions the procedures introduce on the way (the inverses of permission indices).
    pub(super) extra_declarations: Vec<Declaration>,
    /// See [`Encoding::shown`].
    pub(super) shown: HashMap<String, Vec<(String, Expr)>>,
    /// See [`Encoding::probes`].
    pub(super) probes: Vec<Probe>,
    /// The sum functions the translation has met (E18).
    pub(super) sums: Rc<RefCell<Sums>>,
}

/// After a failed write check, the permission that lets the thread go on as if it had held it
/// (E4): `amount` of the location `index` of the array whose mask is `mask`, where `guard` holds
/// and the thread holds less.
pub(super) struct Grant {
    pub(super) mask: String,
    pub(super) index: Expr,
    pub(super) guard: Expr,
    /// The amount's term, `None` for `read`.
    pub(super) amount: Option<Expr>,
}

/// The state of the thread procedure being built.
pub(super) struct Body {
    pub(super) stmts: Vec<Stmt>,
    pub(super) locals: Vec<Binding>,
}

impl Body {
    pub(super) fn push(&mut self, kind: StmtKind) {
        self.stmts.push(Stmt::new(kind));
    }
}

/// What the tag of a check that asserts an obligation begins with ([`Encoder::tag`]).
const OBLIGATION_PREFIX: char = 'o';

/// The number, in its outline, of the obligation a check's tag names; `None` for a probe's tag or
/// a check that asserts no obligation.
pub fn obligation_number(tag: &str) -> Option<usize> {
    tag.strip_prefix(OBLIGATION_PREFIX).and_then(|number| number.parse().ok())
}

impl<'k> Encoder<'k> {
    /// The tag of obligation `number` of the outline ([`obligation_number`] reads it back).
    pub(super) fn tag(number: usize) -> String {
        format!("{OBLIGATION_PREFIX}{number}")
    }

    /// Asks whether any state reaches this place (E14): `assert false`, not assumed after it, so
    /// that it hides nothing that follows. Verified, it shows the assumptions before it
    /// contradictory; it is no obligation, and only a warning is drawn from it.
    pub(super) fn probe(&mut self, stmts: &mut Vec<Stmt>, position: Assumed, span: Span) {
        self.probe_after(stmts, Vec::new(), position, span);
    }

    /// [`Encoder::probe`] after the statements `setup`, which run on the probe's branch only.
    pub(super) fn probe_after(&mut self, stmts: &mut Vec<Stmt>, mut setup: Vec<Stmt>, position: Assumed, span: Span) {
        self.probes.push(Probe { position, span });
        let tag = format!("{PROBE_PREFIX}{}", self.probes.len() - 1);
        // In a branch of its own, which ends there, so that the rest of the procedure runs on
        // the other branch whatever the probe's answer, in every backend (Boogie prunes what
        // follows an `assert false`).
        setup.push(Stmt::new(StmtKind::Assert { expr: Expr::Bool(false), tag: Some(tag), assumed: true }));
        stmts.push(Stmt::new(StmtKind::If { cond: None, then_branch: setup, else_branch: Vec::new() }));
    }

    /// Asserts the checks of the outline, in order, in a context's state.
    pub(super) fn checks(&self, context: &Context, checks: &[Check], stmts: &mut Vec<Stmt>) {
        for check in checks {
            self.prove(stmts, check.obligation, context.requirement(check));
        }
    }

    /// Asserts the condition of obligation `number`. A failed access check is reported, and the
    /// thread goes on as if it held the permission: the check is not assumed after it, since the
    /// empty mask would make every path through it infeasible and hide each later failure (E4).
    pub(super) fn prove(&self, stmts: &mut Vec<Stmt>, number: usize, expr: Expr) {
        let id = self.outline.obligations[number].id;
        let assumed = !matches!(id, ObligationId::AccessRead | ObligationId::AccessWrite | ObligationId::Frame);
        stmts.push(Stmt::new(StmtKind::Assert { expr, tag: Some(Self::tag(number)), assumed }));
    }

    /// Lets the thread go on after a failed permission check as if it had held what it needed:
    /// where the guard holds and the thread holds less, it now holds `amount` (a fresh wildcard
    /// for `read`). Where the check held, nothing changes; where it failed, the failure is already
    /// reported, and a later access of the same location is not reported again (E4).
    pub(super) fn grant(&mut self, body: &mut Body, grant: &Grant) {
        let held = Expr::select(Expr::var(&grant.mask), grant.index.clone());
        let short = Expr::negation(expr::holds(held, grant.amount.clone()));
        let amount = self.amount(grant.amount.clone(), body, None);
        body.push(StmtKind::If {
            cond: Some(Expr::binary(BinaryOp::And, grant.guard.clone(), short)),
            then_branch: vec![Stmt::new(StmtKind::Assign {
                target: grant.mask.clone(),
                indices: vec![grant.index.clone()],
                value: amount,
            })],
            else_branch: Vec::new(),
        });
    }

    /// A constant for each amount `q \ d` the kernel names, with the true facts about it that
    /// hold where its divisor is positive (`amount.positive` checks that it is where the amount
    /// is used): `0 < a <= q`, `a == q` for `d == 1`, and `a + a <= q` for `d >= 2` (E16).
    fn divided_amounts(&self) -> Vec<Declaration> {
        let unknown = Expr::var(names::UNKNOWN);
        let context = self.context([unknown.clone(), unknown.clone(), unknown]);
        let mut declarations = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for atom in self.kernel.perm_atoms() {
            let logic::Amount::Divided { fraction, divisor } = &atom.amount else { continue };
            let divisor = context.translate(divisor);
            let name = names::amount(fraction, &divisor);
            if !seen.insert(name.clone()) {
                continue;
            }
            declarations.push(Declaration::Const(Binding::new(&name, Type::Real)));
            let (amount, fraction) = (Expr::var(&name), Expr::Real(fraction.clone()));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::Ge, divisor.clone(), Expr::int(1)),
                Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Lt, expr::real_zero(), amount.clone()),
                    Expr::binary(BinaryOp::Le, amount.clone(), fraction.clone()),
                ),
            )));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::Eq, divisor.clone(), Expr::int(1)),
                Expr::binary(BinaryOp::Eq, amount.clone(), fraction.clone()),
            )));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::Ge, divisor, Expr::int(2)),
                Expr::binary(BinaryOp::Le, Expr::binary(BinaryOp::Add, amount.clone(), amount), fraction),
            )));
        }
        declarations
    }

    pub(super) fn arrays(&self) -> std::ops::Range<usize> {
        0..self.kernel.arrays.len()
    }

    /// Sizes, parameters, the launch facts, and fuel.
    pub(super) fn preamble(&self) -> Vec<Declaration> {
        let int = |name: &str| Declaration::Const(Binding::new(name, Type::Int));
        let mut declarations = vec![int(names::GSIZE), int(names::TCOUNT), int(names::NO_FUEL), int(names::UNKNOWN)];
        for &param in &self.kernel.params {
            let ty = if self.kernel.var(param).ty == logic::Type::Bool { Type::Bool } else { Type::Int };
            declarations.push(Declaration::Const(Binding::new(names::param(self.kernel, param), ty)));
        }
        // The launch: gsize >= 1, tcount a positive multiple of gsize.
        let gsize = Expr::var(names::GSIZE);
        let tcount = Expr::var(names::TCOUNT);
        declarations.push(Declaration::Axiom(Expr::binary(BinaryOp::Ge, gsize.clone(), Expr::int(1))));
        declarations.push(Declaration::Axiom(Expr::binary(BinaryOp::Ge, tcount.clone(), gsize.clone())));
        declarations.push(Declaration::Axiom(Expr::binary(
            BinaryOp::Eq,
            Expr::binary(BinaryOp::Mod, tcount, gsize),
            Expr::int(0),
        )));
        declarations.extend(super::axes::launch(self.kernel));
        declarations.extend(self.kernel.counters().into_iter().flat_map(|counter| self.tickets(counter)));
        declarations.extend(self.divided_amounts());
        declarations.push(Declaration::Function(ivl::Function {
            name: names::SUCC.into(),
            params: vec![Binding::new("fuel", Type::Int)],
            result: Type::Int,
            body: None,
        }));
        declarations
    }

    /// The values a counter's increments return (E20): `ticket(cell, site, gid, lid)`, of the
    /// counter's type, with left inverses that give back the site and the thread (the `lid`, and
    /// the `gid` too for a counter in global memory, which all groups share), so that two
    /// increments of one cell return distinct values. Guarded by the sites and threads being
    /// those of the launch, and by there being no more of them than the type has values (the
    /// C lowering makes the launch promise it), so that some real run has such values.
    fn tickets(&self, counter: logic::Counter) -> Vec<Declaration> {
        let kernel = self.kernel;
        let int = |name: &str| Binding::new(name, Type::Int);
        let ticket = names::ticket(kernel, counter.array);
        let global = kernel.array(counter.array).memory == logic::Memory::Global;
        let (cell, site, gid, lid) = (Expr::var("cell"), Expr::var("site"), Expr::var("gid"), Expr::var("lid"));
        let value = Expr::Call(ticket.clone(), vec![cell.clone(), site.clone(), gid.clone(), lid.clone()]);
        let (gsize, tcount) = (Expr::var(names::GSIZE), Expr::var(names::TCOUNT));
        // The threads that share the counter: the launch's, or the group's.
        let sharers = if global { tcount.clone() } else { gsize.clone() };
        let (least, greatest) = counter.int.bounds();
        let mut guard = vec![
            Expr::binary(
                BinaryOp::Le,
                Expr::binary(BinaryOp::Mul, Expr::int(i64::from(counter.sites)), sharers),
                Expr::Int(&greatest - &least + 1),
            ),
            super::expr::in_bounds(&site, Expr::int(i64::from(counter.sites))),
            super::expr::in_bounds(&lid, gsize.clone()),
        ];
        let mut inverses = vec![("site", site.clone()), ("lid", lid.clone())];
        if global {
            guard.push(Expr::binary(BinaryOp::Le, Expr::int(0), gid.clone()));
            guard.push(Expr::binary(
                BinaryOp::Le,
                Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, gid.clone(), gsize.clone()), gsize),
                tcount,
            ));
            inverses.push(("gid", gid.clone()));
        }
        let mut declarations = vec![Declaration::Function(ivl::Function {
            name: ticket,
            params: vec![int("cell"), int("site"), int("gid"), int("lid")],
            result: Type::Int,
            body: None,
        })];
        let mut facts = vec![
            Expr::binary(BinaryOp::Le, Expr::Int(least), value.clone()),
            Expr::binary(BinaryOp::Le, value.clone(), Expr::Int(greatest)),
        ];
        for (coordinate, original) in inverses {
            let name = names::ticket_inverse(kernel, counter.array, coordinate);
            // A local counter's values repeat from group to group: its inverses know the group.
            let mut params = vec![int("cell")];
            let mut args = vec![cell.clone()];
            if !global {
                params.push(int("gid"));
                args.push(gid.clone());
            }
            params.push(int("value"));
            args.push(value.clone());
            declarations.push(Declaration::Function(ivl::Function {
                name: name.clone(),
                params,
                result: Type::Int,
                body: None,
            }));
            facts.push(Expr::binary(BinaryOp::Eq, Expr::Call(name, args), original));
        }
        let conjunction = |parts: Vec<Expr>| {
            parts.into_iter().reduce(|left, right| Expr::binary(BinaryOp::And, left, right)).expect("conjuncts")
        };
        // A lemma (V9), instantiated at the query's ticket terms: the queries stay free of
        // quantifiers, so that a race between increments that may return one value (a local
        // counter's, in two groups) has a model to show.
        declarations.push(Declaration::Lemma(Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: vec![int("cell"), int("site"), int("gid"), int("lid")],
            triggers: vec![vec![value]],
            body: Box::new(Expr::binary(BinaryOp::Implies, conjunction(guard), conjunction(facts))),
        }));
        declarations
    }

    pub(super) fn context(&self, thread: [Expr; 3]) -> Context<'k> {
        let kernel = self.kernel;
        let arrays = self.arrays();
        Context {
            kernel,
            functions: self.functions,
            thread,
            vars: HashMap::new(),
            heaps: arrays.clone().map(|index| names::heap(kernel, index)).collect(),
            masks: arrays.clone().map(|index| names::mask(kernel, index)).collect(),
            old_heaps: arrays.map(|index| names::old_heap(kernel, index)).collect(),
            function: None,
            measure: None,
            sums: Rc::clone(&self.sums),
        }
    }

    /// A procedure of the kernel's encoding: the free `requires` are the given facts and (unless
    /// it checks the functions themselves) the recursive functions' definitions (E5).
    pub(super) fn procedure(
        &self,
        name: String,
        params: &[&str],
        facts: Vec<Expr>,
        with_definitions: bool,
        locals: Vec<Binding>,
        stmts: Vec<Stmt>,
    ) -> Procedure {
        let definitions = if with_definitions { self.definitions(&facts, &stmts) } else { Vec::new() };
        Procedure {
            name,
            params: params.iter().map(|name| Binding::new(*name, Type::Int)).collect(),
            returns: Vec::new(),
            requires: facts.into_iter().map(|expr| Spec::proved_by(expr, Vec::new())).chain(definitions).collect(),
            ensures: Vec::new(),
            modifies: Vec::new(),
            body: Some(ivl::Body { locals, stmts }),
            position: ivl::Position::NONE,
        }
    }

    /// Gives a context the private variables of another thread: a determined one is its value in
    /// that thread's ids; a lock-step-safe one that `kept` admits has the value it has here (it is
    /// the same in all threads of a group at a barrier); any other is `unknown_value`.
    pub(super) fn other_thread_privates(
        &self,
        lockstep: &lockstep_logic::lockstep::LockStep,
        context: &mut Context,
        kept: impl Fn(VarId) -> bool,
        mut unknown_value: impl FnMut(VarId, &logic::Var) -> Expr,
    ) {
        let kernel = self.kernel;
        for (position, var) in kernel.vars.iter().enumerate() {
            let id = VarId(position as u32);
            if var.kind == VarKind::Private {
                let value = if let Some(value) = lockstep.determined(id) {
                    context.translate(value)
                } else if lockstep.is_safe_variable(kernel, id) && kept(id) {
                    Expr::var(names::private(kernel, id))
                } else {
                    unknown_value(id, var)
                };
                context.vars.insert(id, value);
            }
        }
    }

    /// What the launch says of the thread `tid`, `gid`, `lid`.
    pub(super) fn launch(&self) -> Vec<Expr> {
        let (tid, gid, lid) = (Expr::var(names::TID), Expr::var(names::GID), Expr::var(names::LID));
        let gsize = Expr::var(names::GSIZE);
        let mut facts = vec![
            expr::in_bounds(&lid, gsize.clone()),
            expr::in_bounds(&gid, expr::groups()),
            Expr::binary(BinaryOp::Eq, tid, thread_id(&gid, &lid)),
        ];
        facts.extend(group_block(&gid));
        facts
    }

    /// The definitions of the recursive functions a procedure with these facts and statements
    /// calls, directly or through other functions. Each holds only once the termination of its
    /// cycle of calls is shown: it is assumed only if the procedures of the functions on the cycle
    /// verify (`proved_by`), so a function that might not terminate makes nothing else vacuous
    /// (E5). The definitions of functions it does not call could not matter to its verdict, and
    /// would only give the solver more to search.
    pub(super) fn definitions(&self, facts: &[Expr], stmts: &[Stmt]) -> Vec<Spec> {
        let mut named = std::collections::BTreeSet::new();
        let mut visit = |expr: &Expr| {
            if let Expr::Call(name, _) = expr {
                named.insert(name.clone());
            }
        };
        facts.iter().for_each(|fact| fact.walk(&mut visit));
        ivl::walk_statements(stmts, &mut visit);
        let called = (0..self.functions.len())
            .filter(|&index| named.contains(&names::function(&self.functions[index])))
            .map(|index| FunctionId(index as u32));
        let reached = self.calls.reachable(called);
        (0..self.functions.len())
            .map(|index| FunctionId(index as u32))
            .filter(|&id| reached[id.index()] && self.calls.recursive(id))
            .map(|id| {
                let provers =
                    self.calls.cycle(id).map(|member| names::function_procedure(&self.functions[member.index()]));
                Spec::proved_by(Expr::var(names::defined(&self.functions[id.index()])), provers.collect())
            })
            .collect()
    }

    /// Every mask becomes the empty mask, a constant map, so no quantifier stands between the
    /// solver and a counterexample (E3).
    pub(super) fn forget_permissions(&mut self, body: &mut Body) {
        for index in self.arrays() {
            body.push(StmtKind::Assign {
                target: names::mask(self.kernel, index),
                indices: Vec::new(),
                value: Expr::Lambda { bound: Binding::new("cell", Type::Int), body: Box::new(expr::real_zero()) },
            });
        }
    }

    /// An amount as a real: its term if exact, or for `read` (`None`) a fresh wildcard, positive
    /// and (when taken from `held`) smaller than what is held, as Carbon chooses wildcards.
    pub(super) fn amount(&mut self, exact: Option<Expr>, body: &mut Body, held: Option<Expr>) -> Expr {
        match exact {
            Some(term) => term,
            None => {
                let name = format!("wildcard_{}", self.wildcards);
                self.wildcards += 1;
                body.locals.push(Binding::new(&name, Type::Real));
                let wildcard = Expr::var(&name);
                body.push(StmtKind::Assume(Expr::binary(BinaryOp::Gt, wildcard.clone(), expr::real_zero())));
                if let Some(held) = held {
                    body.push(StmtKind::Assume(Expr::binary(
                        BinaryOp::Implies,
                        Expr::binary(BinaryOp::Gt, held.clone(), expr::real_zero()),
                        Expr::binary(BinaryOp::Lt, wildcard.clone(), held),
                    )));
                }
                wildcard
            }
        }
    }
}

/// Where a group's block of thread ids lies: `0 <= gid*gsize` and `gid*gsize + gsize <= tcount`.
/// Both follow from the launch facts (`gid < tcount div gsize`, `tcount mod gsize == 0`), but only
/// by non-linear steps, so they are stated for the solver (E9).
pub(super) fn group_block(gid: &Expr) -> Vec<Expr> {
    let gsize = Expr::var(names::GSIZE);
    let block = Expr::binary(BinaryOp::Mul, gid.clone(), gsize.clone());
    vec![
        Expr::binary(BinaryOp::Le, Expr::int(0), block.clone()),
        Expr::binary(BinaryOp::Le, Expr::binary(BinaryOp::Add, block, gsize), Expr::var(names::TCOUNT)),
    ]
}

/// `gid * gsize + lid`.
pub(super) fn thread_id(gid: &Expr, lid: &Expr) -> Expr {
    Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, gid.clone(), Expr::var(names::GSIZE)), lid.clone())
}

/// The statements without their checks (on every branch).
pub(super) fn without_checks(stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts
        .into_iter()
        .filter(|stmt| !matches!(stmt.kind, StmtKind::Assert { .. }))
        .map(|mut stmt| {
            if let StmtKind::If { then_branch, else_branch, .. } = &mut stmt.kind {
                *then_branch = without_checks(std::mem::take(then_branch));
                *else_branch = without_checks(std::mem::take(else_branch));
            }
            stmt
        })
        .collect()
}

/// The span from the first clause to the last, if there is one.
pub(super) fn clauses_span(clauses: &[logic::Clause]) -> Option<Span> {
    let first = clauses.first()?.span;
    Some(clauses.iter().fold(first, |span, clause| span.to(clause.span)))
}

pub(super) fn conjunction(parts: impl IntoIterator<Item = Expr>) -> Expr {
    parts.into_iter().reduce(|left, right| Expr::binary(BinaryOp::And, left, right)).unwrap_or(Expr::Bool(true))
}

pub(super) fn mask_type() -> Type {
    Type::map(Type::Int, Type::Real)
}

pub(super) fn ivl_type(ty: logic::Type) -> Type {
    match ty {
        logic::Type::Int => Type::Int,
        logic::Type::Bool => Type::Bool,
    }
}
