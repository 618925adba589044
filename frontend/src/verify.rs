//! Verifying a file, from its bytes to a verdict per obligation ([`file`]): parse and resolve it,
//! outline each kernel's obligations (a divergent barrier fails `barrier.divergence` there,
//! without a solver), encode the outline, decide its checks on a backend, and map every outcome
//! back to its obligation, with a counterexample in the kernel's terms for each failure.

use crate::diagnostics::{Code, Diagnostic};
use crate::run::Extent;
use crate::Checked;
use lockstep_encoder::ivl::Declaration;
use lockstep_encoder::kernel::{self, Assumed, Encoding, Probe, Reads};
use lockstep_encoder::run::{self, Backend, ProcedureOutcome};
use lockstep_encoder::smt::Limits;
use lockstep_encoder::smt::Value;
use lockstep_encoder::verify::Status;
use lockstep_logic::fences::MemoryModel;
use lockstep_logic::infer::{Candidate, Inferred};
use lockstep_logic::outline::Outline;
use lockstep_logic::{Kernel, Obligation, ObligationId, Program, Span};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Values that show a failure, as (name, value) in the kernel's terms.
pub type Counterexample = Vec<(String, String)>;

/// The verdict on one obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified,
    Failed,
    /// The solver could not decide: the reason.
    Undecided(String),
    /// Not asked for ([`Checks`]): the reason.
    NotChecked(&'static str),
}

