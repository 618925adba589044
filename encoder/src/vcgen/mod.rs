//! Verification conditions for IVL procedures, built the way Boogie builds them, so that their size
//! stays linear in the size of the procedure.
//!
//! 1. **Lowering** turns structured commands into basic blocks of simple commands (assign, havoc,
//!    assume, assert) joined by gotos. Calls become assert-pre, havoc, assume-post. Loops are cut:
//!    assert the invariants, havoc what the body may change, assume the invariants, then either run
//!    the body once and assert the invariants again (a block with no successor) or leave the loop.
//!    The graph is then acyclic.
//! 2. **Passification** gives every assignment a new incarnation of its variable (`x@3`), so that
//!    `x := e` becomes `assume x@3 == e`; where paths join, a variable whose incarnations differ gets
//!    a new one, equated to each predecessor's at the end of that predecessor.
//! 3. **Block equations**: every block `B` gets one Boolean `ok@B`, defined as the weakest
//!    precondition of its commands with respect to the conjunction of its successors' `ok`s. This is
//!    the one definition per block of Boogie's design; nothing is ever duplicated.
//!
//! Every check `k` (an assert, a precondition at a call, a postcondition, an invariant on entry or
//! preserved) gets two Booleans: `holds@k`, defined as its condition, and `enabled@k`, assumed by
//! the caller. `wp(assert k e, Q) = (enabled@k => holds@k) && (holds@k => Q)`: enabled, it is an
//! assertion; disabled, an assumption. That lets [`crate::verify`] report one failure, disable it, and
//! look for the next, with one script loaded once.
//!
//! Why the result is sound: `proofs/vcgen.md`, sections V1 (lowering), V2 (passification), V3 (block
//! equations) and V4 (one check at a time).

mod ground;
mod products;
mod split;

use crate::ivl::{
    BinaryOp, Declaration, Expr, Position, Procedure, Program, Quantifier, Stmt, StmtKind, Type, UnaryOp,
};
use crate::smt::{Command, Op, Script, Sort, Term};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Where a check comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CheckKind {
    Assertion,
    Precondition,
    Postcondition,
    InvariantEntry,
    InvariantPreserved,
}

impl CheckKind {
    pub fn describe(self) -> &'static str {
        match self {
            CheckKind::Assertion => "this assertion might not hold",
            CheckKind::Precondition => "a precondition of this call might not hold",
            CheckKind::Postcondition => "this postcondition might not hold",
            CheckKind::InvariantEntry => "this loop invariant might not hold on entry",
            CheckKind::InvariantPreserved => "this loop invariant might not be preserved by the loop",
        }
    }
}

/// One check of a procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub kind: CheckKind,
    pub tag: Option<String>,
    /// The assert, the `ensures`, the invariant, or (for a precondition) the call.
    pub position: Position,
    /// For a precondition: the `requires` clause that might not hold.
    pub related: Option<Position>,
    /// The checked formula is valid by constant folding alone (`0.0 < 1.0 || ...`, as resource
    /// checks of a single exact atom are), so no solver need be asked.
    pub trivial: bool,
    /// The formula is assumed after the check (false for `assert {:subsumption 0}`).
    pub assumed: bool,
}

/// The verification condition of one procedure, or of a part of it (V11), ready for a solver.
pub struct ProcedureVc {
    pub procedure: String,
    pub script: Script,
    pub checks: Vec<Check>,
    /// Whether each check is asked about; one that is not is only assumed (a check of another
    /// part that this part's facts involve).
    asked: Vec<bool>,
    /// The incarnation of every variable at each check, for counterexamples (the whole VC only).
    states: Vec<State>,
    incarnations: Arc<Incarnations>,
    blocks: Vec<TraceBlock>,
    /// The blocks the procedure starts in: the entry block, or, in a part, the first blocks with
    /// commands of the part on the way from it.
    entry: Vec<usize>,
    names: Names,
    /// The counter that renames bound variables apart, where the VC left it.
    fresh: Cell<usize>,
}

/// What tracing a model needs of a block: its `ok` symbol, its checks in order and its
/// successors (indices of trace blocks).
struct TraceBlock {
    ok: String,
    checks: Vec<usize>,
    /// The check the block begins with, if it begins with one.
    leading: Option<usize>,
    successors: Vec<usize>,
}

pub fn enabled_symbol(check: usize) -> String {
    format!("enabled@{check}")
}

fn holds_symbol(check: usize) -> String {
    format!("holds@{check}")
}

fn ok_symbol(block: usize) -> String {
    format!("ok@{block}")
}

/// Commands in a block before the wp chain is cut into a new definition, so that no term nests
/// deeper than this (the recursive passes over terms stay far from the end of the stack).
const CHUNK: usize = 32;

impl ProcedureVc {
    /// The Boolean symbols whose model values [`ProcedureVc::failing_check`] reads.
    pub fn trace_symbols(&self) -> Vec<String> {
        let blocks = self.blocks.iter().map(|block| block.ok.clone());
        let checks = (0..self.checks.len()).map(holds_symbol);
        blocks.chain(checks).collect()
    }

    /// The check that fails in a model, given the values of [`ProcedureVc::trace_symbols`] (in that
    /// order) and which checks are enabled: the first enabled check that does not hold on the path
    /// from the entry through blocks whose `ok` is false.
    pub fn failing_check(&self, values: &[bool], enabled: &[bool]) -> Option<usize> {
        let ok = |block: usize| values.get(block).copied();
        let holds = |check: usize| values.get(self.blocks.len() + check).copied();
        let mut block = *self.entry.iter().find(|&&block| ok(block) == Some(false))?;
        // The path is acyclic, so it visits each block at most once.
        for _ in 0..=self.blocks.len() {
            if ok(block)? {
                return None;
            }
            let here = &self.blocks[block];
            if let Some(&check) = here.checks.iter().find(|&&check| enabled[check] && holds(check) == Some(false)) {
                return Some(check);
            }
            block = *here.successors.iter().find(|&&successor| ok(successor) == Some(false))?;
        }
        None
    }

    /// The checks a model shows reachable, given the values of [`ProcedureVc::trace_symbols`]:
    /// those that begin a block of the model's failing path (whose `ok` is false from the entry
    /// on), or a successor of a block the path leaves. The model's state passes every command of
    /// a block it leaves, so each such check is reached by some state; a probe among them is
    /// reachable (E14). The path's last block, where its check fails, is not passed to its end.
    pub fn reached_checks(&self, values: &[bool]) -> Vec<usize> {
        let ok = |block: usize| values.get(block).copied();
        let mut reached = Vec::new();
        let mut next = self.entry.iter().copied().find(|&block| ok(block) == Some(false));
        let mut visited = vec![false; self.blocks.len()];
        while let Some(block) = next.filter(|&block| !std::mem::replace(&mut visited[block], true)) {
            let here = &self.blocks[block];
            reached.extend(here.leading);
            next = here.successors.iter().copied().find(|&successor| ok(successor) == Some(false));
            if next.is_some() {
                reached.extend(here.successors.iter().filter_map(|&successor| self.blocks[successor].leading));
            }
        }
        reached.sort_unstable();
        reached.dedup();
        reached
    }

