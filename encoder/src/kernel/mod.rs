//! The outline of a kernel ([`lockstep_logic::outline`]) to an IVL program, in the style of
//! Viper's Carbon (a heap and a permission mask per array), with every check tagged by the number
//! of the obligation it discharges. The outline decides which obligations exist; here each
//! becomes IVL by fixed rules: the triple's commands as statements, each requirement as a closed
//! condition, each global obligation as a procedure of its own.
//!
//! One arbitrary thread (`tid`, `gid`, `lid` are procedure parameters constrained by the launch
//! facts) runs the kernel body. Its state is, per array `a`, a heap `H_a: [int]int` and a mask
//! `M_a: [int]real` of the permission it holds. Inhaling a contract adds permission and assumes
//! facts; exhaling checks and removes them; a barrier exhales its precondition, gives up all
//! permission, forgets every heap value, and inhales its postcondition. Soundness of each rule is
//! argued in `proofs/kernel.md`, cited by section (E1, E2, ...) next to the code.

mod barrier;
mod conjunct;
mod expr;
mod facts;
mod inverse;
mod levels;
mod names;
mod resources;

use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Procedure, Spec, Stmt, StmtKind, Type};
use crate::smt::Value;
use crate::verify::{Definition, Evaluation};
use expr::Context;
use lockstep_logic::eval;
use lockstep_logic::outline::{Check, Command, FunctionOutline, Global, Outline, Part};
use lockstep_logic::recursion::CallGraph;
use lockstep_logic::{self as logic, Amount, FunctionId, Obligation, ObligationId, Span, VarId, VarKind};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// A kernel's IVL program, and the obligation behind each tag (`o12` is `obligations[12]`).
pub struct Encoding {
    pub program: ivl::Program,
    pub obligations: Vec<Obligation>,
    /// The kernel's names for the IVL variables a counterexample shows.
    pub display: std::collections::BTreeMap<String, String>,
    /// Further values a counterexample of a tagged check shows, with their labels (such as the
    /// location two threads both name, for an injectivity check).
    pub shown: HashMap<String, Vec<(String, Expr)>>,
    /// The recursive functions, which the program only axiomatises, with their concrete
    /// evaluation (E5).
    pub definitions: Vec<Definition>,
    /// The places where an assumption could make everything after it vacuous, each probed by a
    /// check `v12` (`probes[12]`) of `false` on a branch of its own (E14): the check verified
    /// means no state reaches the place.
    pub probes: Vec<Probe>,
}

/// The tags of probes begin with it; the tags of obligations with `o`.
const PROBE_PREFIX: char = 'v';

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

/// An array cell an assertion reads, for counterexamples: the array's name, the index and the
/// cell's value (or the permission held on it) as IVL expressions in the procedure's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub array: String,
    pub index: Expr,
    pub value: Expr,
    /// The value is the permission the thread holds on the cell, not its content.
    pub permission: bool,
}

/// What one assertion reads: the heap cells outside quantifiers, and the variables it mentions;
/// and the further values its counterexample shows ([`Encoding::shown`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reads {
    pub cells: Vec<Cell>,
    pub variables: std::collections::BTreeSet<String>,
    pub shown: Vec<(String, Expr)>,
}

impl Encoding {
    /// What each tagged assertion of a procedure reads, by tag, in order: the values a failure
    /// requests follow it, and must come in the same order every run (the terms a solver builds
    /// for them steer its later searches).
    pub fn reads(&self, procedure: &Procedure) -> BTreeMap<String, Reads> {
        let mut found = BTreeMap::new();
        if let Some(body) = &procedure.body {
            collect_reads(&body.stmts, &self.display, &mut found);
        }
        for (tag, reads) in &mut found {
            reads.shown = self.shown.get(tag).cloned().unwrap_or_default();
        }
        found
    }

