//! The check loop over SMT-LIB 2 text, independent of how the solver is reached: a solver
//! process behind pipes ([`super::process`]), or, in the browser, z3's WebAssembly build behind a
//! JavaScript function. The loop needs a [`Transport`] that starts a solver and a [`Session`] that
//! carries text to it and back; it does the rest: the script, the `check-sat-assuming` questions,
//! the reasons of `unknown`, the models, and the portfolio of configurations.
//!
//! Where one configuration cannot decide what another can (cvc5), the solver is a small portfolio:
//! the next configuration is asked only after the previous answered `unknown`, so a verdict never
//! rests on a weaker configuration's word alone but on whichever decided, and `unknown` still
//! means no configuration could. A session that gives no answer within the time limit (plus a
//! grace second for the solver's own timer) is dropped, and the check is `unknown`; the next check
//! starts a fresh one.

use super::sexp::{self, Sexp};
use super::{Answer, Limits, Script, Solver, SolverError, Term, Value};
use std::time::Duration;

/// Which solver, for its command line and options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    Z3,
    Cvc5,
}

impl Flavour {
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Z3 => "z3",
            Flavour::Cvc5 => "cvc5",
        }
    }

    pub(super) fn program(self) -> String {
        let variable = match self {
            Flavour::Z3 => "LOCKSTEP_Z3",
            Flavour::Cvc5 => "LOCKSTEP_CVC5",
        };
        std::env::var(variable).unwrap_or_else(|_| self.name().to_string())
    }

    /// The command lines to try, in order, until one decides a check. cvc5's default instantiation
    /// proves well but answers `unknown` wherever a counterexample needs a model of a quantified
    /// formula; its model-based instantiation with bounded-range finite model finding builds many of
    /// those models, but loses some proofs, so it is only asked after the default gave up.
    pub(super) fn configurations(self, limits: &Limits) -> Vec<Vec<String>> {
        match self {
            Flavour::Z3 => vec![vec![
                "-in".into(),
                "-smt2".into(),
                format!("model_evaluator.max_steps={}", super::Z3_MODEL_EVALUATION_STEPS),
            ]],
            Flavour::Cvc5 => {
                let mut base = vec![
                    "--lang=smt2".to_string(),
                    "--incremental".to_string(),
                    "--produce-models".to_string(),
                    // Stop unfolding a recursive definition (a matching loop) after 32 levels of
                    // instantiation: `unknown` at once rather than at the time limit.
                    "--inst-max-level=32".to_string(),
                    format!("--tlimit-per={}", limits.timeout.as_millis()),
                    format!("--seed={}", limits.seed),
                ];
                if limits.resource_limit > 0 {
                    base.push(format!("--rlimit-per={}", limits.resource_limit));
                }
                let model_finding = base.iter().cloned().chain(["--mbqi".into(), "--fmf-bound".into()]).collect();
                vec![base, model_finding]
            }
        }
    }

    fn preamble(self, limits: &Limits) -> String {
        match self {
            Flavour::Z3 => {
                let mut text = format!(
                    "(set-option :produce-models true)\n(set-option :timeout {})\n(set-option :random-seed {})\n(set-option :smt.mbqi.max_iterations {})\n",
                    limits.timeout.as_millis(),
                    limits.seed,
                    super::Z3_MODEL_ROUNDS
                );
                if limits.resource_limit > 0 {
                    text.push_str(&format!("(set-option :rlimit {})\n", limits.resource_limit));
                }
                text
            }
            Flavour::Cvc5 => "(set-logic ALL)\n".to_string(),
        }
    }
}

/// How a solver is reached: each configuration (its command-line arguments) starts a session.
pub trait Transport: Send {
    fn start(&self, flavour: Flavour, arguments: &[String]) -> Result<Box<dyn Session>, SolverError>;
}

/// One running solver: SMT-LIB commands in, its output out.
pub trait Session: Send {
    fn send(&mut self, text: &str) -> Result<(), SolverError>;
    /// More of the solver's output, or `None` when `wait` passed without any. An error when the
    /// solver is gone.
    fn read(&mut self, wait: Duration) -> Result<Option<String>, SolverError>;
}

/// A solver that evaluates a batch of commands at once and gives back their whole output, as
/// z3's WebAssembly build does (`Z3.eval_smtlib2_string`): the playground's solver.
pub trait Evaluator: Send {
    /// The output of `commands`, or `None` when `wait` passed first (the session is then
    /// dropped, and the check is undecided). An evaluator that cannot be stopped from outside
    /// (the browser's) answers when its solver's own timer (`:timeout`) stops it.
    fn evaluate(&mut self, commands: &str, wait: Duration) -> Result<Option<String>, SolverError>;
}

/// The transport to [`Evaluator`]s, one started per session by the function it holds. A session
/// gathers the commands sent, and a read evaluates them. The configuration's command line does
/// not apply: the evaluator is set up by the script's preamble alone.
pub struct Batches<F>(pub F);