    /// Whether check `check` is asked about, rather than only assumed.
    pub fn asks(&self, check: usize) -> bool {
        self.asked[check]
    }

    /// An expression in the state of a check, as a term for the model (for counterexamples; not
    /// in a part, whose failures are asked again of the whole VC).
    pub fn term_at_check(&self, check: usize, expr: &Expr) -> Option<Term> {
        let state = self.states.get(check)?;
        let incarnations = &self.incarnations;
        let scope = Scope::new(state, state, &incarnations.variables, &incarnations.list, &self.names, &self.fresh);
        translate(expr, &scope, &mut Vec::new()).ok()
    }
}

/// Builds the verification condition of a procedure with a body. Every variable the body uses must
/// be a parameter, a local or a global of the program (the kernel encoder declares the thread's
/// whole state in each procedure it cuts from the thread's body).
pub fn procedure(program: &Program, procedure: &Procedure) -> ProcedureVc {
    Generator::of(program).analyse(procedure).whole()
}

/// What VC generation needs of a whole program (its names, types, procedures and the functions
/// it expands), gathered once for all of its procedures.
pub struct Generator<'p> {
    program: &'p Program,
    environment: Environment<'p>,
}

impl<'p> Generator<'p> {
    pub fn of(program: &'p Program) -> Generator<'p> {
        Generator { program, environment: Environment::of(program) }
    }

    /// A procedure of the program, lowered and passified.
    pub fn analyse(&self, procedure: &Procedure) -> Analysis<'_> {
        let mut lowering = Lowering::new(&self.environment, procedure);
        lowering.lower_procedure(procedure);
        let Lowering { blocks, checks, variables, snapshot_count, .. } = lowering;
        let fresh = Cell::new(0);
        let passive = passify(&blocks, &variables, snapshot_count, &self.environment.names, &fresh);
        Analysis {
            program: self.program,
            environment: &self.environment,
            name: procedure.name.clone(),
            blocks,
            checks,
            passive,
            fresh: fresh.get(),
            parameters: procedure.params.iter().map(|param| param.name.clone()).collect(),
        }
    }
}

/// A procedure lowered to blocks and passified: what its verification condition, whole or in
/// parts (V11), is built from.
pub struct Analysis<'g> {
    program: &'g Program,
    environment: &'g Environment<'g>,
    name: String,
    blocks: Vec<Block>,
    checks: Vec<Check>,
    passive: Passified,
    /// Where passification left the counter that renames bound variables apart.
    fresh: usize,
    /// The procedure's parameters (for a kernel's thread, its ids).
    parameters: HashSet<String>,
}

/// What a verification condition is built from: the commands kept of each block (none for a block
/// left out), and the checks, each asked or only assumed.
struct Selection {
    kept: Vec<Option<Vec<usize>>>,
    /// The checks of the VC, by their number in the procedure, with whether each is asked.
    checks: Vec<(usize, bool)>,
    /// Whether blocks with no command kept give way to their successors (in a part), rather than
    /// each having its equation (the whole VC, as V3 defines it).
    collapse: bool,
}

