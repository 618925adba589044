//! z3 in this process, through its C library (the `z3` crate): the default solver.
//!
//! Terms are built through z3's API rather than parsed from text, so nothing is printed and
//! re-read on the fast path. Model values come back as z3 prints them (SMT-LIB) and are read with
//! the same reader as a solver process's answers, so both backends give the same [`Value`]s.

use super::sexp;
use super::{Answer, Cancel, Command, Limits, Op, Script, Solver, SolverError, Sort, Term, Value};
use std::collections::BTreeMap;
use z3::ast::{Array, Ast, Bool, Dynamic, Int, Real};
use z3::{FuncDecl, Params, Pattern, SatResult};

pub struct Z3Solver {
    limits: Limits,
    solver: Option<z3::Solver>,
    /// The script's assertions, for a fresh solver in [`Solver::check_alone`].
    assertions: Vec<Bool>,
    /// The solver of the last [`Solver::check_alone`], whose model `values` reads.
    alone: Option<z3::Solver>,
    /// Set when the incremental solver was stopped by a limit (time or resources): it is rebuilt
    /// from `assertions` before the next check. After a resource limit, z3 4.8's incremental
    /// solver has answered later checks `sat` with models that break the script (a launch with
    /// `gsize = 0`); nothing it learnt before giving up may decide a later check
    /// (`proofs/vcgen.md`, V7).
    gave_up: bool,
    /// Ordered maps: they are cleared for each script, and the order z3 objects are freed in
    /// decides which ids z3 recycles for the next terms, which steers its search. A hash map's
    /// order changes from run to run.
    constants: BTreeMap<String, Dynamic>,
    functions: BTreeMap<String, FuncDecl>,
    /// The rlimit count of every check so far ([`Solver::resources_used`]).
    used: u64,
    /// Added to the seed of the fresh solvers of [`Solver::check_alone`] ([`Solver::vary_seed`]).
    seed_offset: u32,
    /// Set by [`Solver::prepare`]: the incremental solver has an empty scope pushed, which the
    /// first [`Solver::load`] fills.
    prepared: bool,
    /// The rlimit the incremental solver was last given (0: none). Setting a z3 parameter costs
    /// some milliseconds (z3 validates it against every module's parameters), as much as a small
    /// script's check, so it is set only when a check needs another.
    rlimit_in_force: u64,
}

impl Z3Solver {
    pub fn new(limits: Limits) -> Z3Solver {
        // Global, so set once, before the first solver exists (z3's global parameters are not
        // meant to change while other threads use it).
        static EVALUATION_BOUND: std::sync::Once = std::sync::Once::new();
        EVALUATION_BOUND.call_once(|| {
            z3::set_global_param("model_evaluator.max_steps", &super::Z3_MODEL_EVALUATION_STEPS.to_string());
        });
        Z3Solver {
            limits,
            solver: None,
            assertions: Vec::new(),
            alone: None,
            gave_up: false,
            constants: BTreeMap::new(),
            functions: BTreeMap::new(),
            used: 0,
            seed_offset: 0,
            prepared: false,
            rlimit_in_force: 0,
        }
    }

    fn fresh_solver(&self) -> z3::Solver {
        let solver = z3::Solver::new();
        let mut params = Params::new();
        params.set_u32("mbqi.max_iterations", super::Z3_MODEL_ROUNDS);
        params.set_u32("random_seed", self.limits.seed);
        if self.limits.resource_limit > 0 {
            params.set_u32("rlimit", u32::try_from(self.limits.resource_limit).unwrap_or(u32::MAX));
        }
        solver.set_params(&params);
        solver
    }

    /// Gives `solver` the assertions of the loaded script.
    fn assert_script(&self, solver: &z3::Solver) {
        for assertion in &self.assertions {
            solver.assert(assertion);
        }
    }
}

fn z3_sort(sort: &Sort) -> z3::Sort {
    match sort {
        Sort::Bool => z3::Sort::bool(),
        Sort::Int => z3::Sort::int(),
        Sort::Real => z3::Sort::real(),
        Sort::Array(domain, range) => z3::Sort::array(&z3_sort(domain), &z3_sort(range)),
    }
}

fn error(message: impl Into<String>) -> SolverError {
    SolverError(message.into())
}