impl Verdict {
    /// The verdict in a word, as the reports give it.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::Failed => "failed",
            Verdict::Undecided(_) => "undecided",
            Verdict::NotChecked(_) => "not checked",
        }
    }

    /// How far from verified: several verdicts come to the one furthest (failed, then undecided).
    fn severity(&self) -> u8 {
        match self {
            Verdict::Verified | Verdict::NotChecked(_) => 0,
            Verdict::Undecided(_) => 1,
            Verdict::Failed => 2,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ObligationResult {
    pub obligation: Obligation,
    pub verdict: Verdict,
    /// For a failure: the values that show it, as (name, value) in the kernel's terms: thread ids,
    /// sizes, parameters, private variables, then the array cells the failing check reads.
    pub counterexample: Counterexample,
}

#[derive(Clone, Debug)]
pub struct KernelResult {
    pub name: String,
    pub span: Span,
    pub results: Vec<ObligationResult>,
    /// The solver's work on the kernel, in its deterministic resource units (z3's rlimit count),
    /// when the backend reports them: the same from run to run for the same input and options.
    pub resources: Option<u64>,
    /// Warnings the verification found: assumptions no state satisfies (`warning::vacuous`).
    pub warnings: Vec<Diagnostic>,
    /// The kernel verified, when its contracts were inferred ([`houdini`]): the written one with
    /// the inferred permissions and the candidate invariants that held. The obligations are its.
    pub inferred: Option<Kernel>,
}

impl ObligationResult {
    /// The counterexample as the reports write it (`tid = 1, gid = 0, ...`); `None` without one.
    pub fn counterexample_text(&self) -> Option<String> {
        let values: Vec<String> = self.counterexample.iter().map(|(name, value)| format!("{name} = {value}")).collect();
        (!values.is_empty()).then(|| values.join(", "))
    }
}

impl KernelResult {
    /// `failed` if any obligation failed, else `undecided` if any is, else `verified` (also when
    /// some were not checked).
    pub fn verdict(&self) -> Verdict {
        // Reversed, so that of equally severe verdicts the first (its reason) is the one kept.
        // An obligation not checked leaves the verdict on the others (which the report qualifies).
        let checked = self.results.iter().rev().map(|result| &result.verdict);
        let furthest = checked
            .filter(|verdict| !matches!(verdict, Verdict::NotChecked(_)))
            .max_by_key(|verdict| verdict.severity());
        furthest.cloned().unwrap_or(Verdict::Verified)
    }
}

/// Why a kernel could not be verified at all: the solver failed. (A construct the language does
/// not support yet never gets here: `check_file` refuses it.)
#[derive(Clone, Debug)]
pub struct VerifyError {
    pub span: Span,
    pub message: String,
}

/// How to verify: the backend that decides the checks, its limits, and the memory model the
/// fence rule follows when the user names one (otherwise the file's language decides:
/// [`crate::memory_model_of`]).
#[derive(Clone, Debug)]
pub struct Settings {
    pub backend: Backend,
    pub limits: Limits,
    pub memory_model: Option<MemoryModel>,
    /// The launches to verify the kernels for: every launch when empty.
    pub launch: Launch,
    /// How integers are read, where the file's language does not decide (`--int32`,
    /// `--mathematical-integers`).
    pub integers: Option<crate::Integers>,
    /// Whether a kernel that names no permission is verified with inferred ones ([`inferred`]).
    pub infer: bool,
    /// Whether the loop invariants written in a kernel that names no permission are only
    /// candidates, kept where they hold, as GPUVerify's `--invariants-as-candidates` reads them.
    pub invariants_as_candidates: bool,
    /// Whether writes of one value to one cell by several threads of a kernel that names no
    /// permission are accepted ([`lockstep_logic::benign`]), as GPUVerify accepts them.
    pub benign_races: bool,
    /// Which obligations are checked: all of them unless the user asks for fewer.
    pub checks: Checks,
    /// The values of a kernel's scalar parameters to verify it for (`--kernel-args`).
    pub kernel_args: Option<KernelArgs>,
    /// The user's options for Clang, which reads OpenCL C and CUDA (`-I`, `-D`, `-include`).
    pub clang: crate::c::clang::Options,
}

/// GPUVerify's `--kernel-args=K,v1,...,vn`: kernel `K` is verified only for runs whose scalar
/// parameters (those that are not pointers, in order) have the values `v1` to `vn`, each decimal
/// or `0x` hexadecimal, or `*` for any value. A struct or vector parameter's value is its bytes
/// ([`crate::c::arguments`]): `0x0000000300000003` gives both `int` fields of a struct 3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelArgs {
    pub kernel: String,
    pub values: Vec<Option<num_bigint::BigInt>>,
}

impl std::str::FromStr for KernelArgs {
    type Err = String;

    fn from_str(text: &str) -> Result<KernelArgs, String> {
        let mut parts = text.split(',');
        let kernel = parts.next().filter(|kernel| !kernel.is_empty()).ok_or("write KERNEL,V1,...,VN")?;
        let value = |part: &str| -> Result<Option<num_bigint::BigInt>, String> {
            let part = part.trim();
            let (negative, digits) = match part.strip_prefix('-') {
                Some(digits) => (true, digits),
                None => (false, part),
            };
            let parsed = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
                Some(hex) => num_bigint::BigInt::parse_bytes(hex.as_bytes(), 16),
                None if part == "*" => return Ok(None),
                None => digits.parse().ok(),
            };
            let value = parsed.ok_or_else(|| format!("`{part}` is not a number (write 12, 0xC or *)"))?;
            Ok(Some(if negative { -value } else { value }))
        };
        let values = parts.map(value).collect::<Result<_, _>>()?;
        Ok(KernelArgs { kernel: kernel.to_string(), values })
    }
}

/// Which obligations `verify` checks: all of them, or those GPUVerify's `--only-intra-group`,
/// `--only-divergence` and `--only-log` ask for. An obligation not checked is reported so, never
/// verified; the others are decided as ever, each with the unchecked ones assumed (as Boogie
/// assumes a checked assertion after it), which is what the user asked: a verdict on the rest,
/// granted those.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checks {
    #[default]
    All,
    /// All but `kernel.resources`, the check that the groups' global memory fits together: races
    /// between groups are not looked for.
    IntraGroup,
    /// Only `barrier.divergence`.
    Divergence,
    /// All but the checks that find races (`kernel.resources`, `group.resources`,
    /// `barrier.resources`), as GPUVerify's `--only-log`: divergence, assertions and the other
    /// functional obligations only.
    NoRaces,
}