    /// The label a counterexample of an assertion that reads `reads` gives an IVL variable, if it
    /// shows it at all: the kernel's names, and the threads (`lid_5` is the lid of a thread a
    /// resource check chose) and the location the resource checks choose, where the assertion
    /// mentions them (elsewhere their values are arbitrary, and would mislead).
    pub fn label(&self, name: &str, reads: Option<&Reads>) -> Option<String> {
        if let Some(label) = self.display.get(name) {
            return Some(label.clone());
        }
        if reads.is_some_and(|reads| !reads.variables.contains(name)) {
            return None;
        }
        if name == resources::LOCATION {
            return Some(name.into());
        }
        let (stem, number) = name.rsplit_once('_')?;
        number.parse::<u32>().ok()?;
        matches!(stem, "lid" | "gid").then(|| format!("{stem} of thread {number}"))
    }

    /// The probe a check's tag names.
    pub fn probe(&self, tag: &str) -> Option<&Probe> {
        tag.strip_prefix(PROBE_PREFIX)
            .and_then(|index| index.parse::<usize>().ok())
            .and_then(|index| self.probes.get(index))
    }

    /// The obligation a check's tag names.
    pub fn obligation(&self, tag: &str) -> Option<&Obligation> {
        tag.strip_prefix('o')
            .and_then(|index| index.parse::<usize>().ok())
            .and_then(|index| self.obligations.get(index))
    }
}

/// Encodes the outline of one kernel: each of its obligations becomes a tagged check (`o12` is
/// obligation 12 of the outline). The program uses no construct the language does not support
/// yet ([`lockstep_logic::support::unsupported`] finds none): the frontend refuses such files
/// before they get here, and the encoding relies on it (no nested `\forall*`, no permissions in a
/// written kernel or group contract, no postconditions of a recursive function).
pub fn encode<'k>(outline: &'k Outline<'k>) -> Encoding {
    let kernel = outline.kernel;
    let mut encoder = Encoder {
        kernel,
        functions: outline.functions,
        outline,
        calls: CallGraph::of(outline.functions),
        wildcards: 0,
        extra_declarations: Vec::new(),
        shown: HashMap::new(),
        probes: Vec::new(),
    };
    let mut declarations = encoder.preamble();
    for function in &outline.function_outlines {
        declarations.extend(encoder.function(function));
    }
    declarations.extend(encoder.other_thread_functions());
    declarations.push(Declaration::Procedure(encoder.thread()));
    let lockstep = lockstep_logic::lockstep::LockStep::of(kernel);
    let mut resources = Vec::new();
    for global in &outline.globals {
        match global {
            Global::Functional { .. } => {
                declarations.push(Declaration::Procedure(encoder.barrier_functional(global, &lockstep)))
            }
            Global::Implication { .. } | Global::Defined { .. } => {
                declarations.push(Declaration::Procedure(encoder.level_obligation(global)))
            }
            Global::Fit { .. } | Global::Handover { .. } => {
                resources.push(Declaration::Procedure(encoder.resource_procedure(global, &lockstep)))
            }
        }
    }
    declarations.append(&mut encoder.extra_declarations);
    declarations.extend(resources);
    Encoding {
        program: ivl::Program::new(declarations),
        obligations: outline.obligations.clone(),
        display: display(kernel),
        shown: encoder.shown,
        definitions: definitions(outline.functions, &encoder.calls),
        probes: encoder.probes,
    }
}

/// Evaluation may take this many steps (expression nodes) per application. It is spent only on
/// checks the solver left undecided.
const EVALUATION_STEPS: u64 = 1_000_000;