/// Builds z3 terms, with the variables of the enclosing quantifiers in scope.
struct Builder<'s> {
    constants: &'s BTreeMap<String, Dynamic>,
    functions: &'s BTreeMap<String, FuncDecl>,
    /// The variables of the enclosing binders, innermost last (in order, as for `constants`).
    bound: Vec<Vec<(String, Dynamic)>>,
}

fn as_bool(term: &Dynamic) -> Result<Bool, SolverError> {
    term.as_bool().ok_or_else(|| error(format!("expected a Bool term, found {term}")))
}

fn as_array(term: &Dynamic) -> Result<Array, SolverError> {
    term.as_array().ok_or_else(|| error(format!("expected an array term, found {term}")))
}

/// Applies an arithmetic operator to int or real operands.
fn arithmetic(
    args: &[Dynamic],
    on_ints: impl Fn(&[Int]) -> Dynamic,
    on_reals: impl Fn(&[Real]) -> Dynamic,
) -> Result<Dynamic, SolverError> {
    if let Some(ints) = args.iter().map(Dynamic::as_int).collect::<Option<Vec<_>>>() {
        return Ok(on_ints(&ints));
    }
    if let Some(reals) = args.iter().map(Dynamic::as_real).collect::<Option<Vec<_>>>() {
        return Ok(on_reals(&reals));
    }
    Err(error("arithmetic on operands that are neither all Int nor all Real"))
}