impl Checks {
    /// Why an obligation is not checked, when it is not.
    pub fn skips(self, id: ObligationId) -> Option<&'static str> {
        match self {
            Checks::All => None,
            Checks::IntraGroup => (id == ObligationId::KernelResources)
                .then_some("--only-intra-group: races between groups are not looked for"),
            Checks::Divergence => (id != ObligationId::BarrierDivergence)
                .then_some("--only-divergence: only barrier divergence is checked"),
            Checks::NoRaces => matches!(
                id,
                ObligationId::KernelResources | ObligationId::GroupResources | ObligationId::BarrierResources
            )
            .then_some("--no-race-checks: races are not looked for"),
        }
    }
}

impl Default for Settings {
    /// z3 in this process, the default limits, the memory model of the file's language, every
    /// launch.
    fn default() -> Settings {
        Settings {
            backend: Backend::Z3,
            limits: Limits::default(),
            memory_model: None,
            launch: Launch::default(),
            integers: None,
            infer: true,
            invariants_as_candidates: false,
            benign_races: false,
            checks: Checks::All,
            kernel_args: None,
            clang: crate::c::clang::Options::default(),
        }
    }
}

impl Settings {
    /// The memory model the fence rule follows for the file at `path`: the one asked for, or the
    /// file's language's.
    pub fn memory_model_of(&self, path: &str) -> MemoryModel {
        self.memory_model.unwrap_or_else(|| crate::memory_model_of(path))
    }
}

/// A restriction of the launches a kernel is verified for, as `verify --groups` and `--gsize`
/// (GPUVerify's `--num_groups` and `--local_size`) give it: the number of groups, and of threads
/// per group, along the axes. A verdict then holds for those launches only
/// ([`lockstep_logic::Kernel::restrict_launch`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    pub groups: Option<Extent>,
    pub gsize: Option<Extent>,
}

/// A file, verified: its check (diagnostics, and the program when it is well formed), and the
/// verdicts of its kernels when it is.
pub struct Verification {
    pub checked: Checked,
    pub kernels: Option<Result<Vec<KernelResult>, VerifyError>>,
}

/// Checks a file ([`crate::check_bytes`]) for verification: its kernels restricted to the
/// launches of the settings.
pub fn check(path: &str, bytes: Vec<u8>, settings: &Settings) -> Checked {
    let mut checked = crate::check_bytes_reading(path, bytes, settings.integers, &settings.clang);
    for kernel in checked.program.iter_mut().flat_map(|program| &mut program.kernels) {
        if settings.launch != Launch::default() {
            let span = Span::new(kernel.span.start, kernel.span.start);
            let Launch { groups, gsize } = settings.launch;
            kernel.restrict_launch(groups.map(|extent| extent.0), gsize.map(|extent| extent.0), span);
            kernel.assume(work_dim(kernel, settings.launch, span).into_iter().collect());
        }
        // Candidate invariants are Houdini's, which runs where permissions are inferred: a kernel
        // verified as written keeps none of them.
        let inferred = settings.infer && !kernel.has_permissions();
        if inferred && settings.invariants_as_candidates {
            kernel.candidate_invariants = kernel.loop_invariant_spans();
        } else if !inferred {
            kernel.drop_candidate_invariants();
        }
        if inferred && settings.benign_races {
            lockstep_logic::benign::first_thread_writes(kernel);
        }
    }
    if let Some(kernel_args) = &settings.kernel_args {
        if let Err(diagnostic) = restrict_arguments(&mut checked, kernel_args) {
            checked.diagnostics.push(*diagnostic);
        }
    }
    checked
}

