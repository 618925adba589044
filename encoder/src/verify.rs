//! Discharging a procedure's verification condition: every check gets its own verdict.
//!
//! The script is loaded once. Each round asks the solver whether some enabled check can fail:
//! `unsat` proves all enabled checks; `sat` gives a model in which [`ProcedureVc::failing_check`]
//! finds the failing check, which is reported (with the values the caller asked for) and disabled
//! before the next round; `unknown` leaves every remaining check undecided, never verified.

use crate::ivl::Expr;
use crate::smt::{Answer, Solver, SolverError, Term, Value};
use crate::vcgen::{enabled_symbol, Check, ProcedureVc};

/// The verdict on one check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Verified,
    /// The check fails; the values of the requested expressions in the failing state (those the
    /// model could give).
    Failed {
        model: Vec<(String, Value)>,
    },
    /// The solver could not decide (timeout, resource limit, incompleteness): the reason.
    Undecided(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub check: Check,
    pub status: Status,
}

/// Verifies every check of a procedure. `requested` are the expressions whose values a failure
/// should report, evaluated in the state where the check fails.
pub fn procedure(
    vc: &ProcedureVc,
    solver: &mut dyn Solver,
    requested: &[Expr],
) -> Result<Vec<Outcome>, SolverError> {
    let count = vc.checks.len();
    let mut statuses: Vec<Option<Status>> = vec![None; count];
    if count == 0 {
        return Ok(Vec::new());
    }
    solver.load(&vc.script)?;
    let trace_terms: Vec<Term> = vc.trace_symbols().into_iter().map(Term::symbol).collect();
    loop {
        let enabled: Vec<bool> = statuses.iter().map(Option::is_none).collect();
        let assumptions: Vec<(String, bool)> = enabled
            .iter()
            .enumerate()
            .map(|(check, on)| (enabled_symbol(check), *on))
            .collect();
        match solver.check(&assumptions)? {
            Answer::Unsat => {
                settle(&mut statuses, || Status::Verified);
                break;
            }
            Answer::Unknown(reason) => {
                settle(&mut statuses, || Status::Undecided(reason.clone()));
                break;
            }
            Answer::Sat => {
                let values = solver.values(&trace_terms)?;
                let booleans: Vec<bool> = values
                    .iter()
                    .map(|value| matches!(value, Value::Bool(true)))
                    .collect();
                let Some(failing) = vc.failing_check(&booleans, &enabled) else {
                    settle(&mut statuses, || {
                        Status::Undecided("the model names no failing check".into())
                    });
                    break;
                };
                let model = counterexample(vc, solver, failing, requested)?;
                statuses[failing] = Some(Status::Failed { model });
            }
        }
    }
    Ok(vc
        .checks
        .iter()
        .zip(statuses)
        .map(|(check, status)| Outcome {
            check: check.clone(),
            status: status.unwrap_or_else(|| Status::Undecided("not checked".into())),
        })
        .collect())
}

/// Gives every check still open the same status.
fn settle(statuses: &mut [Option<Status>], status: impl Fn() -> Status) {
    for open in statuses.iter_mut().filter(|status| status.is_none()) {
        *open = Some(status());
    }
}

fn counterexample(
    vc: &ProcedureVc,
    solver: &mut dyn Solver,
    check: usize,
    requested: &[Expr],
) -> Result<Vec<(String, Value)>, SolverError> {
    let (names, terms): (Vec<String>, Vec<Term>) = requested
        .iter()
        .filter_map(|expr| {
            vc.term_at_check(check, expr)
                .map(|term| (expr.to_string(), term))
        })
        .unzip();
    let values = solver.values(&terms)?;
    Ok(names.into_iter().zip(values).collect())
}
