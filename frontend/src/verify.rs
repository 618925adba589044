//! Verifying the kernels of a checked file: lock-step safety first (a divergent barrier fails
//! `barrier.divergence` without asking a solver), then the encoding of each kernel, run on a
//! backend, with every failed check mapped back to its obligation.

use lockstep_encoder::kernel::{self, Encoding};
use lockstep_encoder::run::{self, Backend};
use lockstep_encoder::smt::Limits;
use lockstep_encoder::verify::Status;
use lockstep_logic::lockstep::LockStep;
use lockstep_logic::{Kernel, Obligation, ObligationId, Program, Span};

/// The verdict on one obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified,
    Failed,
    /// The solver could not decide: the reason.
    Undecided(String),
}

#[derive(Clone, Debug)]
pub struct ObligationResult {
    pub obligation: Obligation,
    pub verdict: Verdict,
}

#[derive(Clone, Debug)]
pub struct KernelResult {
    pub name: String,
    pub span: Span,
    pub results: Vec<ObligationResult>,
}

impl KernelResult {
    /// `failed` if any obligation failed, else `undecided` if any is, else `verified`.
    pub fn verdict(&self) -> Verdict {
        if self.results.iter().any(|result| result.verdict == Verdict::Failed) {
            Verdict::Failed
        } else if let Some(result) = self.results.iter().find(|result| matches!(result.verdict, Verdict::Undecided(_)))
        {
            result.verdict.clone()
        } else {
            Verdict::Verified
        }
    }
}

/// Why a kernel could not be verified at all: an unsupported construct or a solver that failed.
#[derive(Clone, Debug)]
pub struct VerifyError {
    pub span: Span,
    pub message: String,
}

/// Verifies every kernel of a program.
pub fn program(program: &Program, backend: Backend, limits: &Limits) -> Result<Vec<KernelResult>, VerifyError> {
    program.kernels.iter().map(|kernel| self::kernel(program, kernel, backend, limits)).collect()
}

fn kernel(program: &Program, kernel: &Kernel, backend: Backend, limits: &Limits) -> Result<KernelResult, VerifyError> {
    let mut results = Vec::new();
    for divergence in LockStep::of(kernel).divergent_barriers(kernel) {
        results.push(ObligationResult {
            obligation: Obligation {
                id: ObligationId::BarrierDivergence,
                span: divergence.barrier,
                related: Some((
                    divergence.condition,
                    "this condition may differ between the threads of a group".into(),
                )),
                message: "the threads of a group might reach this barrier divergently".into(),
            },
            verdict: Verdict::Failed,
        });
    }
    let Encoding { program: ivl_program, obligations } = kernel::encode(program, kernel)
        .map_err(|unsupported| VerifyError { span: unsupported.span, message: unsupported.message })?;
    let outcomes = run::program(&ivl_program, backend, limits)
        .map_err(|error| VerifyError { span: kernel.span, message: format!("the solver failed: {}", error.0) })?;
    let mut verdicts: Vec<Option<Verdict>> = vec![None; obligations.len()];
    for outcome in outcomes.iter().flat_map(|procedure| &procedure.outcomes) {
        let Some(index) = outcome
            .check
            .tag
            .as_deref()
            .and_then(|tag| tag.strip_prefix('o'))
            .and_then(|index| index.parse::<usize>().ok())
        else {
            continue;
        };
        verdicts[index] = Some(match &outcome.status {
            Status::Verified => Verdict::Verified,
            Status::Failed { .. } => Verdict::Failed,
            Status::Undecided(reason) => Verdict::Undecided(reason.clone()),
        });
    }
    for (obligation, verdict) in obligations.into_iter().zip(verdicts) {
        // Every tag is asserted somewhere; one without an outcome was never checked, so it is not verified.
        let verdict = verdict.unwrap_or_else(|| Verdict::Undecided("not checked".into()));
        results.push(ObligationResult { obligation, verdict });
    }
    Ok(KernelResult { name: kernel.name.clone(), span: kernel.span, results })
}