impl Analysis<'_> {
    /// The checks of the procedure, in order.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// The verification condition of the whole procedure (V3).
    pub fn whole(&self) -> ProcedureVc {
        self.whole_asking(&(0..self.checks.len()).collect::<Vec<_>>())
    }

    /// The verification condition of the whole procedure, asking only the checks `asked` (the
    /// others assumed, V4).
    pub fn whole_asking(&self, asked: &[usize]) -> ProcedureVc {
        let kept = self.passive.blocks.iter().map(|commands| Some((0..commands.len()).collect())).collect();
        let checks = (0..self.checks.len()).map(|check| (check, asked.contains(&check))).collect();
        self.build(&Selection { kept, checks, collapse: false })
    }

    /// The parts of the procedure's verification condition (V11): each asks some of the checks
    /// with only the facts they involve; empty when the procedure is too small to split, or
    /// splits into one part, so that the whole VC is asked instead. Every check that is not
    /// trivial is asked in exactly one part; probes (`probe`) in parts of their own.
    pub fn parts(&self, probe: &dyn Fn(&str) -> bool) -> Vec<Part> {
        split::parts(self, probe)
            .into_iter()
            .map(|(selection, is_probe)| {
                let checks = selection.checks.iter().map(|(check, _)| *check).collect();
                Part { vc: self.build(&selection), checks, probe: is_probe }
            })
            .collect()
    }

    fn build(&self, selection: &Selection) -> ProcedureVc {
        let environment = self.environment;
        let passive = &self.passive;
        let local: HashMap<usize, usize> =
            selection.checks.iter().enumerate().map(|(local, (check, _))| (*check, local)).collect();
        let kept_commands =
            |block: usize| selection.kept[block].iter().flatten().map(move |&command| &passive.blocks[block][command]);
        // The blocks with an equation of their own, and the frontier each block stands for: itself,
        // or (a block with nothing kept, in a part) the frontiers of its successors.
        let mut frontier: Vec<Vec<usize>> = vec![Vec::new(); self.blocks.len()];
        let mut has_equation: Vec<bool> =
            selection.kept.iter().map(|kept| kept.is_some() && !selection.collapse).collect();
        // The frontiers of a block's successors, each block once.
        let joined = |frontier: &[Vec<usize>], block: usize| -> Vec<usize> {
            let mut joined: Vec<usize> = Vec::new();
            for &successor in &self.blocks[block].successors {
                for &next in &frontier[successor] {
                    if !joined.contains(&next) {
                        joined.push(next);
                    }
                }
            }
            joined
        };
        if selection.collapse {
            for &block in topological_order(&self.blocks).iter().rev() {
                let Some(commands) = &selection.kept[block] else { continue };
                frontier[block] = match commands.first().map(|&command| &passive.blocks[block][command]) {
                    // A block that begins with `assume false` holds whatever follows it.
                    Some(Passive::Assume(Term::Bool(false), _)) => Vec::new(),
                    Some(_) => {
                        has_equation[block] = true;
                        vec![block]
                    }
                    None => joined(&frontier, block),
                };
            }
        }
        let successors_of = |block: usize| -> Vec<usize> {
            if selection.collapse {
                joined(&frontier, block)
            } else {
                self.blocks[block].successors.clone()
            }
        };

        let mut script = Script::default();
        for (name, ty) in environment.constant_types.iter() {
            script.commands.push(Command::DeclareConst(name.clone(), sort(ty)));
        }
        let used: Option<HashSet<&str>> = selection.collapse.then(|| {
            let mut used = HashSet::new();
            for block in 0..self.blocks.len() {
                for command in kept_commands(block) {
                    let (Passive::Assume(term, _) | Passive::Assert(_, term)) = command;
                    term.symbols(&mut used);
                }
            }
            used
        });
        for (name, ty) in &passive.incarnations.list {
            if used.as_ref().is_none_or(|used| used.contains(name.as_str())) {
                script.commands.push(Command::DeclareConst(name.clone(), sort(ty)));
            }
        }
        for declaration in &self.program.declarations {
            if let Declaration::Function(function) = declaration {
                if environment.names.definitions.expands(&function.name) {
                    continue;
                }
                let domain = function.params.iter().map(|param| sort(&param.ty)).collect();
                script.commands.push(Command::DeclareFun(function.name.clone(), domain, sort(&function.result)));
            }
        }
        for check in 0..selection.checks.len() {
            script.commands.push(Command::DeclareConst(enabled_symbol(check), Sort::Bool));
            script.commands.push(Command::DeclareConst(holds_symbol(check), Sort::Bool));
        }
        for block in (0..self.blocks.len()).filter(|&block| has_equation[block]) {
            script.commands.push(Command::DeclareConst(ok_symbol(block), Sort::Bool));
        }
        let empty = State::default();
        let fresh = Cell::new(self.fresh);
        let no_variables = HashMap::new();
        let global_scope = Scope::new(&empty, &empty, &no_variables, &[], &environment.names, &fresh);
        for declaration in &self.program.declarations {
            match declaration {
                Declaration::Axiom(expr) => {
                    script.commands.push(Command::Assert(assumed(expr, &global_scope)));
                }
                Declaration::Function(function) => {
                    if let Some(body) =
                        function.body.as_ref().filter(|_| !environment.names.definitions.expands(&function.name))
                    {
                        script.commands.push(Command::Assert(definition_axiom(function, body, &global_scope)));
                    }
                }
                _ => {}
            }
        }
        let mut chunk_count = 0;
        for block in (0..self.blocks.len()).filter(|&block| has_equation[block]) {
            // wp over the commands, from the last to the first.
            let successors: Vec<Term> =
                successors_of(block).into_iter().map(|successor| Term::symbol(ok_symbol(successor))).collect();
            let mut condition = Term::and(successors);
            let commands: Vec<&Passive> = kept_commands(block).collect();
            for (position, command) in commands.into_iter().rev().enumerate() {
                if position > 0 && position % CHUNK == 0 {
                    let name = format!("ok@{block}@{chunk_count}");
                    chunk_count += 1;
                    script.commands.push(Command::DeclareConst(name.clone(), Sort::Bool));
                    script.commands.push(Command::Assert(Term::eq(Term::symbol(name.clone()), condition)));
                    condition = Term::symbol(name);
                }
                condition = match command {
                    // wp(assume e, Q) = e => Q
                    Passive::Assume(term, _) => Term::implies(term.clone(), condition),
                    // wp(assert k e, Q) = (enabled@k => holds@k) && (holds@k => Q), holds@k = e; without
                    // the assumption (`{:subsumption 0}`) the second conjunct is Q itself (V1).
                    Passive::Assert(check, term) => {
                        let check = local[check];
                        let holds = Term::symbol(holds_symbol(check));
                        script.commands.push(Command::Assert(Term::eq(holds.clone(), term.clone())));
                        let assumed = self.checks[selection.checks[check].0].assumed;
                        let after = if assumed { Term::implies(holds.clone(), condition) } else { condition };
                        Term::and(vec![Term::implies(Term::symbol(enabled_symbol(check)), holds), after])
                    }
                };
            }
            script.commands.push(Command::Assert(Term::eq(Term::symbol(ok_symbol(block)), condition)));
        }
        // Facts about the products the query names, which spare the solver its non-linear search (V8).
        // They go before every other assertion: z3 then reads the block equations with the facts
        // already known, and answers the matrix kernels in milliseconds under every seed, where the
        // same facts stated last leave it searching for seconds.
        // Then the lemmas' instances at the query's own terms (V9), in the same place for the same
        // reason.
        let lemmas: Vec<Term> = self
            .program
            .declarations
            .iter()
            .filter_map(|declaration| match declaration {
                Declaration::Lemma(lemma) => Some(assumed(lemma, &global_scope)),
                _ => None,
            })
            .collect();
        let mut facts = products::facts(&script);
        facts.extend(ground::instances(&script, &lemmas));
        let facts = facts.into_iter().map(Command::Assert);
        let first_assertion = script
            .commands
            .iter()
            .position(|command| matches!(command, Command::Assert(_)))
            .unwrap_or(script.commands.len());
        script.commands.splice(first_assertion..first_assertion, facts);
        // A part declares only the functions its assertions apply.
        if selection.collapse {
            let mut applied = HashSet::new();
            for term in script.assertions() {
                term.functions(&mut applied);
            }
            let applied: HashSet<String> = applied.into_iter().map(str::to_string).collect();
            script
                .commands
                .retain(|command| !matches!(command, Command::DeclareFun(name, ..) if !applied.contains(name)));
        }
        // The query: some enabled check fails on some path.
        let entry = if selection.collapse { frontier[0].clone() } else { vec![0] };
        let entered = Term::and(entry.iter().map(|&block| Term::symbol(ok_symbol(block))).collect());
        script.commands.push(Command::Assert(Term::negation(entered)));

        let trace_index: HashMap<usize, usize> = (0..self.blocks.len())
            .filter(|&block| has_equation[block])
            .enumerate()
            .map(|(index, block)| (block, index))
            .collect();
        let trace_blocks = (0..self.blocks.len())
            .filter(|&block| has_equation[block])
            .map(|block| TraceBlock {
                ok: ok_symbol(block),
                leading: match kept_commands(block).next() {
                    Some(Passive::Assert(check, _)) => Some(local[check]),
                    _ => None,
                },
                checks: kept_commands(block)
                    .filter_map(|command| match command {
                        Passive::Assert(check, _) => Some(local[check]),
                        Passive::Assume(..) => None,
                    })
                    .collect(),
                successors: successors_of(block).into_iter().map(|successor| trace_index[&successor]).collect(),
            })
            .collect();
        let states = if selection.collapse {
            Vec::new()
        } else {
            selection.checks.iter().map(|(check, _)| passive.states[*check].clone()).collect()
        };
        ProcedureVc {
            procedure: self.name.clone(),
            script,
            checks: selection.checks.iter().map(|(check, _)| self.checks[*check].clone()).collect(),
            asked: selection.checks.iter().map(|(_, asked)| *asked).collect(),
            states,
            blocks: trace_blocks,
            entry: entry.iter().map(|block| trace_index[block]).collect(),
            incarnations: Arc::clone(&passive.incarnations),
            names: environment.names.clone(),
            fresh,
        }
    }
}

/// A part of a procedure's verification condition (V11).
pub struct Part {
    pub vc: ProcedureVc,
    /// The number in the procedure of each check of the part's VC.
    pub checks: Vec<usize>,
    /// A part that asks one probe, with the facts before it.
    pub probe: bool,
}

fn sort(ty: &Type) -> Sort {
    match ty {
        Type::Int => Sort::Int,
        Type::Bool => Sort::Bool,
        Type::Real => Sort::Real,
        Type::Map(domain, range) => Sort::Array(Box::new(sort(domain)), Box::new(sort(range))),
    }
}