/// The recursive functions with their concrete evaluation, for the checks their axioms leave
/// undecided (E5). Their fuel, the first argument, does not change their value.
fn definitions(functions: &[logic::Function], calls: &CallGraph) -> Vec<Definition> {
    let shared: Arc<Vec<logic::Function>> = Arc::new(functions.to_vec());
    functions
        .iter()
        .enumerate()
        .filter(|(index, _)| calls.recursive(FunctionId(*index as u32)))
        .map(|(index, function)| {
            let functions = Arc::clone(&shared);
            let evaluate = move |args: &[Value]| {
                let args: Option<Vec<eval::Value>> = args
                    .iter()
                    .map(|arg| match arg {
                        Value::Int(value) => Some(eval::Value::Int(value.clone())),
                        Value::Bool(value) => Some(eval::Value::Bool(*value)),
                        Value::Real(_) | Value::Other(_) => None,
                    })
                    .collect();
                let Some(args) = args else { return Evaluation::Unknown };
                let evaluator = eval::Evaluator::new(&functions, EVALUATION_STEPS);
                match evaluator.call(logic::FunctionId(index as u32), args, Span::default()) {
                    Ok(eval::Value::Int(value)) => Evaluation::Value(Value::Int(value)),
                    Ok(eval::Value::Bool(value)) => Evaluation::Value(Value::Bool(value)),
                    Err(eval::EvalError::PreconditionFailed { function, .. }) if function.index() == index => {
                        Evaluation::Unconstrained
                    }
                    Err(_) => Evaluation::Unknown,
                }
            };
            Definition {
                function: names::function(function),
                guard: names::defined(function),
                ignored_arguments: 1,
                evaluate: Arc::new(evaluate),
            }
        })
        .collect()
}

struct Encoder<'k> {
    kernel: &'k logic::Kernel,
    functions: &'k [logic::Function],
    outline: &'k Outline<'k>,
    /// The calls between the functions, and which recurse.
    calls: CallGraph,
    /// Wildcard amounts chosen so far (each a fresh local variable).
    wildcards: usize,
    /// Functions the procedures introduce on the way (the inverses of permission indices).
    extra_declarations: Vec<Declaration>,
    /// See [`Encoding::shown`].
    shown: HashMap<String, Vec<(String, Expr)>>,
    /// See [`Encoding::probes`].
    probes: Vec<Probe>,
}

/// After a failed write check, the permission that lets the thread go on as if it had held it
/// (E4): `amount` of the location `index` of the array whose mask is `mask`, where `guard` holds
/// and the thread holds less.
struct Grant {
    mask: String,
    index: Expr,
    guard: Expr,
    amount: Amount,
}

/// The state of the thread procedure being built.
struct Body {
    stmts: Vec<Stmt>,
    locals: Vec<Binding>,
}

impl Body {
    fn push(&mut self, kind: StmtKind) {
        self.stmts.push(Stmt::new(kind));
    }
}

impl<'k> Encoder<'k> {
    /// The tag of obligation `number` of the outline.
    fn tag(number: usize) -> String {
        format!("o{number}")
    }

    /// Asks whether any state reaches this place (E14): `assert false`, not assumed after it, so
    /// that it hides nothing that follows. Verified, it shows the assumptions before it
    /// contradictory; it is no obligation, and only a warning is drawn from it.
    fn probe(&mut self, stmts: &mut Vec<Stmt>, position: Assumed, span: Span) {
        self.probe_after(stmts, Vec::new(), position, span);
    }

    /// [`Encoder::probe`] after the statements `setup`, which run on the probe's branch only.
    fn probe_after(&mut self, stmts: &mut Vec<Stmt>, mut setup: Vec<Stmt>, position: Assumed, span: Span) {
        self.probes.push(Probe { position, span });
        let tag = format!("{PROBE_PREFIX}{}", self.probes.len() - 1);
        // In a branch of its own, which ends there, so that the rest of the procedure runs on
        // the other branch whatever the probe's answer, in every backend (Boogie prunes what
        // follows an `assert false`).
        setup.push(Stmt::new(StmtKind::Assert { expr: Expr::Bool(false), tag: Some(tag), assumed: true }));
        stmts.push(Stmt::new(StmtKind::If { cond: None, then_branch: setup, else_branch: Vec::new() }));
    }

    /// Asserts the checks of the outline, in order, in a context's state.
    fn checks(&self, context: &Context, checks: &[Check], stmts: &mut Vec<Stmt>) {
        for check in checks {
            self.prove(stmts, check.obligation, context.requirement(check));
        }
    }