/// Restricts the kernel `--kernel-args` names to runs with the given values of its scalar
/// parameters: `param == value` for each part of each value given, assumed at every level as a
/// launch's facts are. A part that is not an integer (a `float` field) is left free, which
/// claims more runs, never fewer.
fn restrict_arguments(checked: &mut Checked, kernel_args: &KernelArgs) -> Result<(), Box<Diagnostic>> {
    use lockstep_logic::{BinaryOp, Expr, ExprKind, Type};
    let start = Span::new(0, 0);
    let refuse =
        |message: String, span: Span, label: &str| Box::new(Diagnostic::error(Code::KernelArgs, message, span, label));
    let Some(program) = checked.program.as_mut() else { return Ok(()) };
    let name = &kernel_args.kernel;
    let Some(kernel) = program.kernels.iter_mut().find(|kernel| kernel.name == *name) else {
        return Err(refuse(
            format!("`--kernel-args` names the kernel `{name}`, which the file does not have"),
            start,
            "in this file",
        ));
    };
    let span = Span::new(kernel.span.start, kernel.span.start);
    let arguments = match crate::c_dialect(&checked.file.path) {
        Some(dialect) => match crate::c::arguments::host_arguments(&checked.file.text, dialect, name) {
            Some(Ok(arguments)) => arguments,
            Some(Err(reason)) => return Err(refuse(format!("`--kernel-args`: {reason}"), span, "this kernel")),
            None => return Ok(()),
        },
        // A PVL kernel's scalar parameters are its parameters, mathematical integers and booleans.
        None => kernel
            .params
            .iter()
            .map(|param| {
                let name = kernel.var(*param).name.clone();
                let part = crate::c::arguments::Part { param: name.clone(), offset: 0, bits: 0, int: None };
                crate::c::arguments::HostArgument { name, parts: vec![part] }
            })
            .collect(),
    };
    if arguments.len() != kernel_args.values.len() {
        let names: Vec<&str> = arguments.iter().map(|argument| argument.name.as_str()).collect();
        return Err(refuse(
            format!(
                "`--kernel-args` gives {} values, and the kernel `{name}` has {} scalar parameters ({})",
                kernel_args.values.len(),
                arguments.len(),
                names.join(", ")
            ),
            span,
            "this kernel",
        ));
    }
    let mut facts = Vec::new();
    for (argument, value) in arguments.iter().zip(&kernel_args.values) {
        let Some(value) = value else { continue };
        for part in &argument.parts {
            let Some(param) = kernel.params.iter().find(|param| kernel.var(**param).name == part.param) else {
                continue;
            };
            let (value, ty) = match part.int {
                Some(int) => (int.wrap(&(value >> part.offset)), Type::Int),
                None if argument.parts.len() == 1 && kernel.var(*param).ty == Type::Int => (value.clone(), Type::Int),
                None if argument.parts.len() == 1 && kernel.var(*param).ty == Type::Bool => {
                    let truth = !num_traits::Zero::is_zero(value);
                    let lhs = Box::new(Expr { kind: ExprKind::Var(*param), ty: Type::Bool, span });
                    let rhs = Box::new(Expr { kind: ExprKind::Bool(truth), ty: Type::Bool, span });
                    facts.push(Expr { kind: ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs }, ty: Type::Bool, span });
                    continue;
                }
                None => continue,
            };
            let lhs = Box::new(Expr { kind: ExprKind::Var(*param), ty, span });
            let rhs = Box::new(Expr { kind: ExprKind::Int(value), ty, span });
            facts.push(Expr { kind: ExprKind::Binary { op: BinaryOp::Eq, lhs, rhs }, ty: Type::Bool, span });
        }
    }
    kernel.assume(facts);
    Ok(())
}

