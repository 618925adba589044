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
//!
//! A probe (a check the caller marks, of a place it asks whether any state reaches) is not one
//! of the checks above: it is asked once, alone, after them, within [`PROBE_RESOURCES`], and only
//! if the checks before it all verified; a probe the solver cannot settle within them is simply
//! undecided, and so are the later probes of the procedure, which are then not asked.
//!
//! A function the script defines only by quantified axioms (a recursive one) often keeps the
//! solver from ever finding a model. A check left undecided is then asked once more without those
//! axioms, with ground instances of the definition instead, computed by the caller's concrete
//! evaluation ([`Definition`]): see [`confirm`].

use crate::ivl::Expr;
use crate::smt::{Answer, Command, Op, Script, Solver, SolverError, Term, Value};
use crate::vcgen::{enabled_symbol, Analysis, Check, ProcedureVc};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

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
///
/// A check still undecided in the end, in a script with [`Definition`]s, is asked once more by
/// [`confirm`].
pub fn procedure(
    vc: &ProcedureVc,
    solver: &mut dyn Solver,
    requested: &[Expr],
    definitions: &[Definition],
    probe: &dyn Fn(&str) -> bool,
) -> Result<Vec<Outcome>, SolverError> {
    settle_checks(vc, solver, requested, definitions, probe, Persistence::Thorough)
}

/// How hard a question left open is pressed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Persistence {
    /// Every means: one check at a time, from scratch, other seeds, ground instances.
    Thorough,
    /// One check at a time only, in a part of a split VC (V11): what stays open there is asked
    /// again of the whole VC, thoroughly.
    Quick,
}

/// Verifies a procedure part by part when its VC splits (V11), else whole: the parts first; then
/// the checks a part did not verify, of the whole VC, which decides their verdicts and gives their
/// counterexamples; then the probes, each in its part, under the rules of [`procedure`].
pub fn procedure_in_parts(
    analysis: &Analysis,
    solver: &mut dyn Solver,
    requested: &[Expr],
    definitions: &[Definition],
    probe: &dyn Fn(&str) -> bool,
) -> Result<Vec<Outcome>, SolverError> {
    let parts = analysis.parts(probe);
    if parts.is_empty() {
        return procedure(&analysis.whole(), solver, requested, definitions, probe);
    }
    let checks = analysis.checks();
    let is_probe: Vec<bool> = checks.iter().map(|check| check.tag.as_deref().is_some_and(probe)).collect();
    let mut statuses: Vec<Option<Status>> =
        checks.iter().map(|check| check.trivial.then_some(Status::Verified)).collect();
    let no_probes = |_: &str| false;
    for part in parts.iter().filter(|part| !part.probe) {
        let outcomes = settle_checks(&part.vc, solver, &[], definitions, &no_probes, Persistence::Quick)?;
        for (local, outcome) in outcomes.into_iter().enumerate().filter(|(local, _)| part.vc.asks(*local)) {
            statuses[part.checks[local]] = Some(outcome.status);
        }
    }
    let again: Vec<usize> =
        (0..checks.len()).filter(|&check| !is_probe[check] && statuses[check] != Some(Status::Verified)).collect();
    if !again.is_empty() {
        let whole = analysis.whole_asking(&again);
        let outcomes = procedure(&whole, solver, requested, definitions, &no_probes)?;
        for &check in &again {
            statuses[check] = Some(outcomes[check].status.clone());
        }
    }
    // The probes, in order, each only when every check before it verified (E14); the first one
    // the solver cannot settle within its budget ends the asking, as in [`procedure`].
    for part in parts.iter().filter(|part| part.probe) {
        let eligible: Vec<usize> = (0..part.checks.len())
            .filter(|&local| part.vc.asks(local))
            .filter(|&local| earlier_checks_hold(part.checks[local], &is_probe, &statuses))
            .collect();
        if eligible.is_empty() {
            continue;
        }
        let mut search = Search::new(&part.vc, solver, &[]);
        search.load(&part.vc.script)?;
        // A probe's budget is for its search, not for reading the script: the solver reads it
        // first in a question with no check enabled (as the probes of a whole VC come after its
        // checks), within the budget of a joint round.
        let nothing = assumptions(&vec![false; part.checks.len()]);
        if search.solver.check_within(&nothing, JOINT_RESOURCES)? != Some(Answer::Unsat) {
            break;
        }
        let mut local: Vec<Option<Status>> = vec![None; part.checks.len()];
        let settled = ask_probes(&mut search, &eligible, &mut local, true)?;
        for (index, status) in local.into_iter().enumerate() {
            if let Some(status) = status {
                statuses[part.checks[index]] = Some(status);
            }
        }
        if !settled {
            break;
        }
    }
    Ok(outcomes(checks, statuses, "not asked"))
}