/// `forall params :: {f(params)} f(params) == body`: Boogie's meaning of a function with a body.
fn definition_axiom(function: &crate::ivl::Function, body: &Expr, scope: &Scope) -> Term {
    let mut bound: Vec<String> = function.params.iter().map(|param| param.name.clone()).collect();
    // As for `assumed`: a definition that cannot be translated is left out, never made up.
    let Ok(body) = translate(body, scope, &mut bound) else { return Term::Bool(true) };
    let application = Term::app(
        Op::Apply(function.name.clone()),
        function.params.iter().map(|param| Term::symbol(param.name.clone())).collect(),
    );
    let equation = Term::eq(application.clone(), body);
    if function.params.is_empty() {
        return equation;
    }
    Term::Quantifier {
        forall: true,
        bound: function.params.iter().map(|param| (param.name.clone(), sort(&param.ty))).collect(),
        patterns: vec![vec![application]],
        body: Box::new(equation),
    }
}

/// Names and types visible in the program.
struct Environment<'p> {
    globals: HashMap<&'p str, &'p Type>,
    names: Names,
    constant_types: Vec<(String, Type)>,
    procedures: HashMap<&'p str, &'p Procedure>,
}

impl<'p> Environment<'p> {
    fn of(program: &'p Program) -> Environment<'p> {
        let mut environment = Environment {
            globals: HashMap::new(),
            names: Names { constants: HashSet::new(), globals: HashSet::new(), definitions: Definitions::of(program) },
            constant_types: Vec::new(),
            procedures: HashMap::new(),
        };
        for declaration in &program.declarations {
            match declaration {
                Declaration::Var(binding) => {
                    environment.globals.insert(&binding.name, &binding.ty);
                    environment.names.globals.insert(binding.name.clone());
                }
                Declaration::Const(binding) => {
                    environment.names.constants.insert(binding.name.clone());
                    environment.constant_types.push((binding.name.clone(), binding.ty.clone()));
                }
                Declaration::Procedure(procedure) => {
                    environment.procedures.insert(&procedure.name, procedure);
                }
                _ => {}
            }
        }
        environment
    }
}

/// Which state `old(e)` refers to.
#[derive(Clone, Copy, Debug)]
enum OldState {
    /// The state where the procedure started.
    Entry,
    /// The state just before a call, recorded by [`Lowered::Snapshot`].
    Snapshot(usize),
}

/// A command of a basic block, before passification.
#[derive(Clone, Debug)]
enum Lowered {
    Assign(String, Expr),
    Havoc(String),
    Assume(Expr, OldState),
    /// The guard of a branch: `assume c` where `if (c)` or a loop's condition sends the path.
    Branch(Expr),
    Assert(usize, Expr, OldState),
    /// Remember the current incarnations, for the `old` of a callee's postcondition.
    Snapshot(usize),
}

#[derive(Default)]
struct Block {
    commands: Vec<Lowered>,
    /// The place of each command in the order of the program (the order commands were lowered
    /// in, which the order of blocks is not).
    order: Vec<usize>,
    successors: Vec<usize>,
}

struct Lowering<'e, 'p> {
    environment: &'e Environment<'p>,
    blocks: Vec<Block>,
    current: usize,
    checks: Vec<Check>,
    /// Every variable of the procedure (globals, parameters, results, locals, call temporaries).
    variables: Vec<(String, Type)>,
    calls: usize,
    snapshot_count: usize,
    /// How many commands have been lowered.
    emitted: usize,
}

impl<'e, 'p> Lowering<'e, 'p> {
    fn new(environment: &'e Environment<'p>, procedure: &Procedure) -> Lowering<'e, 'p> {
        let mut variables: Vec<(String, Type)> =
            environment.globals.iter().map(|(name, ty)| (name.to_string(), (*ty).clone())).collect();
        variables.sort_by(|a, b| a.0.cmp(&b.0));
        let locals = procedure.body.iter().flat_map(|body| body.locals.iter());
        for binding in procedure.params.iter().chain(&procedure.returns).chain(locals) {
            variables.push((binding.name.clone(), binding.ty.clone()));
        }
        Lowering {
            environment,
            blocks: vec![Block::default()],
            current: 0,
            checks: Vec::new(),
            variables,
            calls: 0,
            snapshot_count: 0,
            emitted: 0,
        }
    }

    fn emit(&mut self, command: Lowered) {
        let block = &mut self.blocks[self.current];
        block.commands.push(command);
        block.order.push(self.emitted);
        self.emitted += 1;
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(Block::default());
        self.blocks.len() - 1
    }

    fn check(&mut self, kind: CheckKind, tag: &Option<String>, position: Position, related: Option<Position>) -> usize {
        self.checks.push(Check { kind, tag: tag.clone(), position, related, trivial: false, assumed: true });
        self.checks.len() - 1
    }

    fn lower_procedure(&mut self, procedure: &Procedure) {
        for spec in &procedure.requires {
            self.emit(Lowered::Assume(spec.expr.clone(), OldState::Entry));
        }
        if let Some(body) = &procedure.body {
            self.lower_stmts(&body.stmts);
        }
        for spec in procedure.ensures.iter().filter(|spec| !spec.free) {
            let check = self.check(CheckKind::Postcondition, &spec.tag, spec.position, None);
            self.emit(Lowered::Assert(check, spec.expr.clone(), OldState::Entry));
        }
    }

    fn lower_stmts(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            self.lower_stmt(stmt);
        }
    }