/// What a launch tells of `get_work_dim()` ([`crate::c::lower::WORK_DIM`]), a parameter of the
/// kernels that call it: the launch's number of axes, as `lockstep run` gives it (up to the last
/// whose extent is not 1: `--gsize 16x1` is the launch `--gsize 16`); with only the groups' or the
/// threads' extents given, at least theirs.
fn work_dim(kernel: &Kernel, launch: Launch, span: Span) -> Option<lockstep_logic::Expr> {
    use lockstep_logic::{BinaryOp, Expr, ExprKind, Type};
    let param = kernel.params.iter().find(|param| kernel.var(**param).name == crate::c::lower::WORK_DIM)?;
    let given = [launch.groups, launch.gsize];
    let axes = given.iter().flatten().map(|extent| extent.dimensions()).max()?;
    let op = if given.iter().all(Option::is_some) { BinaryOp::Eq } else { BinaryOp::Ge };
    let int = |kind| Box::new(Expr { kind, ty: Type::Int, span });
    let (lhs, rhs) = (int(ExprKind::Var(*param)), int(ExprKind::Int(axes.into())));
    Some(Expr { kind: ExprKind::Binary { op, lhs, rhs }, ty: Type::Bool, span })
}

/// The whole pipeline, from the bytes of a file to the verdicts of its kernels.
pub fn file(path: &str, bytes: Vec<u8>, settings: &Settings) -> Verification {
    // Parse and resolve: the kernel IR, or the diagnostics that reject the file.
    of_checked(check(path, bytes, settings), settings)
}

/// The verdicts of the kernels of a file already checked ([`check`]), when it is well formed.
pub fn of_checked(checked: Checked, settings: &Settings) -> Verification {
    let model = settings.memory_model_of(&checked.file.path);
    let kernels = checked.program.as_ref().filter(|_| !checked.has_errors()).map(|program| {
        program
            .kernels
            .iter()
            .map(|written| match settings.infer.then(|| inferred(written)).flatten() {
                Some(inferred) => houdini(program, inferred, settings, model),
                None => decide(program, written, settings, model).map(|(_, result)| result),
            })
            .collect()
    });
    Verification { checked, kernels }
}

/// The verdicts on one kernel, with the outline they belong to.
fn decide<'k>(
    program: &'k Program,
    kernel: &'k Kernel,
    settings: &Settings,
    model: MemoryModel,
) -> Result<(Outline<'k>, KernelResult), VerifyError> {
    // Outline: every obligation of the kernel, decided without a solver.
    let outline = Outline::of(program, kernel, model);
    let result = decide_outline(&outline, settings, None)?;
    Ok((outline, result))
}

/// The verdicts on the obligations of an outline: of all of them, or only of those `asked` (by
/// number; the verdicts of the others say nothing). Those the settings do not check
/// ([`Checks`]) are never asked, and reported not checked.
fn decide_outline(
    outline: &Outline,
    settings: &Settings,
    asked: Option<&BTreeSet<usize>>,
) -> Result<KernelResult, VerifyError> {
    let skipped: BTreeMap<usize, &'static str> = (outline.obligations.iter().enumerate())
        .filter_map(|(number, obligation)| Some((number, settings.checks.skips(obligation.id)?)))
        .collect();
    // Encode: the outline as IVL procedures, each check tagged with its obligation.
    let mut encoding = kernel::encode(outline);
    if asked.is_some() || !skipped.is_empty() {
        let is_asked = |tag: &str| {
            kernel::obligation_number(tag).is_some_and(|number| {
                asked.is_none_or(|asked| asked.contains(&number)) && !skipped.contains_key(&number)
            })
        };
        encoding.program = run::asking_only(&encoding.program, &is_asked);
    }
    // Solve: each procedure's checks, on the backend, asking a failure's model for what its
    // assertion reads; nothing, when nothing is checked.
    let reads = reads(&encoding);
    let outcomes = if skipped.len() == outline.obligations.len() {
        Vec::new()
    } else {
        solve(outline.kernel, &encoding, &reads, settings)?
    };
    // Report: a verdict per obligation, with counterexamples in the kernel's terms.
    let mut result = report(outline.kernel, outline, &encoding, &reads, &outcomes);
    for (number, reason) in skipped {
        let outcome = &mut result.results[outline.divergence.len() + number];
        outcome.verdict = Verdict::NotChecked(reason);
        outcome.counterexample.clear();
    }
    Ok(result)
}

