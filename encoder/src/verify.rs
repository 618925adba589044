//! Discharging a procedure's verification condition: every check gets its own verdict.
//!
//! The script is loaded once. Each round asks the solver whether some enabled check can fail:
//! `unsat` proves all enabled checks; `sat` gives a model in which [`ProcedureVc::failing_check`]
//! finds the failing check, which is reported (with the values the caller asked for) and disabled
//! before the next round; `unknown` (a timeout, a resource limit, an incomplete theory) makes the
//! remaining checks be asked about one at a time, and a check the solver cannot decide alone is
//! undecided: never verified, never failed.
//!
//! A disabled check is assumed, so each verdict reads "holds wherever the other checks hold", as in
//! Boogie: the procedure is correct exactly when every check is verified (`proofs/vcgen.md`, V4).

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
///
/// While the solver decides, all open checks are asked about at once. After an `unknown`, the check
/// that fails in the solver's candidate model is set aside and the others are asked about at once;
/// what stays open is then asked about one check at a time (the others assumed, as a failed check
/// is), and a check still unknown once more from scratch, so that one check the solver cannot
/// decide does not leave the others undecided.
pub fn procedure(vc: &ProcedureVc, solver: &mut dyn Solver, requested: &[Expr]) -> Result<Vec<Outcome>, SolverError> {
    let count = vc.checks.len();
    // A check valid by constant folding needs no solver; a procedure of only such checks, no
    // solver at all.
    let mut statuses: Vec<Option<Status>> =
        vc.checks.iter().map(|check| check.trivial.then_some(Status::Verified)).collect();
    if statuses.iter().all(Option::is_some) {
        return Ok(vc.checks.iter().map(|check| Outcome { check: check.clone(), status: Status::Verified }).collect());
    }
    solver.load(&vc.script)?;
    let mut search =
        Search { vc, solver, requested, trace_terms: vc.trace_symbols().into_iter().map(Term::symbol).collect() };
    // The reason of an `unknown` for all open checks at once, and how many were open.
    let mut gave_up: Option<(String, usize)> = None;
    while statuses.iter().any(Option::is_none) {
        let open: Vec<bool> = statuses.iter().map(Option::is_none).collect();
        match search.round(&open, false)? {
            Round::AllHold => settle(&mut statuses, || Status::Verified),
            Round::Fails(check, model) => statuses[check] = Some(Status::Failed { model }),
            Round::Unknown(reason) => {
                let mut open_count = open.iter().filter(|open| **open).count();
                // The solver's last candidate model, though not a counterexample, names the check
                // it could not settle; the others are often settled in one question without it.
                let suspect = search.failing_in_model(&open).ok().flatten();
                if let Some(suspect) = suspect.filter(|_| open_count > 2) {
                    let others: Vec<bool> = (0..count).map(|check| open[check] && check != suspect).collect();
                    match search.round(&others, false)? {
                        Round::AllHold => {
                            (0..count).filter(|&check| others[check]).for_each(|check| {
                                statuses[check] = Some(Status::Verified);
                            });
                            open_count = 1;
                        }
                        Round::Fails(check, model) => statuses[check] = Some(Status::Failed { model }),
                        Round::Unknown(_) => {}
                    }
                }
                gave_up = Some((reason, open_count));
                break;
            }
        }
    }
    if let Some((_, open_count)) = gave_up {
        let open: Vec<usize> = (0..count).filter(|&check| statuses[check].is_none()).collect();
        for check in open {
            let only: Vec<bool> = (0..count).map(|other| other == check).collect();
            // With one open check, the incremental question was this one already.
            let mut round = if open_count == 1 { Round::Unknown(String::new()) } else { search.round(&only, false)? };
            if let Round::Unknown(_) = round {
                round = search.round(&only, true)?;
            }
            statuses[check] = Some(match round {
                Round::AllHold => Status::Verified,
                Round::Fails(_, model) => Status::Failed { model },
                Round::Unknown(reason) => Status::Undecided(reason),
            });
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

/// The answer of one round: every enabled check holds, one of them fails (with its model), or
/// the solver could not tell.
enum Round {
    AllHold,
    Fails(usize, Vec<(String, Value)>),
    Unknown(String),
}

struct Search<'a> {
    vc: &'a ProcedureVc,
    solver: &'a mut dyn Solver,
    requested: &'a [Expr],
    trace_terms: Vec<Term>,
}

impl Search<'_> {
    /// The enabled check that fails in the solver's model: after `sat` the counterexample's, after
    /// `unknown` the candidate model's (if it has one).
    fn failing_in_model(&mut self, enabled: &[bool]) -> Result<Option<usize>, SolverError> {
        let values = self.solver.values(&self.trace_terms)?;
        let booleans: Vec<bool> = values.iter().map(|value| matches!(value, Value::Bool(true))).collect();
        Ok(self.vc.failing_check(&booleans, enabled))
    }

    /// One question: incremental, or (`alone`) from scratch with the assumptions as facts.
    fn round(&mut self, enabled: &[bool], alone: bool) -> Result<Round, SolverError> {
        let assumptions: Vec<(String, bool)> =
            enabled.iter().enumerate().map(|(check, on)| (enabled_symbol(check), *on)).collect();
        let answer = if alone { self.solver.check_alone(&assumptions)? } else { self.solver.check(&assumptions)? };
        Ok(match answer {
            Answer::Unsat => Round::AllHold,
            Answer::Unknown(reason) => Round::Unknown(reason),
            Answer::Sat => match self.failing_in_model(enabled)? {
                Some(check) => Round::Fails(check, counterexample(self.vc, self.solver, check, self.requested)),
                None => Round::Unknown("the model names no failing check".into()),
            },
        })
    }
}

/// Gives every check still open the same status.
fn settle(statuses: &mut [Option<Status>], status: impl Fn() -> Status) {
    for open in statuses.iter_mut().filter(|status| status.is_none()) {
        *open = Some(status());
    }
}

/// The values of the requested expressions where a check fails. They are a courtesy: when the
/// solver cannot give them, the verdict still stands, without values.
fn counterexample(vc: &ProcedureVc, solver: &mut dyn Solver, check: usize, requested: &[Expr]) -> Vec<(String, Value)> {
    let (names, terms): (Vec<String>, Vec<Term>) =
        requested.iter().filter_map(|expr| vc.term_at_check(check, expr).map(|term| (expr.to_string(), term))).unzip();
    match solver.values(&terms) {
        Ok(values) => names.into_iter().zip(values).collect(),
        Err(_) => Vec::new(),
    }
}