    fn lower_stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            // m[i] := v  ~>  m := m[i := v]
            StmtKind::Assign { target, indices, value } => {
                let value = stored(Expr::var(target.clone()), indices, value.clone());
                self.emit(Lowered::Assign(target.clone(), value));
            }
            StmtKind::Havoc(names) => {
                for name in names {
                    self.emit(Lowered::Havoc(name.clone()));
                }
            }
            StmtKind::Assume(expr) => self.emit(Lowered::Assume(expr.clone(), OldState::Entry)),
            StmtKind::Assert { expr, tag, assumed } => {
                let check = self.check(CheckKind::Assertion, tag, stmt.position, None);
                self.checks[check].trivial = folds_to(expr, true);
                self.checks[check].assumed = *assumed;
                self.emit(Lowered::Assert(check, expr.clone(), OldState::Entry));
            }
            // if (c) A else B  ~>  goto Then, Else; Then: assume c; A; goto Join; Else: assume !c; B; goto Join
            StmtKind::If { cond, then_branch, else_branch } => {
                let then_block = self.new_block();
                let else_block = self.new_block();
                let join = self.new_block();
                self.blocks[self.current].successors = vec![then_block, else_block];
                for (block, branch, guard) in [
                    (then_block, then_branch, cond.clone()),
                    (else_block, else_branch, cond.clone().map(Expr::negation)),
                ] {
                    self.current = block;
                    if let Some(guard) = guard {
                        self.emit(Lowered::Branch(guard));
                    }
                    self.lower_stmts(branch);
                    self.blocks[self.current].successors = vec![join];
                }
                self.current = join;
            }
            StmtKind::While { cond, invariants, body } => {
                // Cut the loop (Boogie's loop desugaring): entry check, havoc, assume, one
                // iteration that ends in the preservation check, and the exit.
                for invariant in invariants.iter().filter(|invariant| !invariant.free) {
                    let check = self.check(CheckKind::InvariantEntry, &invariant.tag, invariant.position, None);
                    self.emit(Lowered::Assert(check, invariant.expr.clone(), OldState::Entry));
                }
                let head = self.new_block();
                self.blocks[self.current].successors = vec![head];
                self.current = head;
                let mut changed = Vec::new();
                self.changed_by(body, &mut changed);
                for name in changed {
                    self.emit(Lowered::Havoc(name));
                }
                for invariant in invariants {
                    self.emit(Lowered::Assume(invariant.expr.clone(), OldState::Entry));
                }
                let body_block = self.new_block();
                let exit = self.new_block();
                self.blocks[head].successors = vec![body_block, exit];
                self.current = body_block;
                if let Some(cond) = cond {
                    self.emit(Lowered::Branch(cond.clone()));
                }
                self.lower_stmts(body);
                for invariant in invariants.iter().filter(|invariant| !invariant.free) {
                    let check = self.check(CheckKind::InvariantPreserved, &invariant.tag, invariant.position, None);
                    self.emit(Lowered::Assert(check, invariant.expr.clone(), OldState::Entry));
                }
                // The iteration ends here: no successor.
                self.current = exit;
                if let Some(cond) = cond {
                    self.emit(Lowered::Branch(Expr::negation(cond.clone())));
                }
            }
            StmtKind::Call { targets, procedure, args } => self.lower_call(stmt.position, targets, procedure, args),
        }
    }

    /// The variables a loop body may change: assigned, havocked, call targets and the globals the
    /// callees modify, up to a literal `assume false`.
    fn changed_by(&self, stmts: &[Stmt], changed: &mut Vec<String>) {
        let add = |name: &String, changed: &mut Vec<String>| {
            if !changed.contains(name) {
                changed.push(name.clone());
            }
        };
        for stmt in stmts {
            match &stmt.kind {
                // Nothing after a literal `assume false` (or `assert false`, assumed once reported)
                // runs, so it changes nothing: Boogie prunes it before it looks for loops.
                StmtKind::Assume(Expr::Bool(false)) | StmtKind::Assert { expr: Expr::Bool(false), .. } => break,
                StmtKind::Assign { target, .. } => add(target, changed),
                StmtKind::Havoc(names) => names.iter().for_each(|name| add(name, changed)),
                StmtKind::If { then_branch, else_branch, .. } => {
                    self.changed_by(then_branch, changed);
                    self.changed_by(else_branch, changed);
                }
                StmtKind::While { body, .. } => self.changed_by(body, changed),
                StmtKind::Call { targets, procedure, .. } => {
                    targets.iter().for_each(|name| add(name, changed));
                    if let Some(callee) = self.environment.procedures.get(procedure.as_str()) {
                        callee.modifies.iter().for_each(|name| add(name, changed));
                    }
                }
                StmtKind::Assume(_) | StmtKind::Assert { .. } => {}
            }
        }
    }

    /// `call t := p(a)`  ~>  `p@ := a; assert pre(p@); snapshot; havoc modifies, r@;
    /// assume post(p@, r@, old = snapshot); t := r@`
    fn lower_call(&mut self, position: Position, targets: &[String], name: &str, args: &[Expr]) {
        let Some(callee) = self.environment.procedures.get(name).copied() else {
            return;
        };
        // Arguments and results go through temporaries named with `@`, which no IVL name can
        // contain, so that substituting them into the callee's contract captures nothing.
        self.calls += 1;
        let call = self.calls;
        let mut renaming: HashMap<String, Expr> = HashMap::new();
        for (param, arg) in callee.params.iter().zip(args) {
            let temporary = format!("{}@call{call}", param.name);
            self.variables.push((temporary.clone(), param.ty.clone()));
            self.emit(Lowered::Assign(temporary.clone(), arg.clone()));
            renaming.insert(param.name.clone(), Expr::var(temporary));
        }
        for spec in callee.requires.iter().filter(|spec| !spec.free) {
            let check = self.check(CheckKind::Precondition, &spec.tag, position, Some(spec.position));
            self.emit(Lowered::Assert(check, crate::ivl::substitute(&spec.expr, &renaming), OldState::Entry));
        }
        let snapshot = self.snapshot_count;
        self.snapshot_count += 1;
        self.emit(Lowered::Snapshot(snapshot));
        for global in &callee.modifies {
            self.emit(Lowered::Havoc(global.clone()));
        }
        let mut results = Vec::new();
        for ret in &callee.returns {
            let temporary = format!("{}@call{call}", ret.name);
            self.variables.push((temporary.clone(), ret.ty.clone()));
            self.emit(Lowered::Havoc(temporary.clone()));
            renaming.insert(ret.name.clone(), Expr::var(temporary.clone()));
            results.push(temporary);
        }
        for spec in &callee.ensures {
            self.emit(Lowered::Assume(crate::ivl::substitute(&spec.expr, &renaming), OldState::Snapshot(snapshot)));
        }
        for (target, result) in targets.iter().zip(results) {
            self.emit(Lowered::Assign(target.clone(), Expr::var(result)));
        }
    }
}

/// `m[i][j] := v` as `m := m[i := m[i][j := v]]`.
fn stored(base: Expr, indices: &[Expr], value: Expr) -> Expr {
    match indices.split_first() {
        None => value,
        Some((index, rest)) => {
            let inner = stored(Expr::select(base.clone(), index.clone()), rest, value);
            Expr::Store(Box::new(base), Box::new(index.clone()), Box::new(inner))
        }
    }
}

/// A passive command.
#[derive(Clone, Debug)]
enum Passive {
    Assume(Term, Role),
    Assert(usize, Term),
}

/// Where an assumption comes from, which the parts of a split VC need to know (V11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The guard of a branch.
    Branch,
    /// The value of a fresh incarnation, `x@k == e`: an assignment.
    Definition,
    /// An incarnation equated to a predecessor's at a join.
    Join,
    /// Anything else assumed: a `requires`, an `assume`, an invariant, a callee's `ensures`.
    Fact,
}

struct Passified {
    blocks: Vec<Vec<Passive>>,
    /// The place in the order of the program of each passive command (its lowered command's; an
    /// equation at a join takes the last of its block).
    order: Vec<Vec<usize>>,
    incarnations: Arc<Incarnations>,
    /// The incarnations at each check.
    states: Vec<State>,
}

/// Blocks in an order where every block comes after all its predecessors (iterative DFS, so that
/// long chains of blocks cannot exhaust the stack).
fn topological_order(blocks: &[Block]) -> Vec<usize> {
    let mut visited = vec![false; blocks.len()];
    let mut postorder = Vec::with_capacity(blocks.len());
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    while let Some((block, next)) = stack.last_mut() {
        if let Some(&successor) = blocks[*block].successors.get(*next) {
            *next += 1;
            if !visited[successor] {
                visited[successor] = true;
                stack.push((successor, 0));
            }
        } else {
            postorder.push(*block);
            stack.pop();
        }
    }
    postorder.reverse();
    postorder
}