/// The kernel with the permissions its accesses need and candidate invariants, when it names no
/// permission ([`lockstep_logic::infer`]).
pub fn inferred(kernel: &Kernel) -> Option<Inferred> {
    (!kernel.has_permissions()).then(|| lockstep_logic::infer::permissions(kernel))
}

/// How many times Houdini drops candidates and verifies again before it gives up on dropping.
const HOUDINI_ROUNDS: usize = 16;

/// Verifies an inferred kernel as Houdini does: every candidate invariant that does not hold
/// (fails or is undecided) is dropped, and the candidates left checked again, until every one
/// left holds. The first round verifies the whole kernel, and is the result when every candidate
/// holds (the common case, one round). After a drop, each round asks only the checks of the
/// candidates (each other check assumed, as after it is asked, so their outcomes are the same),
/// and then the kernel is verified whole with the invariants left. So no candidate is ever
/// assumed, and the kernel of the result has only the candidates that held. A failure that shows
/// only that the inferred contract falls short ([`Inferred::shortfall`]: an access it does not
/// cover, an invariant it could not find, a candidate that does not hold) is undecided with that
/// reason: never verified, and not blamed on the kernel.
pub fn houdini(
    program: &Program,
    mut inferred: Inferred,
    settings: &Settings,
    model: MemoryModel,
) -> Result<KernelResult, VerifyError> {
    let failing = {
        let (outline, result) = decide(program, &inferred.kernel, settings, model)?;
        let failing = failing_candidates(&inferred, &outline, &result);
        if failing.is_empty() {
            return Ok(short_of(result, inferred));
        }
        failing
    };
    inferred.without(&failing);
    for _ in 1..HOUDINI_ROUNDS {
        let failing = {
            let outline = Outline::of(program, &inferred.kernel, model);
            let checks = inferred.candidate_checks(&outline);
            if checks.is_empty() {
                break;
            }
            let asked: BTreeSet<usize> = checks.iter().map(|(_, obligation)| *obligation).collect();
            let result = decide_outline(&outline, settings, Some(&asked))?;
            failing_candidates(&inferred, &outline, &result)
        };
        if failing.is_empty() {
            break;
        }
        inferred.without(&failing);
    }
    let (_, result) = decide(program, &inferred.kernel, settings, model)?;
    Ok(short_of(result, inferred))
}

/// The candidate invariants of `inferred` that do not hold (fail or are undecided) in `result`,
/// the verdicts on `outline`.
fn failing_candidates(inferred: &Inferred, outline: &Outline, result: &KernelResult) -> Vec<Candidate> {
    let offset = outline.divergence.len();
    let failed =
        |number: usize| result.results.get(offset + number).is_some_and(|outcome| outcome.verdict != Verdict::Verified);
    inferred.failing_candidates(outline, &failed)
}

/// The result of a kernel verified with inferred contracts, each failure that only shows them
/// falling short undecided ([`Inferred::shortfall`]).
fn short_of(mut result: KernelResult, inferred: Inferred) -> KernelResult {
    for outcome in &mut result.results {
        if outcome.verdict != Verdict::Failed {
            continue;
        }
        if let Some(reason) = inferred.shortfall(outcome.obligation.id, outcome.obligation.span) {
            outcome.verdict = Verdict::Undecided(reason.to_string());
            outcome.counterexample.clear();
        }
    }
    result.inferred = Some(inferred.kernel);
    result
}

/// What each assertion of an encoding reads, by procedure and tag: requested from the model of
/// every failure in its procedure, and shown for a failure of that assertion.
fn reads(encoding: &Encoding) -> ReadsByProcedure<'_> {
    encoding
        .program
        .declarations
        .iter()
        .filter_map(|declaration| match declaration {
            Declaration::Procedure(procedure) => Some((procedure.name.as_str(), encoding.reads(procedure))),
            _ => None,
        })
        .collect()
}