impl<F> Transport for Batches<F>
where
    F: Fn() -> Result<Box<dyn Evaluator>, SolverError> + Send,
{
    fn start(&self, _: Flavour, _: &[String]) -> Result<Box<dyn Session>, SolverError> {
        Ok(Box::new(Batch { evaluator: (self.0)()?, gathered: String::new() }))
    }
}

struct Batch {
    evaluator: Box<dyn Evaluator>,
    gathered: String,
}

impl Session for Batch {
    fn send(&mut self, text: &str) -> Result<(), SolverError> {
        self.gathered.push_str(text);
        Ok(())
    }

    fn read(&mut self, wait: Duration) -> Result<Option<String>, SolverError> {
        if self.gathered.is_empty() {
            return Ok(None);
        }
        self.evaluator.evaluate(&std::mem::take(&mut self.gathered), wait)
    }
}

/// A session with the output read but not yet consumed.
struct Connection {
    session: Box<dyn Session>,
    pending: String,
}

impl Connection {
    fn send(&mut self, text: &str) -> Result<(), SolverError> {
        self.session.send(text)
    }

    /// The next complete s-expression of output, or `None` when the time is up.
    fn receive(&mut self, wait: Duration, flavour: Flavour) -> Result<Option<Sexp>, SolverError> {
        loop {
            if let Some((sexp, used)) = sexp::read(&self.pending) {
                self.pending.drain(..used);
                if let Sexp::List(items) = &sexp {
                    if items.first() == Some(&Sexp::Atom("error".into())) {
                        return Err(SolverError(format!("{} reported {sexp}", flavour.name())));
                    }
                }
                return Ok(Some(sexp));
            }
            match self.session.read(wait)? {
                Some(text) => self.pending.push_str(&text),
                None => return Ok(None),
            }
        }
    }
}

/// A portfolio of solver sessions, one per configuration of [`Flavour::configurations`], each
/// started when first needed and given the loaded script.
pub struct SmtLibSolver {
    flavour: Flavour,
    transport: Box<dyn Transport>,
    limits: Limits,
    configurations: Vec<Vec<String>>,
    /// The text every process is given before its first check.
    script: Option<String>,
    running: Vec<Option<Connection>>,
    /// The configurations whose last answer was `unknown`, restarted before their next check.
    gave_up: Vec<bool>,
    /// The configuration whose last answer was `sat`: the one that holds the model.
    answered_by: usize,
    /// The session of the last [`Solver::check_alone`], whose model `values` reads.
    alone: Option<Connection>,
}

impl SmtLibSolver {
    /// The solver `flavour`, reached through `transport`.
    pub fn new(flavour: Flavour, transport: Box<dyn Transport>, limits: Limits) -> SmtLibSolver {
        let configurations = flavour.configurations(&limits);
        let running = configurations.iter().map(|_| None).collect();
        let gave_up = vec![false; configurations.len()];
        SmtLibSolver {
            flavour,
            transport,
            limits,
            configurations,
            script: None,
            running,
            gave_up,
            answered_by: 0,
            alone: None,
        }
    }

    /// The session of a configuration, started (and given the script) if it is not running.
    fn session(&mut self, configuration: usize) -> Result<&mut Connection, SolverError> {
        if self.running[configuration].is_none() {
            let script = self.script.clone().ok_or_else(|| SolverError("no script loaded".into()))?;
            let mut running = self.start(configuration)?;
            running.send(&script)?;
            self.running[configuration] = Some(running);
        }
        self.running[configuration].as_mut().ok_or_else(|| SolverError("the solver is not running".into()))
    }

    /// [`SmtLibSolver::session`], restarted first if its last answer was `unknown`.
    fn fresh_session(&mut self, configuration: usize) -> Result<&mut Connection, SolverError> {
        if std::mem::take(&mut self.gave_up[configuration]) {
            self.running[configuration] = None;
        }
        self.session(configuration)
    }

    fn start(&self, configuration: usize) -> Result<Connection, SolverError> {
        let session = self.transport.start(self.flavour, &self.configurations[configuration])?;
        Ok(Connection { session, pending: String::new() })
    }

    /// One configuration's answer to `check-sat-assuming`.
    fn check_with(&mut self, configuration: usize, literals: &str) -> Result<Answer, SolverError> {
        let wait = self.limits.timeout + Duration::from_secs(1);
        let flavour = self.flavour;
        let running = self.fresh_session(configuration)?;
        running.send(&format!("(check-sat-assuming ({literals}))\n"))?;
        let answer = read_answer(running, wait, flavour)?;
        match answer {
            // Killed: the next check starts this configuration afresh.
            None => self.running[configuration] = None,
            // Nothing the solver learnt before it gave up may decide a later check: after a
            // resource limit, z3's incremental mode has answered later checks `sat` with models
            // that break the script. Restarted before its next check, so that `values` can still
            // read this answer's candidate model.
            Some(Answer::Unknown(_)) => self.gave_up[configuration] = true,
            Some(_) => {}
        }
        Ok(answer.unwrap_or_else(|| Answer::Unknown("timeout".into())))
    }
}