fn passify(
    blocks: &[Block],
    variables: &[(String, Type)],
    snapshot_count: usize,
    names: &Names,
    fresh_names: &Cell<usize>,
) -> Passified {
    // Variables by number, each once, in the order given.
    let mut numbered: HashMap<String, u32> = HashMap::new();
    let mut types: Vec<&Type> = Vec::new();
    for (name, ty) in variables {
        if !numbered.contains_key(name) {
            numbered.insert(name.clone(), types.len() as u32);
            types.push(ty);
        }
    }
    let mut names_of: Vec<&str> = vec![""; types.len()];
    for (name, &number) in &numbered {
        names_of[number as usize] = name;
    }
    let mut incarnations: Vec<(String, Type)> = Vec::new();
    let mut counters: Vec<usize> = vec![0; types.len()];
    let mut fresh = |variable: u32, incarnations: &mut Vec<(String, Type)>| -> u32 {
        let counter = &mut counters[variable as usize];
        incarnations.push((format!("{}@{counter}", names_of[variable as usize]), types[variable as usize].clone()));
        *counter += 1;
        (incarnations.len() - 1) as u32
    };
    let mut initial = State::default();
    for variable in 0..types.len() as u32 {
        let incarnation = fresh(variable, &mut incarnations);
        initial.0.insert(variable, incarnation);
    }

    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for (index, block) in blocks.iter().enumerate() {
        for &successor in &block.successors {
            predecessors[successor].push(index);
        }
    }
    let mut passive: Vec<Vec<Passive>> = vec![Vec::new(); blocks.len()];
    let mut order: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    let mut outgoing: Vec<Option<State>> = vec![None; blocks.len()];
    let mut snapshots: Vec<State> = vec![State::default(); snapshot_count];
    let mut states: Vec<(usize, State)> = Vec::new();

    for block in topological_order(blocks) {
        let reached: Vec<usize> = predecessors[block].iter().copied().filter(|&p| outgoing[p].is_some()).collect();
        let mut current = match reached.split_first() {
            _ if block == 0 => initial.clone(),
            None => initial.clone(),
            Some((&first, others)) => {
                // Join: a variable whose incarnations differ gets a new one, equated at the end
                // of each predecessor (passification at a join point). The states share what no
                // branch changed, and only what differs is compared.
                let base = outgoing[first].clone().expect("a reached predecessor has a state");
                let mut differing = std::collections::BTreeSet::new();
                for &other in others {
                    let state = outgoing[other].as_ref().expect("a reached predecessor has a state");
                    for item in base.0.diff(&state.0) {
                        let variable = match item {
                            imbl::ordmap::DiffItem::Add(variable, _)
                            | imbl::ordmap::DiffItem::Remove(variable, _)
                            | imbl::ordmap::DiffItem::Update { new: (variable, _), .. } => *variable,
                        };
                        differing.insert(variable);
                    }
                }
                let mut merged = base;
                for variable in differing {
                    let joined = fresh(variable, &mut incarnations);
                    for &p in &reached {
                        let state = outgoing[p].as_ref().expect("a reached predecessor has a state");
                        let from = state.0.get(&variable).or_else(|| initial.0.get(&variable)).copied();
                        let from = from.expect("every variable has an incarnation");
                        let equation = Term::eq(
                            Term::symbol(incarnations[joined as usize].0.clone()),
                            Term::symbol(incarnations[from as usize].0.clone()),
                        );
                        passive[p].push(Passive::Assume(equation, Role::Join));
                        order[p].push(blocks[p].order.last().copied().unwrap_or(0));
                    }
                    merged.0.insert(variable, joined);
                }
                merged
            }
        };
        for (command, &place) in blocks[block].commands.iter().zip(&blocks[block].order) {
            let pushed = passive[block].len();
            macro_rules! scope {
                ($current:expr, $old:expr) => {
                    Scope::new($current, $old, &numbered, &incarnations, names, fresh_names)
                };
            }
            match command {
                // x := e  ~>  assume x@k == e[current incarnations], with x@k fresh
                Lowered::Assign(name, value) => {
                    // In a body, `old(e)` is `e` where the procedure started.
                    let translated = translate(value, &scope!(&current, &initial), &mut Vec::new());
                    let incarnation = fresh(numbered[name], &mut incarnations);
                    if let Ok(term) = translated {
                        let symbol = Term::symbol(incarnations[incarnation as usize].0.clone());
                        passive[block].push(Passive::Assume(Term::eq(symbol, term), Role::Definition));
                    }
                    current.0.insert(numbered[name], incarnation);
                }
                // havoc x  ~>  x@k fresh and unconstrained
                Lowered::Havoc(name) => {
                    let incarnation = fresh(numbered[name], &mut incarnations);
                    current.0.insert(numbered[name], incarnation);
                }
                // assume e  ~>  assume e[current incarnations; old(.) at the snapshot]
                Lowered::Assume(expr, old_state) => {
                    let old = match old_state {
                        OldState::Entry => &initial,
                        OldState::Snapshot(index) => &snapshots[*index],
                    };
                    let term = assumed(expr, &scope!(&current, old));
                    passive[block].push(Passive::Assume(term, Role::Fact));
                }
                Lowered::Branch(expr) => {
                    let term = assumed(expr, &scope!(&current, &initial));
                    passive[block].push(Passive::Assume(term, Role::Branch));
                }
                // assert e  ~>  assert e[current incarnations; old(.) at the snapshot]
                Lowered::Assert(check, expr, old_state) => {
                    let old = match old_state {
                        OldState::Entry => &initial,
                        OldState::Snapshot(index) => &snapshots[*index],
                    };
                    let term = asserted(expr, &scope!(&current, old));
                    passive[block].push(Passive::Assert(*check, term));
                    states.push((*check, current.clone()));
                }
                Lowered::Snapshot(index) => snapshots[*index] = current.clone(),
            }
            let added = passive[block].len() - pushed;
            order[block].extend(std::iter::repeat_n(place, added));
        }
        outgoing[block] = Some(current);
    }
    states.sort_by_key(|(check, _)| *check);
    let states = states.into_iter().map(|(_, state)| state).collect();
    Passified {
        blocks: passive,
        order,
        states,
        incarnations: Arc::new(Incarnations { variables: numbered, list: incarnations }),
    }
}

/// The incarnation of every variable at one point of a procedure: variable numbers to incarnation
/// numbers, in a persistent map, so that a state kept for later (at a check, at a call, at the end
/// of a block) shares with the states around it all that did not change.
#[derive(Clone, Default)]
struct State(imbl::OrdMap<u32, u32>);

/// The variables of a procedure by number, and their incarnations, by number, with their types.
struct Incarnations {
    variables: HashMap<String, u32>,
    list: Vec<(String, Type)>,
}

/// What every expression of a program is translated against, whatever the state.
#[derive(Clone)]
struct Names {
    constants: HashSet<String>,
    /// The global variables: the only names `old(...)` changes, as in Boogie (a local or a
    /// parameter inside `old` keeps its current value).
    globals: HashSet<String>,
    definitions: Definitions,
}

/// The functions with a body that are expanded where they are called, as SMT-LIB's `define-fun`
/// and Boogie's `{:inline}` would: those that are not recursive and that no trigger names. Their
/// calls then leave no quantified axiom behind, so a solver refutes a check about them without
/// building a model of one (`proofs/vcgen.md`, V5). The others keep Boogie's definitional axiom.
#[derive(Clone, Default)]
struct Definitions {
    /// Name to parameters and body.
    bodies: HashMap<String, (Vec<String>, Expr)>,
}