/// What each assertion reads ([`reads`]), by procedure name and tag.
type ReadsByProcedure<'e> = HashMap<&'e str, BTreeMap<String, Reads>>;

/// Decides the checks of an encoding, procedure by procedure.
fn solve(
    kernel: &Kernel,
    encoding: &Encoding,
    reads: &ReadsByProcedure,
    settings: &Settings,
) -> Result<Vec<ProcedureOutcome>, VerifyError> {
    let extra = |procedure: &lockstep_encoder::ivl::Procedure| {
        let in_procedure = reads.get(procedure.name.as_str()).into_iter().flat_map(BTreeMap::values);
        in_procedure
            .flat_map(|reads| {
                let cells = reads.cells.iter().flat_map(|cell| [cell.index.clone(), cell.value.clone()]);
                cells.chain(reads.shown.iter().map(|(_, expr)| expr.clone()))
            })
            .chain(encoding.launch.iter().map(|(_, expr)| expr.clone()))
            .collect::<Vec<_>>()
    };
    let Settings { backend, limits, .. } = settings;
    run::program_requesting(&encoding.program, *backend, limits, &extra, &encoding.definitions, kernel::is_probe)
        .map_err(|error| VerifyError { span: kernel.span, message: format!("the solver failed: {}", error.0) })
}

/// The verdicts of a kernel's obligations from the outcomes of its checks: first the divergent
/// barriers (failed without a solver), then the outline's obligations in their numbering.
fn report(
    kernel: &Kernel,
    outline: &Outline,
    encoding: &Encoding,
    reads: &ReadsByProcedure,
    outcomes: &[ProcedureOutcome],
) -> KernelResult {
    let mut results: Vec<ObligationResult> = outline
        .divergence
        .iter()
        .map(|obligation| ObligationResult {
            obligation: obligation.clone(),
            verdict: Verdict::Failed,
            counterexample: Vec::new(),
        })
        .collect();
    let mut verdicts: Vec<Option<(Verdict, Counterexample)>> = vec![None; encoding.obligations.len()];
    let mut warnings = Vec::new();
    for procedure in outcomes {
        let in_procedure = reads.get(procedure.procedure.as_str());
        // Only the first place of a procedure that no state reaches is news: the places after it
        // are unreachable because of it.
        let mut vacuous_already = false;
        for outcome in &procedure.outcomes {
            let Some(tag) = outcome.check.tag.as_deref() else { continue };
            if let Some(probe) = encoding.probe(tag) {
                if outcome.status == Status::Verified && !vacuous_already {
                    warnings.push(vacuous(probe));
                    vacuous_already = true;
                }
                continue;
            }
            let Some(index) = kernel::obligation_number(tag) else { continue };
            // An obligation may be asserted by several checks (in several places or procedures,
            // or a range's two ends): it holds only if all hold, so the first failure stands,
            // and an undecided check is not outweighed by a verified one.
            let verdict = match &outcome.status {
                Status::Verified => (Verdict::Verified, Vec::new()),
                Status::Failed { model } => {
                    let reads = in_procedure.and_then(|reads| reads.get(tag));
                    (Verdict::Failed, counterexample(encoding, model, reads))
                }
                Status::Undecided(reason) => (Verdict::Undecided(reason.clone()), Vec::new()),
            };
            if verdicts[index].as_ref().is_none_or(|(old, _)| verdict.0.severity() > old.severity()) {
                verdicts[index] = Some(verdict);
            }
        }
    }
    for (obligation, verdict) in encoding.obligations.iter().cloned().zip(verdicts) {
        // Every tag is asserted somewhere; one without an outcome was never checked, so it is not verified.
        let (mut verdict, mut counterexample) =
            verdict.unwrap_or_else(|| (Verdict::Undecided("not checked".into()), Vec::new()));
        // A claim the frontend could not state fails by construction: that says nothing of the
        // kernel, so it is undecided ([`Kernel::unstated_claims`]).
        let unstated = (obligation.id == ObligationId::Assert)
            .then(|| kernel.unstated_claims.iter().find(|(span, _)| *span == obligation.span))
            .flatten();
        if let (Verdict::Failed, Some((_, why))) = (&verdict, unstated) {
            verdict = Verdict::Undecided(why.clone());
            counterexample.clear();
        }
        results.push(ObligationResult { obligation, verdict, counterexample });
    }
    let resources = outcomes.iter().map(|procedure| procedure.resources).sum();
    warnings.sort_by_key(|warning: &Diagnostic| warning.primary.span.start);
    KernelResult { name: kernel.name.clone(), span: kernel.span, results, resources, warnings, inferred: None }
}

