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

mod arith;
mod axes;
mod barrier;
mod conjunct;
mod expr;
mod facts;
mod functions;
mod inverse;
mod levels;
mod names;
mod resources;
mod state;
mod sums;
mod thread;

use crate::ivl::{self, Declaration, Expr, Procedure, Stmt, StmtKind};
use crate::smt::Value;
use crate::verify::{Definition, Evaluation};
use lockstep_logic::eval;
use lockstep_logic::outline::{Global, Outline};
use lockstep_logic::recursion::CallGraph;
use lockstep_logic::{self as logic, FunctionId, Obligation, Span, VarId, VarKind};
pub use state::{is_probe, obligation_number, Assumed, Probe};
use state::{Encoder, PROBE_PREFIX};
use std::collections::{BTreeMap, HashMap};
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
    /// What every counterexample shows of a launch of several dimensions, after the linear ids
    /// and sizes (`gid_x`, ..., `groups_y`), with the expressions that give them.
    pub launch: Vec<(String, Expr)>,
    /// The recursive functions, which the program only axiomatises, with their concrete
    /// evaluation (E5).
    pub definitions: Vec<Definition>,
    /// The places where an assumption could make everything after it vacuous, each probed by a
    /// check `v12` (`probes[12]`) of `false` on a branch of its own (E14): the check verified
    /// means no state reaches the place.
    pub probes: Vec<Probe>,
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
        obligation_number(tag).and_then(|number| self.obligations.get(number))
    }
}

/// Encodes the outline of one kernel: each of its obligations becomes a tagged check (`o12` is
/// obligation 12 of the outline). The program uses no construct the language does not support
/// yet ([`lockstep_logic::support::unsupported`] finds none): the frontend refuses such files
/// before they get here, and the encoding relies on it (no permissions in a
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
        sums: Default::default(),
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
    declarations.extend(encoder.sums.borrow().declarations());
    declarations.extend(resources);
    Encoding {
        program: ivl::Program::new(declarations),
        obligations: outline.obligations.clone(),
        display: display(kernel),
        shown: encoder.shown,
        launch: axes::shown(kernel),
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