impl Definitions {
    fn of(program: &Program) -> Definitions {
        let mut in_triggers = HashSet::new();
        program.walk_expressions(&mut |expr| {
            if let Expr::Quantified { triggers, .. } = expr {
                for term in triggers.iter().flatten() {
                    term.walk(&mut |inner| {
                        if let Expr::Call(name, _) = inner {
                            in_triggers.insert(name.clone());
                        }
                    });
                }
            }
        });
        let callees: HashMap<&str, HashSet<&str>> = program
            .declarations
            .iter()
            .filter_map(|declaration| match declaration {
                Declaration::Function(function) => function.body.as_ref().map(|body| {
                    let mut called = HashSet::new();
                    body.walk(&mut |expr| {
                        if let Expr::Call(name, _) = expr {
                            called.insert(name.as_str());
                        }
                    });
                    (function.name.as_str(), called)
                }),
                _ => None,
            })
            .collect();
        let recursive = |name: &str| {
            let mut seen = HashSet::new();
            let mut work: Vec<&str> = callees[name].iter().copied().collect();
            while let Some(next) = work.pop() {
                if next == name {
                    return true;
                }
                if seen.insert(next) {
                    work.extend(callees.get(next).into_iter().flatten().copied());
                }
            }
            false
        };
        let bodies = program
            .declarations
            .iter()
            .filter_map(|declaration| match declaration {
                Declaration::Function(function) => function.body.as_ref().map(|body| (function, body)),
                _ => None,
            })
            .filter(|(function, _)| !in_triggers.contains(&function.name) && !recursive(&function.name))
            .map(|(function, body)| {
                let params = function.params.iter().map(|param| param.name.clone()).collect();
                (function.name.clone(), (params, body.clone()))
            })
            .collect();
        Definitions { bodies }
    }

    fn expands(&self, name: &str) -> bool {
        self.bodies.contains_key(name)
    }
}

/// `term[symbol := replacement]`, with every bound variable renamed to a fresh name (`x@d3`,
/// which no program name can be: `@` is not an identifier character) so nothing is captured.
fn substitute(term: &Term, replacements: &HashMap<String, Term>, fresh: &Cell<usize>) -> Term {
    match term {
        Term::Bool(_) | Term::Int(_) | Term::Real(_) => term.clone(),
        Term::Symbol(name) => replacements.get(name).cloned().unwrap_or_else(|| term.clone()),
        Term::App(op, args) => {
            Term::App(op.clone(), args.iter().map(|arg| substitute(arg, replacements, fresh)).collect())
        }
        Term::Lambda { bound: (name, sort), body } => {
            let mut inner = replacements.clone();
            let counter = fresh.get();
            fresh.set(counter + 1);
            let new_name = format!("{name}@d{counter}");
            inner.insert(name.clone(), Term::symbol(new_name.clone()));
            Term::Lambda { bound: (new_name, sort.clone()), body: Box::new(substitute(body, &inner, fresh)) }
        }
        Term::Quantifier { forall, bound, patterns, body } => {
            let mut inner = replacements.clone();
            let renamed = bound
                .iter()
                .map(|(name, sort)| {
                    let counter = fresh.get();
                    fresh.set(counter + 1);
                    let new_name = format!("{name}@d{counter}");
                    inner.insert(name.clone(), Term::symbol(new_name.clone()));
                    (new_name, sort.clone())
                })
                .collect();
            Term::Quantifier {
                forall: *forall,
                bound: renamed,
                patterns: patterns
                    .iter()
                    .map(|terms| terms.iter().map(|term| substitute(term, &inner, fresh)).collect())
                    .collect(),
                body: Box::new(substitute(body, &inner, fresh)),
            }
        }
    }
}

/// The names an expression is translated against.
struct Scope<'s> {
    /// Variables to their current incarnations.
    current: &'s State,
    /// Variables to their incarnations in the state `old(...)` refers to.
    old: &'s State,
    /// The variables' numbers.
    variables: &'s HashMap<String, u32>,
    /// The incarnations' names, by number.
    incarnations: &'s [(String, Type)],
    names: &'s Names,
    /// Inside `old(...)`.
    in_old: bool,
    /// A counter for renaming bound variables apart, one per procedure.
    fresh: &'s Cell<usize>,
}

impl<'s> Scope<'s> {
    fn new(
        current: &'s State,
        old: &'s State,
        variables: &'s HashMap<String, u32>,
        incarnations: &'s [(String, Type)],
        names: &'s Names,
        fresh: &'s Cell<usize>,
    ) -> Scope<'s> {
        Scope { current, old, variables, incarnations, names, in_old: false, fresh }
    }

    /// The incarnation a variable stands for here.
    fn incarnation(&self, name: &str) -> Option<&'s String> {
        let state = if self.in_old && self.names.globals.contains(name) { self.old } else { self.current };
        let incarnation = state.0.get(self.variables.get(name)?)?;
        self.incarnations.get(*incarnation as usize).map(|(name, _)| name)
    }
}

/// A name the translation cannot resolve: a program that did not pass the type checker.
#[derive(Debug)]
struct Unresolved;

/// The type checker resolved every name before VC generation, so an unresolved name is a bug in
/// lockstep. Should one happen anyway, it must not make anything verify: an assumption about it is
/// dropped (`true`) and an assertion about it fails (`false`).
fn assumed(expr: &Expr, scope: &Scope) -> Term {
    translate(expr, scope, &mut Vec::new()).unwrap_or(Term::Bool(true))
}

/// Whether `expr` has the value `value` by constant folding of literals and the connectives alone.
/// It answers `false` wherever it cannot tell, so it never calls a formula valid that is not.
fn folds_to(expr: &Expr, value: bool) -> bool {
    use std::cmp::Ordering;
    let compare = |lhs: &Expr, rhs: &Expr| -> Option<Ordering> {
        match (lhs, rhs) {
            (Expr::Int(lhs), Expr::Int(rhs)) => Some(lhs.cmp(rhs)),
            (Expr::Real(lhs), Expr::Real(rhs)) => Some(lhs.cmp(rhs)),
            _ => None,
        }
    };
    match expr {
        Expr::Bool(literal) => *literal == value,
        Expr::Unary(UnaryOp::Not, operand) => folds_to(operand, !value),
        Expr::Binary(op, lhs, rhs) => match (op, value) {
            (BinaryOp::And, true) | (BinaryOp::Or, false) => folds_to(lhs, value) && folds_to(rhs, value),
            (BinaryOp::And, false) | (BinaryOp::Or, true) => folds_to(lhs, value) || folds_to(rhs, value),
            (BinaryOp::Implies, true) => folds_to(lhs, false) || folds_to(rhs, true),
            (BinaryOp::Implies, false) => folds_to(lhs, true) && folds_to(rhs, false),
            (BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne, _) => {
                compare(lhs, rhs).is_some_and(|ordering| {
                    let holds = match op {
                        BinaryOp::Lt => ordering == Ordering::Less,
                        BinaryOp::Le => ordering != Ordering::Greater,
                        BinaryOp::Gt => ordering == Ordering::Greater,
                        BinaryOp::Ge => ordering != Ordering::Less,
                        BinaryOp::Eq => ordering == Ordering::Equal,
                        _ => ordering != Ordering::Equal,
                    };
                    holds == value
                })
            }
            _ => false,
        },
        _ => false,
    }
}