impl Builder<'_> {
    fn term(&mut self, term: &Term) -> Result<Dynamic, SolverError> {
        Ok(match term {
            Term::Bool(value) => Dynamic::from_ast(&Bool::from_bool(*value)),
            Term::Int(value) => {
                let int: Int = value.to_string().parse().map_err(|_| error("bad integer"))?;
                Dynamic::from_ast(&int)
            }
            Term::Real(value) => {
                let real = Real::from_rational_str(&value.numer().to_string(), &value.denom().to_string())
                    .ok_or_else(|| error("bad real"))?;
                Dynamic::from_ast(&real)
            }
            Term::Symbol(name) => self
                .bound
                .iter()
                .rev()
                .find_map(|frame| frame.iter().find(|(bound, _)| bound == name).map(|(_, variable)| variable))
                .or_else(|| self.constants.get(name))
                .cloned()
                .ok_or_else(|| error(format!("undeclared symbol {name}")))?,
            Term::App(op, args) => {
                let args = args.iter().map(|arg| self.term(arg)).collect::<Result<Vec<_>, _>>()?;
                self.apply(op, &args)?
            }
            Term::Lambda { bound: (name, sort), body } => {
                let variable = Dynamic::new_const(name.as_str(), &z3_sort(sort));
                self.bound.push(vec![(name.clone(), variable.clone())]);
                let built = self.term(body);
                self.bound.pop();
                Dynamic::from_ast(&z3::ast::lambda_const(&[&variable as &dyn Ast], &built?))
            }
            Term::Quantifier { forall, bound, patterns, body } => {
                let frame: Vec<(String, Dynamic)> = bound
                    .iter()
                    .map(|(name, sort)| (name.clone(), Dynamic::new_const(name.as_str(), &z3_sort(sort))))
                    .collect();
                let variables: Vec<Dynamic> = frame.iter().map(|(_, variable)| variable.clone()).collect();
                self.bound.push(frame);
                let built = self.quantifier(*forall, &variables, patterns, body);
                self.bound.pop();
                built?
            }
        })
    }

    fn quantifier(
        &mut self,
        forall: bool,
        variables: &[Dynamic],
        patterns: &[Vec<Term>],
        body: &Term,
    ) -> Result<Dynamic, SolverError> {
        let body = as_bool(&self.term(body)?)?;
        let patterns = patterns
            .iter()
            .map(|terms| {
                let terms = terms.iter().map(|term| self.term(term)).collect::<Result<Vec<_>, _>>()?;
                let refs: Vec<&dyn Ast> = terms.iter().map(|term| term as &dyn Ast).collect();
                Ok(Pattern::new(&refs))
            })
            .collect::<Result<Vec<_>, SolverError>>()?;
        let bounds: Vec<&dyn Ast> = variables.iter().map(|variable| variable as &dyn Ast).collect();
        let pattern_refs: Vec<&Pattern> = patterns.iter().collect();
        let quantified = if forall {
            z3::ast::forall_const(&bounds, &pattern_refs, &body)
        } else {
            z3::ast::exists_const(&bounds, &pattern_refs, &body)
        };
        Ok(Dynamic::from_ast(&quantified))
    }

    fn apply(&self, op: &Op, args: &[Dynamic]) -> Result<Dynamic, SolverError> {
        let arg = |index: usize| args.get(index).ok_or_else(|| error(format!("missing operand of {op:?}")));
        let bools = || args.iter().map(as_bool).collect::<Result<Vec<_>, _>>();
        Ok(match op {
            Op::Not => Dynamic::from_ast(&as_bool(arg(0)?)?.not()),
            Op::And => Dynamic::from_ast(&Bool::and(&bools()?)),
            Op::Or => Dynamic::from_ast(&Bool::or(&bools()?)),
            Op::Implies => Dynamic::from_ast(&as_bool(arg(0)?)?.implies(as_bool(arg(1)?)?)),
            Op::Eq => Dynamic::from_ast(&arg(0)?.eq(arg(1)?)),
            Op::Ite => as_bool(arg(0)?)?.ite(arg(1)?, arg(2)?),
            Op::Add => arithmetic(args, |a| Dynamic::from_ast(&Int::add(a)), |a| Dynamic::from_ast(&Real::add(a)))?,
            Op::Sub => arithmetic(args, |a| Dynamic::from_ast(&Int::sub(a)), |a| Dynamic::from_ast(&Real::sub(a)))?,
            Op::Mul => arithmetic(args, |a| Dynamic::from_ast(&Int::mul(a)), |a| Dynamic::from_ast(&Real::mul(a)))?,
            Op::Neg => arithmetic(
                args,
                |a| Dynamic::from_ast(&a[0].unary_minus()),
                |a| Dynamic::from_ast(&a[0].unary_minus()),
            )?,
            Op::IntDiv => {
                arithmetic(args, |a| Dynamic::from_ast(&a[0].div(&a[1])), |a| Dynamic::from_ast(&a[0].div(&a[1])))?
            }
            Op::Mod => arithmetic(
                args,
                |a| Dynamic::from_ast(&a[0].modulo(&a[1])),
                |_| Dynamic::from_ast(&Bool::from_bool(false)),
            )?,
            Op::RealDiv => {
                arithmetic(args, |a| Dynamic::from_ast(&a[0].div(&a[1])), |a| Dynamic::from_ast(&a[0].div(&a[1])))?
            }
            Op::Lt => arithmetic(args, |a| Dynamic::from_ast(&a[0].lt(&a[1])), |a| Dynamic::from_ast(&a[0].lt(&a[1])))?,
            Op::Le => arithmetic(args, |a| Dynamic::from_ast(&a[0].le(&a[1])), |a| Dynamic::from_ast(&a[0].le(&a[1])))?,
            Op::Gt => arithmetic(args, |a| Dynamic::from_ast(&a[0].gt(&a[1])), |a| Dynamic::from_ast(&a[0].gt(&a[1])))?,
            Op::Ge => arithmetic(args, |a| Dynamic::from_ast(&a[0].ge(&a[1])), |a| Dynamic::from_ast(&a[0].ge(&a[1])))?,
            Op::Select => as_array(arg(0)?)?.select(arg(1)?),
            Op::Store => Dynamic::from_ast(&as_array(arg(0)?)?.store(arg(1)?, arg(2)?)),
            Op::ToReal => {
                let int = arg(0)?.as_int().ok_or_else(|| error("to_real of a non-Int term"))?;
                Dynamic::from_ast(&int.to_real())
            }
            Op::ConstArray(sort) => {
                let Sort::Array(domain, _) = sort else { return Err(error(format!("constant array of sort {sort}"))) };
                Dynamic::from_ast(&z3::ast::Array::const_array(&z3_sort(domain), arg(0)?))
            }
            Op::Apply(name) => {
                let function = self.functions.get(name).ok_or_else(|| error(format!("undeclared function {name}")))?;
                let refs: Vec<&dyn Ast> = args.iter().map(|arg| arg as &dyn Ast).collect();
                function.apply(&refs)
            }
        })
    }
}

impl Solver for Z3Solver {
    fn prepare(&mut self) {
        if self.solver.is_none() {
            self.rlimit_in_force = self.limits.resource_limit;
            let solver = self.fresh_solver();
            // z3 builds its default tactic at a solver's first push: most of what a solver costs.
            solver.push();
            self.solver = Some(solver);
            self.gave_up = false;
            self.prepared = true;
        }
    }