/// The answer to a check: `None` when the time is up.
fn read_answer(running: &mut Connection, wait: Duration, flavour: Flavour) -> Result<Option<Answer>, SolverError> {
    let Some(answer) = running.receive(wait, flavour)? else { return Ok(None) };
    let answer = match answer {
        Sexp::Atom(word) if word == "sat" => Answer::Sat,
        Sexp::Atom(word) if word == "unsat" => Answer::Unsat,
        Sexp::Atom(word) if word == "unknown" => {
            running.send("(get-info :reason-unknown)\n")?;
            let reason = match running.receive(wait, flavour)? {
                Some(Sexp::List(items)) => items.get(1).map(|reason| match reason {
                    Sexp::Str(text) | Sexp::Atom(text) => text.clone(),
                    other => other.to_string(),
                }),
                _ => None,
            };
            Answer::Unknown(reason.unwrap_or_else(|| "unknown".into()))
        }
        other => return Err(SolverError(format!("unexpected answer from {}: {other}", flavour.name()))),
    };
    Ok(Some(answer))
}

impl Solver for SmtLibSolver {
    fn load(&mut self, script: &Script) -> Result<(), SolverError> {
        self.running.iter_mut().for_each(|running| *running = None);
        self.gave_up.iter_mut().for_each(|gave_up| *gave_up = false);
        self.script = Some(format!("{}{script}", self.flavour.preamble(&self.limits)));
        // Start the first configuration now, so that a missing solver is reported at once.
        self.session(0).map(|_| ())
    }

    /// Asks each configuration in turn until one decides; `unknown` only when none does, with the
    /// first one's reason.
    fn check(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        self.alone = None;
        if let Some(cancelled) = self.limits.cancelled() {
            return Ok(cancelled);
        }
        let literals: Vec<String> = assumptions
            .iter()
            .map(|(name, value)| {
                let symbol = super::symbol_text(name);
                if *value {
                    symbol
                } else {
                    format!("(not {symbol})")
                }
            })
            .collect();
        let literals = literals.join(" ");
        let mut first_reason = None;
        for configuration in 0..self.configurations.len() {
            match self.check_with(configuration, &literals)? {
                Answer::Unknown(reason) => {
                    first_reason.get_or_insert(reason);
                }
                decided => {
                    self.answered_by = configuration;
                    return Ok(decided);
                }
            }
        }
        Ok(Answer::Unknown(first_reason.unwrap_or_else(|| "unknown".into())))
    }

    /// z3 bounds one check by `(set-option :rlimit N)`; cvc5 takes its resource limit only on its
    /// command line, so it does not bound a single check.
    fn check_within(
        &mut self,
        assumptions: &[(String, bool)],
        resource_limit: u64,
    ) -> Result<Option<Answer>, SolverError> {
        if self.flavour != Flavour::Z3 {
            return Ok(None);
        }
        let configured = self.limits.resource_limit;
        let bound = if configured > 0 { configured.min(resource_limit) } else { resource_limit };
        self.fresh_session(0)?.send(&format!("(set-option :rlimit {bound})\n"))?;
        let answer = self.check(assumptions);
        if let Some(running) = self.running[0].as_mut().filter(|_| !self.gave_up[0]) {
            running.send(&format!("(set-option :rlimit {configured})\n"))?;
        }
        answer.map(Some)
    }

    /// A fresh session of the first configuration, given the script and the assumptions as
    /// facts, and one plain `check-sat`.
    fn check_alone(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        if let Some(cancelled) = self.limits.cancelled() {
            return Ok(cancelled);
        }
        let script = self.script.clone().ok_or_else(|| SolverError("no script loaded".into()))?;
        let mut running = self.start(0)?;
        let mut text = script;
        for (name, value) in assumptions {
            let symbol = super::symbol_text(name);
            text.push_str(&if *value { format!("(assert {symbol})\n") } else { format!("(assert (not {symbol}))\n") });
        }
        text.push_str("(check-sat)\n");
        running.send(&text)?;
        let wait = self.limits.timeout + Duration::from_secs(1);
        let answer = read_answer(&mut running, wait, self.flavour)?;
        self.alone = Some(running);
        Ok(answer.unwrap_or_else(|| Answer::Unknown("timeout".into())))
    }

    fn values(&mut self, terms: &[Term]) -> Result<Vec<Value>, SolverError> {
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = terms.iter().map(Term::to_string).collect();
        let wait = self.limits.timeout + Duration::from_secs(1);
        let flavour = self.flavour;
        let running = match self.alone.as_mut() {
            Some(alone) => alone,
            None => self.session(self.answered_by)?,
        };
        running.send(&format!("(get-value ({}))\n", list.join(" ")))?;
        match running.receive(wait, flavour)? {
            Some(Sexp::List(pairs)) if pairs.len() == terms.len() => pairs
                .iter()
                .map(|pair| match pair {
                    Sexp::List(items) if items.len() == 2 => Ok(sexp::value(&items[1])),
                    other => Err(SolverError(format!("unexpected value {other}"))),
                })
                .collect(),
            other => Err(SolverError(format!("unexpected answer to get-value: {other:?}"))),
        }
    }
}