/// The warning for assumptions that no state satisfies, as Dafny's
/// `--warn-contradictory-assumptions` gives it: what follows holds only vacuously.
fn vacuous(probe: &Probe) -> Diagnostic {
    let (what, after) = match probe.position {
        Assumed::ThreadPre => ("this thread precondition", "every obligation of the thread"),
        Assumed::BarrierPost => ("this barrier postcondition", "every obligation after the barrier"),
        Assumed::LoopInvariant => ("this loop invariant", "every obligation in the loop and after it"),
        Assumed::GroupPre => ("this group precondition", "every obligation that assumes it"),
        Assumed::KernelPre => ("this kernel precondition", "every obligation that assumes it"),
        Assumed::Assume => ("this `assume`", "every obligation after it"),
    };
    Diagnostic::warning(
        Code::Vacuous,
        format!("{what} cannot hold: {after} holds only vacuously"),
        probe.span,
        "no state satisfies this (with the launch and the path to it)",
    )
    .with_help(
        "contradictory assumptions prove anything: look for clauses that exclude each other (such as \
         `a[tid] > 0 ** a[tid] < 0`), or a bound that no launch meets; `lockstep run` shows whether a \
         launch gets here",
    )
}

/// The model's values in the kernel's terms: the named variables in the order the encoding lists
/// them (thread ids and sizes first), then `a[i] = v` for each cell the failing check reads.
fn counterexample(encoding: &Encoding, model: &[(String, Value)], reads: Option<&Reads>) -> Counterexample {
    let value = |expr: &lockstep_encoder::ivl::Expr| {
        let text = expr.to_string();
        model.iter().find(|(name, _)| *name == text).map(|(_, value)| value.to_string())
    };
    let mut shown: Vec<(String, String)> = Vec::new();
    for name in ["tid", "gid", "lid", "gsize", "tcount"] {
        if let Some((_, found)) = model.iter().find(|(variable, _)| variable == name) {
            shown.push((name.to_string(), found.to_string()));
        }
    }
    for (label, expr) in &encoding.launch {
        if let Some(found) = value(expr) {
            shown.push((label.clone(), found));
        }
    }
    for (variable, found) in model {
        if ["tid", "gid", "lid", "gsize", "tcount"].contains(&variable.as_str()) {
            continue;
        }
        if let Some(label) = encoding.label(variable, reads) {
            shown.push((label.to_string(), found.to_string()));
        }
    }
    for (label, expr) in reads.iter().flat_map(|reads| &reads.shown) {
        if let Some(content) = value(expr) {
            shown.push((label.clone(), content));
        }
    }
    for cell in reads.iter().flat_map(|reads| &reads.cells) {
        if let (Some(index), Some(content)) = (value(&cell.index), value(&cell.value)) {
            let name = if cell.permission {
                format!("permission on {}[{index}]", cell.array)
            } else {
                format!("{}[{index}]", cell.array)
            };
            shown.push((name, content));
        }
    }
    // One name with one value is shown once (the variables of a helper inlined twice, a thread's
    // id that two parts of the check read).
    let mut unique: Vec<(String, String)> = Vec::new();
    for pair in shown {
        if !unique.contains(&pair) {
            unique.push(pair);
        }
    }
    unique
}