    fn load(&mut self, script: &Script) -> Result<(), SolverError> {
        // One solver serves every script loaded into this value, each in a scope of its own:
        // making a z3 solver costs milliseconds, as much as a small script's check.
        if self.solver.is_none() || self.gave_up {
            self.solver = None;
            self.prepare();
        }
        let solver = self.solver.take().expect("a solver was just prepared");
        if !std::mem::take(&mut self.prepared) {
            solver.pop(1);
            solver.push();
        }
        self.assertions.clear();
        self.constants.clear();
        self.functions.clear();
        for command in &script.commands {
            match command {
                Command::DeclareConst(name, sort) => {
                    self.constants.insert(name.clone(), Dynamic::new_const(name.as_str(), &z3_sort(sort)));
                }
                Command::DeclareFun(name, domain, range) => {
                    let domain: Vec<z3::Sort> = domain.iter().map(z3_sort).collect();
                    let refs: Vec<&z3::Sort> = domain.iter().collect();
                    self.functions.insert(name.clone(), FuncDecl::new(name.as_str(), &refs, &z3_sort(range)));
                }
                Command::Assert(term) => {
                    let mut builder =
                        Builder { constants: &self.constants, functions: &self.functions, bound: Vec::new() };
                    let assertion = as_bool(&builder.term(term)?)?;
                    solver.assert(&assertion);
                    self.assertions.push(assertion);
                }
            }
        }
        self.solver = Some(solver);
        Ok(())
    }

    fn check_alone(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        if let Some(cancelled) = self.limits.cancelled() {
            return Ok(cancelled);
        }
        let solver = self.fresh_solver();
        if self.seed_offset > 0 {
            let mut params = Params::new();
            params.set_u32("random_seed", self.limits.seed.wrapping_add(self.seed_offset));
            solver.set_params(&params);
        }
        self.assert_script(&solver);
        for (name, value) in assumptions {
            let constant = Bool::new_const(name.as_str());
            solver.assert(if *value { constant } else { constant.not() });
        }
        let answer = answer(&solver, within(&self.limits, || solver.check()), &self.limits);
        self.used += rlimit_count(&solver);
        // The model of this answer is the one `values` reads, until the next check.
        self.alone = Some(solver);
        Ok(answer)
    }

    fn check(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        self.alone = None;
        if let Some(cancelled) = self.limits.cancelled() {
            return Ok(cancelled);
        }
        if self.gave_up {
            let solver = self.fresh_solver();
            self.rlimit_in_force = self.limits.resource_limit;
            // The scope that the next `load` pops.
            solver.push();
            self.assert_script(&solver);
            self.solver = Some(solver);
            self.gave_up = false;
        }
        let solver = self.solver.as_ref().ok_or_else(|| error("no script loaded"))?;
        if self.rlimit_in_force != self.limits.resource_limit {
            let mut params = Params::new();
            params.set_u32("rlimit", u32::try_from(self.limits.resource_limit).unwrap_or(u32::MAX));
            solver.set_params(&params);
            self.rlimit_in_force = self.limits.resource_limit;
        }
        let literals: Vec<Bool> = assumptions
            .iter()
            .map(|(name, value)| {
                let constant = Bool::new_const(name.as_str());
                if *value {
                    constant
                } else {
                    constant.not()
                }
            })
            .collect();
        // A solver's count grows over its life, which spans many scripts.
        let before = rlimit_count(solver);
        let (result, interrupted) = within(&self.limits, || solver.check_assumptions(&literals));
        let answer = answer(solver, (result, interrupted), &self.limits);
        let spent = rlimit_count(solver).saturating_sub(before);
        self.used += spent;
        // Stopped by a limit, z3 leaves its search half done; an `unknown` of incompleteness
        // (quantifiers) leaves a consistent state, whose later answers are as good as a fresh
        // solver's (and are checked against the script all the same). Rebuilt lazily, so that
        // `values` can still read the candidate model of this `unknown`.
        let limit = self.limits.resource_limit;
        let stopped = interrupted || (limit > 0 && spent >= limit);
        self.gave_up = stopped && matches!(answer, Answer::Unknown(_));
        Ok(answer)
    }