    /// Asserts the condition of obligation `number`. A failed access check is reported, and the
    /// thread goes on as if it held the permission: the check is not assumed after it, since the
    /// empty mask would make every path through it infeasible and hide each later failure (E4).
    fn prove(&self, stmts: &mut Vec<Stmt>, number: usize, expr: Expr) {
        let id = self.outline.obligations[number].id;
        let assumed = !matches!(id, ObligationId::AccessRead | ObligationId::AccessWrite | ObligationId::Frame);
        stmts.push(Stmt::new(StmtKind::Assert { expr, tag: Some(Self::tag(number)), assumed }));
    }

    /// Lets the thread go on after a failed permission check as if it had held what it needed:
    /// where the guard holds and the thread holds less, it now holds `amount` (a fresh wildcard
    /// for `read`). Where the check held, nothing changes; where it failed, the failure is already
    /// reported, and a later access of the same location is not reported again (E4).
    fn grant(&mut self, body: &mut Body, grant: &Grant) {
        let held = Expr::select(Expr::var(&grant.mask), grant.index.clone());
        let short = Expr::negation(conjunct::holds(held, &grant.amount));
        let amount = self.amount(&grant.amount, body, None);
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

    fn arrays(&self) -> std::ops::Range<usize> {
        0..self.kernel.arrays.len()
    }

    /// Sizes, parameters, the launch facts, and fuel.
    fn preamble(&self) -> Vec<Declaration> {
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
        declarations.push(Declaration::Function(ivl::Function {
            name: names::SUCC.into(),
            params: vec![Binding::new("fuel", Type::Int)],
            result: Type::Int,
            body: None,
        }));
        declarations
    }

    /// A pure function (`proofs/kernel.md`, E5). Every IVL version takes a fuel argument first,
    /// so that calls look alike. A function that does not recurse (directly or through others) is
    /// an IVL function with a body, which the VC generator expands at its calls: no quantifier.
    /// A recursive one is unfolded with fuel: `f(succ(F), x) == body` where the calls in the body
    /// get fuel `F`, and `f(succ(F), x) == f(F, x)`, both triggered only on `f(succ(F), x)`, so
    /// each unfolding uses up one unit and the solver cannot loop. Its `ensures` are checked by a
    /// procedure of their own and assumed at every call.
    fn function(&mut self, outline: &FunctionOutline) -> Vec<Declaration> {
        let id = outline.function;
        let function = &self.functions[id.index()];
        let params: Vec<Binding> = function
            .params
            .iter()
            .map(|&param| Binding::new(names::function_var(function, param), ivl_type(function.vars[param.index()].ty)))
            .collect();
        let with_fuel: Vec<Binding> =
            std::iter::once(Binding::new("fuel", Type::Int)).chain(params.iter().cloned()).collect();
        let application = |fuel: Expr| {
            Expr::Call(
                names::function(function),
                std::iter::once(fuel).chain(params.iter().map(|param| Expr::var(&param.name))).collect(),
            )
        };
        let bindings = HashMap::new();
        let inner =
            expr::FunctionContext { functions: self.functions, function, bindings: &bindings, fuel: Expr::var("fuel") };
        let precondition = conjunction(function.requires.iter().map(|requirement| inner.translate(requirement)));
        let forall = |trigger: Expr, body: Expr| Expr::Quantified {
            quantifier: ivl::Quantifier::Forall,
            bound: with_fuel.clone(),
            triggers: vec![vec![trigger]],
            body: Box::new(body),
        };
        let mut declarations = Vec::new();
        if self.calls.recursive(id) {
            let unfolded = application(Expr::Call(names::SUCC.into(), vec![Expr::var("fuel")]));
            declarations.push(Declaration::Function(ivl::Function {
                name: names::function(function),
                params: with_fuel.clone(),
                result: ivl_type(function.result),
                body: None,
            }));
            // The axioms hold only where `defined_f` is assumed: in the kernel's procedures, never in
            // the functions' own, which check the termination that makes them consistent (E5).
            let defined = Expr::var(names::defined(function));
            declarations.push(Declaration::Const(Binding::new(names::defined(function), Type::Bool)));
            let definition = Expr::binary(BinaryOp::Eq, unfolded.clone(), inner.translate(&function.body));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                defined.clone(),
                forall(unfolded.clone(), Expr::binary(BinaryOp::Implies, precondition.clone(), definition)),
            )));
            let irrelevance = Expr::binary(BinaryOp::Eq, unfolded.clone(), application(Expr::var("fuel")));
            declarations.push(Declaration::Axiom(Expr::binary(
                BinaryOp::Implies,
                defined,
                forall(unfolded, irrelevance),
            )));
        } else {
            declarations.push(Declaration::Function(ivl::Function {
                name: names::function(function),
                params: with_fuel.clone(),
                result: ivl_type(function.result),
                body: Some(inner.translate(&function.body)),
            }));
        }
        declarations.push(Declaration::Procedure(self.function_procedure(outline, &params)));
        declarations
    }

    /// The well-formedness of a pure function (E5), as its own procedure: from its precondition,
    /// its body is defined (callees' preconditions, divisors), a recursive call makes the measure
    /// (an int parameter) smaller and stays at or above zero, so the recursion terminates and its
    /// unfolding axioms are consistent, and its postconditions follow from its body. A
    /// postcondition is proved here and never assumed: callers see the body itself (expanded), so
    /// a wrong `ensures` cannot make anything else verify.
    fn function_procedure(&mut self, outline: &FunctionOutline, params: &[Binding]) -> Procedure {
        let function = &self.functions[outline.function.index()];
        let mut context =
            self.context([Expr::var(names::UNKNOWN), Expr::var(names::UNKNOWN), Expr::var(names::UNKNOWN)]);
        context.function = Some(function);
        for &param in &function.params {
            context.vars.insert(param, Expr::var(names::function_var(function, param)));
        }
        context.measure = outline.measure.as_ref().map(|(measure, _)| context.translate(measure));
        let mut stmts = Vec::new();
        for (requirement, checks) in function.requires.iter().zip(&outline.requires) {
            self.checks(&context, checks, &mut stmts);
            stmts.push(Stmt::new(StmtKind::Assume(context.translate(requirement))));
        }
        if let Some((_, checks)) = &outline.measure {
            self.checks(&context, checks, &mut stmts);
        }
        self.checks(&context, &outline.body, &mut stmts);
        let value = context.translate(&function.body);
        stmts.push(Stmt::new(StmtKind::Assign { target: names::RESULT.into(), indices: Vec::new(), value }));
        for (ensures, (checks, follows)) in function.ensures.iter().zip(&outline.ensures) {
            self.checks(&context, checks, &mut stmts);
            self.prove(&mut stmts, *follows, context.translate(ensures));
        }
        let locals = vec![Binding::new(names::RESULT, ivl_type(function.result))];
        let mut procedure = self.procedure(names::function_procedure(function), &[], Vec::new(), false, locals, stmts);
        procedure.params = params.to_vec();
        procedure
    }

    fn context(&self, thread: [Expr; 3]) -> Context<'k> {
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
        }
    }

    /// The per-thread triple `{T_res * T_pre} body {T_res' * T_post}` (seed Theorem 5.3.1, the
    /// thread premise; `proofs/kernel.md`, E2).
    fn thread(&mut self) -> Procedure {
        let kernel = self.kernel;
        // `tid` is spelled `gid * gsize + lid` everywhere, so arithmetic modulo `gsize` sees the
        // thread's place in its group (E9).
        let thread =
            [thread_id(&Expr::var(names::GID), &Expr::var(names::LID)), Expr::var(names::GID), Expr::var(names::LID)];
        let mut context = self.context(thread);
        let mut body = Body { stmts: Vec::new(), locals: Vec::new() };
        for (index, var) in kernel.vars.iter().enumerate() {
            if var.kind == VarKind::Private {
                let id = VarId(index as u32);
                let name = names::private(kernel, id);
                body.locals.push(Binding::new(&name, ivl_type(var.ty)));
                context.vars.insert(id, Expr::var(name));
            }
        }
        for index in self.arrays() {
            body.locals.push(Binding::new(names::mask(kernel, index), mask_type()));
            body.locals.push(Binding::new(names::heap(kernel, index), Type::map(Type::Int, Type::Int)));
            body.locals.push(Binding::new(names::old_heap(kernel, index), Type::map(Type::Int, Type::Int)));
        }
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
            format!("thread_{}", kernel.name),
            &[names::TID, names::GID, names::LID],
            self.launch(),
            true,
            body.locals,
            body.stmts,
        )
    }

    /// A procedure of the kernel's encoding: the free `requires` are the given facts and (unless
    /// it checks the functions themselves) the recursive functions' definitions (E5).
    fn procedure(
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
    fn other_thread_privates(
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
    fn launch(&self) -> Vec<Expr> {
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
    fn definitions(&self, facts: &[Expr], stmts: &[Stmt]) -> Vec<Spec> {
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
    fn forget_permissions(&mut self, body: &mut Body) {
        for index in self.arrays() {
            body.push(StmtKind::Assign {
                target: names::mask(self.kernel, index),
                indices: Vec::new(),
                value: Expr::Lambda { bound: Binding::new("cell", Type::Int), body: Box::new(expr::real_zero()) },
            });
        }
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

    /// An amount as a real: exact, or a fresh wildcard, positive and (when taken from `held`)
    /// smaller than what is held, as Carbon chooses wildcards.
    fn amount(&mut self, amount: &Amount, body: &mut Body, held: Option<Expr>) -> Expr {
        match amount {
            Amount::Exact(value) => real(value),
            Amount::Read => {
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
                self.prove(&mut body.stmts, *bounds, expr::in_bounds(&index, context.array_size(*array)));
                let mask = Expr::select(Expr::var(names::mask(kernel, array.index())), index.clone());
                let all = Amount::Exact(BigRational::from_integer(BigInt::from(1)));
                self.prove(&mut body.stmts, *write, conjunct::holds(mask, &all));
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
            let mut start = Body { stmts: Vec::new(), locals: body.locals.clone() };
            self.forget_permissions(&mut start);
            // The iteration's inhale checks the invariant's definedness; this one only assumes.
            self.inhale(context, inhaled, &mut start);
            let mut stmts = without_checks(start.stmts);
            self.probe(&mut stmts, Assumed::LoopInvariant, span);
            let name = format!("invariant_{}_{}", kernel.name, self.probes.len() - 1);
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

/// The kernel's names for the IVL names a counterexample shows: thread ids, sizes, parameters,
/// private variables, heaps (by array), and the threads and location the resource checks choose.
fn display(kernel: &logic::Kernel) -> std::collections::BTreeMap<String, String> {
    let mut names = std::collections::BTreeMap::new();
    for name in [names::TID, names::GID, names::LID, names::GSIZE, names::TCOUNT] {
        names.insert(name.to_string(), name.to_string());
    }
    for (position, var) in kernel.vars.iter().enumerate() {
        let id = VarId(position as u32);
        match var.kind {
            VarKind::Private => {
                names.insert(names::private(kernel, id), var.name.clone());
            }
            VarKind::KernelParam => {
                names.insert(names::param(kernel, id), var.name.clone());
            }
            _ => {}
        }
    }
    for (index, array) in kernel.arrays.iter().enumerate() {
        names.insert(names::heap(kernel, index), array.name.clone());
        names.insert(names::old_heap(kernel, index), format!("\\old {}", array.name));
        names.insert(names::mask(kernel, index), array.name.clone());
    }
    names
}

/// Where a group's block of thread ids lies: `0 <= gid*gsize` and `gid*gsize + gsize <= tcount`.
/// Both follow from the launch facts (`gid < tcount div gsize`, `tcount mod gsize == 0`), but only
/// by non-linear steps, so they are stated for the solver (E9).
fn group_block(gid: &Expr) -> Vec<Expr> {
    let gsize = Expr::var(names::GSIZE);
    let block = Expr::binary(BinaryOp::Mul, gid.clone(), gsize.clone());
    vec![
        Expr::binary(BinaryOp::Le, Expr::int(0), block.clone()),
        Expr::binary(BinaryOp::Le, Expr::binary(BinaryOp::Add, block, gsize), Expr::var(names::TCOUNT)),
    ]
}

/// `gid * gsize + lid`.
fn thread_id(gid: &Expr, lid: &Expr) -> Expr {
    Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, gid.clone(), Expr::var(names::GSIZE)), lid.clone())
}

fn collect_reads(
    stmts: &[Stmt],
    display: &std::collections::BTreeMap<String, String>,
    out: &mut BTreeMap<String, Reads>,
) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Assert { expr, tag: Some(tag), .. } => {
                let mut reads = Reads::default();
                reads_of(expr, display, &mut reads.cells);
                expr.walk(&mut |part| {
                    if let Expr::Var(name) = part {
                        reads.variables.insert(name.clone());
                    }
                });
                out.insert(tag.clone(), reads);
            }
            StmtKind::If { then_branch, else_branch, .. } => {
                collect_reads(then_branch, display, out);
                collect_reads(else_branch, display, out);
            }
            _ => {}
        }
    }
}

/// The heap reads of an expression outside quantifiers.
fn reads_of(expr: &Expr, display: &std::collections::BTreeMap<String, String>, out: &mut Vec<Cell>) {
    match expr {
        Expr::Select(map, index) => {
            if let Expr::Var(heap) = &**map {
                let permission = heap.starts_with("M_");
                if let Some(array) =
                    display.get(heap).filter(|_| heap.starts_with("H_") || heap.starts_with("H0_") || permission)
                {
                    let cell = Cell { array: array.clone(), index: (**index).clone(), value: expr.clone(), permission };
                    if !out.contains(&cell) {
                        out.push(cell);
                    }
                }
            }
            reads_of(map, display, out);
            reads_of(index, display, out);
        }
        Expr::Quantified { .. } | Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) | Expr::Var(_) | Expr::Lambda { .. } => {
        }
        Expr::Unary(_, operand) | Expr::Old(operand) => reads_of(operand, display, out),
        Expr::Binary(_, lhs, rhs) => {
            reads_of(lhs, display, out);
            reads_of(rhs, display, out);
        }
        Expr::Store(first, second, third) | Expr::IfThenElse(first, second, third) => {
            reads_of(first, display, out);
            reads_of(second, display, out);
            reads_of(third, display, out);
        }
        Expr::Call(_, args) => args.iter().for_each(|arg| reads_of(arg, display, out)),
    }
}

/// The statements without their checks (on every branch).
fn without_checks(stmts: Vec<Stmt>) -> Vec<Stmt> {
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
fn clauses_span(clauses: &[logic::Clause]) -> Option<Span> {
    let first = clauses.first()?.span;
    Some(clauses.iter().fold(first, |span, clause| span.to(clause.span)))
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

fn conjunction(parts: impl IntoIterator<Item = Expr>) -> Expr {
    parts.into_iter().reduce(|left, right| Expr::binary(BinaryOp::And, left, right)).unwrap_or(Expr::Bool(true))
}

fn real(value: &BigRational) -> Expr {
    Expr::Real(value.clone())
}

fn mask_type() -> Type {
    Type::map(Type::Int, Type::Real)
}

fn ivl_type(ty: logic::Type) -> Type {
    match ty {
        logic::Type::Int => Type::Int,
        logic::Type::Bool => Type::Bool,
    }
}