/// Whether every check before `check` that is not a probe verified: a probe is asked only then
/// (E14), as one that failed, or may fail, could make its place unreachable by itself.
fn earlier_checks_hold(check: usize, is_probe: &[bool], statuses: &[Option<Status>]) -> bool {
    (0..check).all(|other| is_probe[other] || statuses[other] == Some(Status::Verified))
}

/// The outcome of every check, `unsettled` the reason of those left without a status.
fn outcomes(checks: &[Check], statuses: Vec<Option<Status>>, unsettled: &str) -> Vec<Outcome> {
    checks
        .iter()
        .zip(statuses)
        .map(|(check, status)| Outcome {
            check: check.clone(),
            status: status.unwrap_or_else(|| Status::Undecided(unsettled.into())),
        })
        .collect()
}

/// [`procedure`], pressing open questions as `persistence` says.
fn settle_checks(
    vc: &ProcedureVc,
    solver: &mut dyn Solver,
    requested: &[Expr],
    definitions: &[Definition],
    probe: &dyn Fn(&str) -> bool,
    persistence: Persistence,
) -> Result<Vec<Outcome>, SolverError> {
    let count = vc.checks.len();
    let is_probe: Vec<bool> = vc.checks.iter().map(|check| check.tag.as_deref().is_some_and(probe)).collect();
    // A check valid by constant folding needs no solver; a procedure of only such checks, no
    // solver at all. Probes are asked last, and stay disabled until then.
    let mut statuses: Vec<Option<Status>> = vc
        .checks
        .iter()
        .enumerate()
        .map(|(check, vc_check)| {
            if is_probe[check] {
                Some(Status::Undecided("not asked".into()))
            } else {
                // A check only assumed here counts as held (its own part or query asks it).
                (vc_check.trivial || !vc.asks(check)).then_some(Status::Verified)
            }
        })
        .collect();
    if !is_probe.contains(&true) && statuses.iter().all(Option::is_some) {
        return Ok(vc.checks.iter().map(|check| Outcome { check: check.clone(), status: Status::Verified }).collect());
    }
    let mut search = Search::new(vc, solver, requested);
    if persistence == Persistence::Quick {
        search.budget = Some(PART_RESOURCES);
    }
    search.load(&vc.script)?;
    // The reason of an `unknown` for all open checks at once, and how many were open.
    let mut gave_up: Option<(String, usize)> = None;
    while statuses.iter().any(Option::is_none) {
        let open: Vec<bool> = statuses.iter().map(Option::is_none).collect();
        match search.joint_round(&open)? {
            Round::AllHold => settle(&mut statuses, || Status::Verified),
            Round::Fails(check, model) => statuses[check] = Some(Status::Failed { model }),
            Round::Unknown(reason) => {
                let mut open_count = open.iter().filter(|open| **open).count();
                // The solver's last candidate model, though not a counterexample, names the check
                // it could not settle; the others are often settled in one question without it.
                let suspect = search.failing_in_model(&open).ok().flatten();
                if let Some(suspect) = suspect.filter(|_| open_count > 2) {
                    let others: Vec<bool> = (0..count).map(|check| open[check] && check != suspect).collect();
                    match search.joint_round(&others)? {
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
            if persistence == Persistence::Quick {
                if let Round::Unknown(reason) = &round {
                    statuses[check] = Some(Status::Undecided(reason.clone()));
                    continue;
                }
            }
            if let Round::Unknown(_) = round {
                round = search.round(&only, true)?;
            }
            // Ground instances of the definitions (V6) settle in milliseconds what other seeds
            // may search for until their time limit, so they come first.
            if let Round::Unknown(_) = round {
                if let Some(status) = confirm(&mut search, check, definitions)? {
                    statuses[check] = Some(status);
                    continue;
                }
            }
            // z3 may give up on a quantified query (`incomplete quantifiers`) under one seed and
            // decide it under another: a few other seeds, always the same ones, so that the answer
            // stays a function of the input and the options.
            for offset in 1..=OTHER_SEEDS {
                match &round {
                    Round::Unknown(reason) if !reason.starts_with("timeout") => {
                        search.solver.vary_seed(offset);
                        round = search.round(&only, true)?;
                        search.solver.vary_seed(0);
                    }
                    _ => break,
                }
            }
            statuses[check] = Some(match round {
                Round::AllHold => Status::Verified,
                Round::Fails(_, model) => Status::Failed { model },
                Round::Unknown(reason) => Status::Undecided(reason),
            });
        }
    }
    // The other checks are assumed while a probe is asked: one before it (checks are numbered in
    // the order of the program) that failed, or may fail, could make the place unreachable by
    // itself, so a probe is asked only when all of those hold. The checks after it do not
    // matter: the probe's branch ends at it. The first probe the solver cannot settle within its
    // budget ends the asking: the later ones, in a script as large, would most likely spend theirs
    // too, and each would cost the rebuild of a solver stopped by its limit.
    let asked: Vec<usize> =
        (0..count).filter(|&check| is_probe[check] && earlier_checks_hold(check, &is_probe, &statuses)).collect();
    ask_probes(&mut search, &asked, &mut statuses, false)?;
    Ok(outcomes(&vc.checks, statuses, "not checked"))
}

/// Asks each of `probes` alone within [`PROBE_RESOURCES`] in the VC `search` holds, in order, and
/// the first one left unsettled ends the asking (`false` then). With `deepest_first`, the last
/// first: a model that reaches one reaches every probe whose branch its path passes, and those
/// need no question of their own (E14); should one be left unsettled, the rest are asked in
/// order, the nearer ones being the cheaper.
fn ask_probes(
    search: &mut Search,
    probes: &[usize],
    statuses: &mut [Option<Status>],
    deepest_first: bool,
) -> Result<bool, SolverError> {
    let mut open: Vec<usize> = probes.to_vec();
    let mut forward = !deepest_first;
    loop {
        let next = if forward { open.iter().min() } else { open.iter().max() };
        let Some(&check) = next else { return Ok(true) };
        let (status, reached) = ask_probe(search, check, deepest_first)?;
        let settled = !matches!(status, Status::Undecided(_));
        statuses[check] = Some(status);
        open.retain(|&probe| probe != check);
        for probe in reached {
            if open.contains(&probe) {
                statuses[probe] = Some(Status::Failed { model: Vec::new() });
                open.retain(|&other| other != probe);
            }
        }
        if !settled {
            if forward {
                return Ok(false);
            }
            forward = true;
        }
    }
}

/// Asks one probe: its status, and (if `reached` is asked for) the checks a model that reaches it
/// reaches too. Reading a model adds its terms to the solver's context, which steers the search of
/// every later question the solver is asked (in a whole VC, a joint round of the next procedure
/// went from milliseconds to its time limit), so it is read only where it spares questions.
fn ask_probe(search: &mut Search, check: usize, reached: bool) -> Result<(Status, Vec<usize>), SolverError> {
    let count = search.vc.checks.len();
    let only: Vec<(String, bool)> = (0..count).map(|other| (enabled_symbol(other), other == check)).collect();
    Ok(match search.solver.check_within(&only, PROBE_RESOURCES)? {
        Some(Answer::Unsat) => (Status::Verified, Vec::new()),
        Some(Answer::Sat) if !reached => (Status::Failed { model: Vec::new() }, Vec::new()),
        Some(Answer::Sat) => {
            let values = search.solver.values(&search.trace_terms)?;
            let booleans: Vec<bool> = values.iter().map(|value| matches!(value, Value::Bool(true))).collect();
            (Status::Failed { model: Vec::new() }, search.vc.reached_checks(&booleans))
        }
        Some(Answer::Unknown(reason)) => (Status::Undecided(reason), Vec::new()),
        None => (Status::Undecided("the backend cannot bound a probe's work".into()), Vec::new()),
    })
}

/// The solver's work a probe may take, in its deterministic units (z3's rlimit): a contradiction
/// among a few assumptions shows in far less; a reachable place whose model needs the axioms of
/// a recursive function may not show in any amount.
const PROBE_RESOURCES: u64 = 50000;

/// The solver's work a question about several checks at once may take (z3's rlimit, some 2 s):
/// past it, the checks are asked one at a time, which settles a procedure whose checks each need
/// some non-linear arithmetic far sooner than the search for one proof of them all, and spends
/// no time limit on it.
const JOINT_RESOURCES: u64 = 3_000_000;

/// The solver's work a question of a part (V11) may take: a part holds fewer facts than its
/// procedure, and a check it cannot prove may send the solver on a long search for a model (past
/// the time limit, which would make the work and the outcome depend on the machine) where the
/// whole VC proves the check at once. Past it, the check is asked of the whole VC.
const PART_RESOURCES: u64 = 500_000;

/// How many other seeds a check the solver gave up on is asked again with.
const OTHER_SEEDS: u32 = 2;

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
    /// The assertions of the script the solver holds, which a model must satisfy.
    assertions: Vec<Term>,
    /// The bound of every incremental question's work, if any ([`PART_RESOURCES`]).
    budget: Option<u64>,
}

impl<'a> Search<'a> {
    fn new(vc: &'a ProcedureVc, solver: &'a mut dyn Solver, requested: &'a [Expr]) -> Search<'a> {
        let trace_terms = vc.trace_symbols().into_iter().map(Term::symbol).collect();
        Search { vc, solver, requested, trace_terms, assertions: Vec::new(), budget: None }
    }

    /// The enabled check that fails in the solver's model: after `sat` the counterexample's, after
    /// `unknown` the candidate model's (if it has one).
    fn failing_in_model(&mut self, enabled: &[bool]) -> Result<Option<usize>, SolverError> {
        let values = self.solver.values(&self.trace_terms)?;
        let booleans: Vec<bool> = values.iter().map(|value| matches!(value, Value::Bool(true))).collect();
        Ok(self.vc.failing_check(&booleans, enabled))
    }

    /// Whether no assertion of the script is false in the solver's model: a `sat` answer counts
    /// only with a model of the script, so that no failure rests on a solver's slip
    /// (`proofs/vcgen.md`, V7). An assertion
    /// the model cannot evaluate (one under a quantifier the model leaves open, or past z3's
    /// evaluation bound) does not refute it.
    fn model_satisfies_script(&mut self) -> bool {
        self.solver.values(&self.assertions).map_or(true, |values| !values.contains(&Value::Bool(false)))
    }

    /// Gives the solver a script (the procedure's, or [`confirm`]'s relaxed one).
    fn load(&mut self, script: &Script) -> Result<(), SolverError> {
        self.assertions = script.assertions().cloned().collect();
        self.solver.load(script)
    }

    /// One question: incremental, or (`alone`) from scratch with the assumptions as facts.
    fn round(&mut self, enabled: &[bool], alone: bool) -> Result<Round, SolverError> {
        let assumptions = assumptions(enabled);
        let bounded = match self.budget {
            Some(budget) if !alone => self.solver.check_within(&assumptions, budget)?,
            _ => None,
        };
        let answer = match bounded {
            Some(answer) => answer,
            None if alone => self.solver.check_alone(&assumptions)?,
            None => self.solver.check(&assumptions)?,
        };
        self.read_answer(answer, enabled)
    }

    /// An incremental question about the enabled checks, within [`JOINT_RESOURCES`] (or the
    /// search's budget, if smaller) when there are several.
    fn joint_round(&mut self, enabled: &[bool]) -> Result<Round, SolverError> {
        if enabled.iter().filter(|on| **on).count() < 2 {
            return self.round(enabled, false);
        }
        let limit = self.budget.map_or(JOINT_RESOURCES, |budget| budget.min(JOINT_RESOURCES));
        match self.solver.check_within(&assumptions(enabled), limit)? {
            Some(answer) => self.read_answer(answer, enabled),
            None => self.round(enabled, false),
        }
    }

    /// What an answer about the enabled checks says of them.
    fn read_answer(&mut self, answer: Answer, enabled: &[bool]) -> Result<Round, SolverError> {
        Ok(match answer {
            Answer::Unsat => Round::AllHold,
            Answer::Unknown(reason) => Round::Unknown(reason),
            Answer::Sat if !self.model_satisfies_script() => {
                Round::Unknown("the solver answered `sat` with a model that breaks the script".into())
            }
            Answer::Sat => match self.failing_in_model(enabled)? {
                Some(check) => Round::Fails(check, counterexample(self.vc, self.solver, check, self.requested)),
                None => Round::Unknown("the model names no failing check".into()),
            },
        })
    }
}

/// `enabled@k` assumed as check `k` is enabled or not.
fn assumptions(enabled: &[bool]) -> Vec<(String, bool)> {
    enabled.iter().enumerate().map(|(check, on)| (enabled_symbol(check), *on)).collect()
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

/// A function that a script defines only by quantified axioms, each asserted as `guard => axiom`,
/// and that the caller can compute: the solver may use the axioms, and [`confirm`] their ground
/// instances in their place.
#[derive(Clone)]
pub struct Definition {
    /// The function's symbol in the script.
    pub function: String,
    /// The Boolean constant that guards each of its axioms.
    pub guard: String,
    /// Leading arguments the value does not depend on (such as fuel).
    pub ignored_arguments: usize,
    /// The value at the other arguments.
    pub evaluate: Evaluate,
}

/// A [`Definition`]'s concrete evaluation, shared by the workers that verify procedures.
pub type Evaluate = Arc<dyn Fn(&[Value]) -> Evaluation + Send + Sync>;

/// A [`Definition`]'s value at some arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluation {
    Value(Value),
    /// The axioms say nothing here (the arguments break the function's precondition).
    Unconstrained,
    /// The value could not be computed (too costly, say).
    Unknown,
}

/// How many rounds of ground instances [`confirm`] adds before it gives up.
const CONFIRMATION_ROUNDS: usize = 12;

/// Settles an undecided check, if it can, without the quantified axioms of the [`Definition`]s
/// (`proofs/vcgen.md`, V6). The check is asked alone in the script without those axioms, where the
/// solver usually answers:
/// - `unsat`: the check holds. The script without the axioms but with instances of them is
///   implied by the full script, so the check holds there too.
/// - `sat`: the model gives a value to each application of a defined function in the script. If
///   every one is the function's value, the model with the function as defined is a model of the
///   full script, so the check fails; otherwise the instances at the wrong points are added, and
///   the question asked again.
///
/// `None` when the check stays undecided: no axioms to set aside, an application under a
/// quantifier (whose instances the model does not show), a value that cannot be computed, or too
/// many rounds.
///
/// The solver holds the whole script again afterwards, for the checks asked after this one.
fn confirm(search: &mut Search, check: usize, definitions: &[Definition]) -> Result<Option<Status>, SolverError> {
    let guards: HashSet<&str> = definitions.iter().map(|definition| definition.guard.as_str()).collect();
    let is_axiom = |command: &Command| match command {
        Command::Assert(Term::App(Op::Implies, operands)) => {
            matches!(&operands[0], Term::Symbol(guard) if guards.contains(guard.as_str()))
        }
        _ => false,
    };
    if !search.vc.script.commands.iter().any(is_axiom) {
        return Ok(None);
    }
    let relaxed =
        Script { commands: search.vc.script.commands.iter().filter(|command| !is_axiom(command)).cloned().collect() };
    let by_symbol: HashMap<&str, &Definition> =
        definitions.iter().map(|definition| (definition.function.as_str(), definition)).collect();
    let mut applications = Vec::new();
    for command in &relaxed.commands {
        if let Command::Assert(term) = command {
            if !ground_applications(term, &by_symbol, &mut Vec::new(), &mut applications) {
                return Ok(None);
            }
        }
    }
    // In the order met, so that the instances added below come in the same order every run.
    let mut seen = HashSet::new();
    applications.retain(|term: &Term| seen.insert(term.clone()));
    let applications: Vec<Application> = applications
        .into_iter()
        .map(|term| match &term {
            Term::App(Op::Apply(symbol), args) => {
                let definition = by_symbol[symbol.as_str()];
                let arguments = args[definition.ignored_arguments..].to_vec();
                Application { definition, arguments, term }
            }
            _ => unreachable!("ground_applications collects applications"),
        })
        .collect();
    let confirmed = confirm_relaxed(search, check, relaxed, &applications);
    search.load(&search.vc.script)?;
    confirmed
}

/// The rounds of [`confirm`] in the script without the guarded axioms.
fn confirm_relaxed(
    search: &mut Search,
    check: usize,
    mut relaxed: Script,
    applications: &[Application],
) -> Result<Option<Status>, SolverError> {
    let only: Vec<bool> = (0..search.vc.checks.len()).map(|other| other == check).collect();
    for _ in 0..CONFIRMATION_ROUNDS {
        search.load(&relaxed)?;
        let model = match search.round(&only, false)? {
            Round::AllHold => return Ok(Some(Status::Verified)),
            Round::Unknown(_) => return Ok(None),
            Round::Fails(_, model) => model,
        };
        let Some(instances) = wrong_instances(search.solver, applications)? else { return Ok(None) };
        if instances.is_empty() {
            return Ok(Some(Status::Failed { model }));
        }
        relaxed.commands.extend(instances.into_iter().map(Command::Assert));
    }
    Ok(None)
}

/// An application of a defined function in a script, with the arguments its value depends on.
struct Application<'d> {
    definition: &'d Definition,
    arguments: Vec<Term>,
    term: Term,
}

/// Collects the applications of defined functions in `term`; `false` if one has an argument that
/// mentions a variable bound in `term` (`bound`, innermost last).
fn ground_applications(
    term: &Term,
    definitions: &HashMap<&str, &Definition>,
    bound: &mut Vec<String>,
    found: &mut Vec<Term>,
) -> bool {
    match term {
        Term::Bool(_) | Term::Int(_) | Term::Real(_) | Term::Symbol(_) => true,
        Term::App(op, args) => {
            if let Op::Apply(symbol) = op {
                if definitions.contains_key(symbol.as_str()) {
                    if args.iter().any(|arg| arg.mentions(bound)) {
                        return false;
                    }
                    found.push(term.clone());
                }
            }
            args.iter().all(|arg| ground_applications(arg, definitions, bound, found))
        }
        Term::Quantifier { bound: variables, body, .. } => {
            let depth = bound.len();
            bound.extend(variables.iter().map(|(name, _)| name.clone()));
            let ground = ground_applications(body, definitions, bound, found);
            bound.truncate(depth);
            ground
        }
        Term::Lambda { bound: (name, _), body } => {
            bound.push(name.clone());
            let ground = ground_applications(body, definitions, bound, found);
            bound.pop();
            ground
        }
    }
}

/// The instances of the definitions that the current model breaks: for each application whose
/// value in the model is not the function's, `guard => (args == point => application == value)`,
/// for every application of that function (any of them may take that point next). Where the guard
/// is false in the model, the axioms hold whatever the function's values. `None` when the model
/// cannot be judged: a value that cannot be computed, or two applications at one point, outside
/// the precondition, that disagree (the axioms tie those together, the instances would not).
fn wrong_instances(solver: &mut dyn Solver, applications: &[Application]) -> Result<Option<Vec<Term>>, SolverError> {
    let mut terms = Vec::new();
    for Application { definition, arguments, term } in applications {
        terms.push(Term::symbol(&definition.guard));
        terms.push(term.clone());
        terms.extend(arguments.iter().cloned());
    }
    let mut values = solver.values(&terms)?.into_iter();
    let mut next = || values.next().expect("one value per term");
    let mut unconstrained: HashMap<(&str, Vec<Value>), Value> = HashMap::new();
    let mut wrong: Vec<(&Definition, Vec<Value>, Value)> = Vec::new();
    for Application { definition, arguments, .. } in applications {
        let guarded = next() != Value::Bool(false);
        let in_model = next();
        let point: Vec<Value> = arguments.iter().map(|_| next()).collect();
        if !guarded {
            continue;
        }
        match (definition.evaluate)(&point) {
            Evaluation::Value(value) if value == in_model => {}
            Evaluation::Value(value) => {
                if !wrong.iter().any(|(other, at, _)| other.function == definition.function && *at == point) {
                    wrong.push((definition, point, value));
                }
            }
            Evaluation::Unconstrained => {
                let key = (definition.function.as_str(), point);
                if unconstrained.get(&key).is_some_and(|seen| *seen != in_model) {
                    return Ok(None);
                }
                unconstrained.insert(key, in_model);
            }
            Evaluation::Unknown => return Ok(None),
        }
    }
    let literal = |value: &Value| match value {
        Value::Bool(value) => Some(Term::Bool(*value)),
        Value::Int(value) => Some(Term::Int(value.clone())),
        Value::Real(value) => Some(Term::Real(value.clone())),
        Value::Other(_) => None,
    };
    let mut instances = Vec::new();
    for (definition, point, value) in wrong {
        let Some(value) = literal(&value) else { return Ok(None) };
        let Some(point) = point.iter().map(literal).collect::<Option<Vec<Term>>>() else { return Ok(None) };
        for other in applications.iter().filter(|other| other.definition.function == definition.function) {
            let at_point = Term::and(
                other
                    .arguments
                    .iter()
                    .zip(&point)
                    .map(|(arg, coordinate)| Term::eq(arg.clone(), coordinate.clone()))
                    .collect(),
            );
            let instance = Term::implies(at_point, Term::eq(other.term.clone(), value.clone()));
            instances.push(Term::implies(Term::symbol(&definition.guard), instance));
        }
    }
    Ok(Some(instances))
}