    fn check_within(
        &mut self,
        assumptions: &[(String, bool)],
        resource_limit: u64,
    ) -> Result<Option<Answer>, SolverError> {
        let configured = self.limits.resource_limit;
        let bound = if configured > 0 { configured.min(resource_limit) } else { resource_limit };
        // `check` gives the solver this bound, and the next check without one the configured
        // limit again.
        self.limits.resource_limit = bound;
        let answer = self.check(assumptions);
        self.limits.resource_limit = configured;
        answer.map(Some)
    }

    fn vary_seed(&mut self, offset: u32) {
        self.seed_offset = offset;
    }

    fn resources_used(&self) -> Option<u64> {
        Some(self.used)
    }

    fn values(&mut self, terms: &[Term]) -> Result<Vec<Value>, SolverError> {
        let solver = self.alone.as_ref().or(self.solver.as_ref()).ok_or_else(|| error("no script loaded"))?;
        let model = solver.get_model().ok_or_else(|| error("z3 has no model"))?;
        let mut builder = Builder { constants: &self.constants, functions: &self.functions, bound: Vec::new() };
        terms
            .iter()
            .map(|term| {
                let built = builder.term(term)?;
                let evaluated = model.eval(&built, true).ok_or_else(|| error(format!("cannot evaluate {term}")))?;
                let text = evaluated.to_string();
                Ok(match sexp::read(&format!("{text}\n")) {
                    Some((value, _)) => sexp::value(&value),
                    None => Value::Other(text),
                })
            })
            .collect()
    }
}

/// The resources a solver has used so far: z3's rlimit count, which grows with the work of its
/// checks and does not depend on the machine's speed.
fn rlimit_count(solver: &z3::Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(count)) => u64::from(count),
        _ => 0,
    }
}

/// Runs a check with a time limit enforced by interrupting z3 from a watchdog thread, which also
/// interrupts it when the checks are cancelled ([`Limits::cancel`]). z3's own `timeout` parameter
/// is not used: in Debian's z3 4.8.12 its timer can deadlock when a timer expires (z3 issues #5369
/// to #5371 and #5990), which hung the test suite. An interrupted check answers `unknown`
/// ("canceled"), which is undecided.
fn within(limits: &Limits, check: impl FnOnce() -> SatResult) -> (SatResult, bool) {
    // How often the watchdog looks at the cancel flag: the delay before typing stops a check.
    const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(20);
    let context = z3::Context::thread_local();
    let handle = context.handle();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let interrupted = std::sync::atomic::AtomicBool::new(false);
    let deadline = std::time::Instant::now() + limits.timeout;
    let answer = std::thread::scope(|scope| {
        let interrupted = &interrupted;
        let cancel = limits.cancel.as_ref();
        scope.spawn(move || {
            let mut wait = if cancel.is_some() { CANCEL_POLL.min(limits.timeout) } else { limits.timeout };
            // Interrupt again and again until the check ends: an interrupt that lands before z3
            // has started the check (or between its phases) would otherwise be lost.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(wait) {
                let now = std::time::Instant::now();
                if now >= deadline || cancel.is_some_and(Cancel::is_cancelled) {
                    interrupted.store(true, std::sync::atomic::Ordering::SeqCst);
                    handle.interrupt();
                    wait = std::time::Duration::from_millis(10);
                } else {
                    wait = (deadline - now).min(if cancel.is_some() { CANCEL_POLL } else { limits.timeout });
                }
            }
        });
        let answer = check();
        // Wakes the watchdog, which then ends without interrupting.
        drop(done);
        answer
    });
    (answer, interrupted.load(std::sync::atomic::Ordering::SeqCst))
}

/// The answer of a check run [`within`] a time limit. A check the watchdog interrupted is
/// `unknown` whatever z3 answered: an interrupt that lands while z3 builds its model leaves a
/// `sat` whose model is not one.
fn answer(solver: &z3::Solver, (result, interrupted): (SatResult, bool), limits: &Limits) -> Answer {
    match result {
        _ if interrupted => limits
            .cancelled()
            .unwrap_or_else(|| Answer::Unknown(format!("timeout after {} s", limits.timeout.as_secs_f64()))),
        SatResult::Sat => Answer::Sat,
        SatResult::Unsat => Answer::Unsat,
        SatResult::Unknown => Answer::Unknown(solver.get_reason_unknown().unwrap_or_else(|| "unknown".into())),
    }
}