fn asserted(expr: &Expr, scope: &Scope) -> Term {
    translate(expr, scope, &mut Vec::new()).unwrap_or(Term::Bool(false))
}

fn translate(expr: &Expr, scope: &Scope, bound: &mut Vec<String>) -> Result<Term, Unresolved> {
    let go = |inner: &Expr, bound: &mut Vec<String>| translate(inner, scope, bound);
    Ok(match expr {
        Expr::Int(value) => Term::Int(value.clone()),
        Expr::Real(value) => Term::Real(value.clone()),
        Expr::Bool(value) => Term::Bool(*value),
        Expr::Var(name) => {
            if bound.contains(name) || scope.names.constants.contains(name) {
                Term::symbol(name.clone())
            } else {
                Term::symbol(scope.incarnation(name).cloned().ok_or(Unresolved)?)
            }
        }
        Expr::Unary(UnaryOp::Not, operand) => Term::negation(go(operand, bound)?),
        Expr::Unary(UnaryOp::Neg, operand) => Term::app(Op::Neg, vec![go(operand, bound)?]),
        Expr::Binary(op, lhs, rhs) => {
            let lhs = go(lhs, bound)?;
            let rhs = go(rhs, bound)?;
            let op = match op {
                BinaryOp::Ne => return Ok(Term::negation(Term::eq(lhs, rhs))),
                BinaryOp::Iff | BinaryOp::Eq => Op::Eq,
                BinaryOp::Add => Op::Add,
                BinaryOp::Sub => Op::Sub,
                BinaryOp::Mul => Op::Mul,
                BinaryOp::Div => Op::IntDiv,
                BinaryOp::Mod => Op::Mod,
                BinaryOp::RealDiv => Op::RealDiv,
                BinaryOp::Lt => Op::Lt,
                BinaryOp::Le => Op::Le,
                BinaryOp::Gt => Op::Gt,
                BinaryOp::Ge => Op::Ge,
                BinaryOp::And => Op::And,
                BinaryOp::Or => Op::Or,
                BinaryOp::Implies => Op::Implies,
            };
            Term::app(op, vec![lhs, rhs])
        }
        Expr::Select(map, index) => Term::app(Op::Select, vec![go(map, bound)?, go(index, bound)?]),
        Expr::Store(map, index, value) => {
            Term::app(Op::Store, vec![go(map, bound)?, go(index, bound)?, go(value, bound)?])
        }
        Expr::Call(name, args) if name == "real" && args.len() == 1 => {
            Term::app(Op::ToReal, vec![go(&args[0], bound)?])
        }
        Expr::Call(name, args) => {
            let args = args.iter().map(|arg| go(arg, bound)).collect::<Result<Vec<_>, _>>()?;
            match scope.names.definitions.bodies.get(name) {
                Some((params, body)) => {
                    // f(args) ~> body[params := args], bound variables renamed apart (V5)
                    let definition = translate(body, scope, &mut params.clone())?;
                    let arguments = params.iter().cloned().zip(args).collect();
                    substitute(&definition, &arguments, scope.fresh)
                }
                None => Term::app(Op::Apply(name.clone()), args),
            }
        }
        Expr::IfThenElse(cond, then_value, else_value) => {
            Term::app(Op::Ite, vec![go(cond, bound)?, go(then_value, bound)?, go(else_value, bound)?])
        }
        Expr::Old(value) => {
            let old_scope = Scope { in_old: true, ..*scope };
            translate(value, &old_scope, bound)?
        }
        Expr::Lambda { bound: binding, body } => {
            // A literal body is a constant array, which every solver reads; otherwise a lambda.
            let literal = match **body {
                Expr::Int(_) => Some(Sort::Int),
                Expr::Real(_) => Some(Sort::Real),
                Expr::Bool(_) => Some(Sort::Bool),
                _ => None,
            };
            if let Some(range) = literal {
                let array = Sort::Array(Box::new(sort(&binding.ty)), Box::new(range));
                return Ok(Term::app(Op::ConstArray(array), vec![go(body, bound)?]));
            }
            bound.push(binding.name.clone());
            let translated = translate(body, scope, bound);
            bound.pop();
            Term::Lambda { bound: (binding.name.clone(), sort(&binding.ty)), body: Box::new(translated?) }
        }
        Expr::Quantified { quantifier, bound: bindings, triggers, body } => {
            let depth = bound.len();
            bound.extend(bindings.iter().map(|binding| binding.name.clone()));
            let translated = (|| {
                let patterns = triggers
                    .iter()
                    .map(|terms| terms.iter().map(|term| translate(term, scope, bound)).collect::<Result<Vec<_>, _>>())
                    .collect::<Result<Vec<_>, _>>()?;
                let body = translate(body, scope, bound)?;
                Ok(Term::Quantifier {
                    forall: *quantifier == Quantifier::Forall,
                    bound: bindings.iter().map(|binding| (binding.name.clone(), sort(&binding.ty))).collect(),
                    patterns,
                    body: Box::new(body),
                })
            })();
            bound.truncate(depth);
            translated?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::folds_to;
    use crate::ivl::{BinaryOp, Expr};
    use num_rational::BigRational;

    fn real(numerator: i64, denominator: i64) -> Expr {
        Expr::Real(BigRational::new(numerator.into(), denominator.into()))
    }

    #[test]
    fn constant_folding_finds_the_resource_checks_of_one_exact_atom_valid() {
        // `(0.0 <= 1.0) && ((false || (true && x == location)) ==> ((0.0 < 1.0) || false))`
        let names_location = Expr::binary(
            BinaryOp::Or,
            Expr::Bool(false),
            Expr::binary(
                BinaryOp::And,
                Expr::Bool(true),
                Expr::binary(BinaryOp::Eq, Expr::var("x"), Expr::var("location")),
            ),
        );
        let check = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, real(0, 1), real(1, 1)),
            Expr::binary(
                BinaryOp::Implies,
                names_location,
                Expr::binary(BinaryOp::Or, Expr::binary(BinaryOp::Lt, real(0, 1), real(1, 1)), Expr::Bool(false)),
            ),
        );
        assert!(folds_to(&check, true));
    }

    #[test]
    fn constant_folding_never_calls_an_open_or_false_formula_valid() {
        let open = Expr::binary(BinaryOp::Lt, Expr::var("x"), Expr::int(1));
        let too_much = Expr::binary(BinaryOp::Le, real(3, 2), real(1, 1));
        for formula in [
            open.clone(),
            too_much.clone(),
            Expr::binary(BinaryOp::And, Expr::Bool(true), open.clone()),
            Expr::binary(BinaryOp::Implies, Expr::Bool(true), too_much.clone()),
            Expr::binary(BinaryOp::Or, too_much, Expr::binary(BinaryOp::Eq, Expr::int(1), Expr::int(2))),
            Expr::negation(Expr::binary(BinaryOp::Ne, Expr::int(1), Expr::int(2))),
        ] {
            assert!(!folds_to(&formula, true), "{formula}");
        }
        assert!(folds_to(&Expr::binary(BinaryOp::Implies, Expr::Bool(false), open), true));
    }
}
