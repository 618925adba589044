//! SMT terms and scripts: what the VC generator produces and every solver consumes.
//!
//! [`Script`] prints as SMT-LIB 2 for any solver that reads it ([`smtlib`], whatever carries the
//! text: a process, or JavaScript in the browser); the in-process z3 backend builds the same
//! terms through z3's API instead of parsing text. A [`Solver`] is the narrow interface both offer:
//! load a script, check it under assumptions, read values from the model.

pub mod process;
pub mod sexp;
pub mod smtlib;
#[cfg(feature = "z3-native")]
pub mod z3_native;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed};
use std::fmt::{self, Write};
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sort {
    Bool,
    Int,
    Real,
    Array(Box<Sort>, Box<Sort>),
}

/// The operators of the terms, with their SMT-LIB names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Not,
    And,
    Or,
    Implies,
    Eq,
    Ite,
    Add,
    Sub,
    Neg,
    Mul,
    /// Integer division, Euclidean.
    IntDiv,
    /// Euclidean remainder.
    Mod,
    RealDiv,
    Lt,
    Le,
    Gt,
    Ge,
    Select,
    Store,
    ToReal,
    /// An uninterpreted (or axiomatised) function.
    Apply(String),
    /// The array of this (array) sort that holds its one operand everywhere.
    ConstArray(Sort),
}

impl Op {
    fn smtlib(&self) -> &str {
        match self {
            Op::Not => "not",
            Op::And => "and",
            Op::Or => "or",
            Op::Implies => "=>",
            Op::Eq => "=",
            Op::Ite => "ite",
            Op::Add => "+",
            Op::Sub | Op::Neg => "-",
            Op::Mul => "*",
            Op::IntDiv => "div",
            Op::Mod => "mod",
            Op::RealDiv => "/",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Select => "select",
            Op::Store => "store",
            Op::ToReal => "to_real",
            Op::Apply(name) => name,
            Op::ConstArray(_) => "const",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    Bool(bool),
    Int(BigInt),
    Real(BigRational),
    /// A declared constant, or a variable bound by an enclosing quantifier.
    Symbol(String),
    App(Op, Vec<Term>),
    Quantifier {
        forall: bool,
        bound: Vec<(String, Sort)>,
        patterns: Vec<Vec<Term>>,
        body: Box<Term>,
    },
    /// The array that maps the bound variable to the body.
    Lambda {
        bound: (String, Sort),
        body: Box<Term>,
    },
}

impl Term {
    pub fn symbol(name: impl Into<String>) -> Term {
        Term::Symbol(name.into())
    }

    pub fn app(op: Op, args: Vec<Term>) -> Term {
        Term::App(op, args)
    }

    pub fn negation(term: Term) -> Term {
        Term::App(Op::Not, vec![term])
    }

    pub fn implies(lhs: Term, rhs: Term) -> Term {
        Term::App(Op::Implies, vec![lhs, rhs])
    }

    pub fn eq(lhs: Term, rhs: Term) -> Term {
        Term::App(Op::Eq, vec![lhs, rhs])
    }

    /// Whether one of `names` occurs in the term as a symbol (bound by a quantifier of the term's
    /// or free: the walk does not tell them apart).
    pub fn mentions(&self, names: &[impl AsRef<str>]) -> bool {
        match self {
            Term::Symbol(name) => names.iter().any(|candidate| candidate.as_ref() == name),
            Term::App(_, args) => args.iter().any(|arg| arg.mentions(names)),
            Term::Quantifier { body, .. } | Term::Lambda { body, .. } => body.mentions(names),
            Term::Bool(_) | Term::Int(_) | Term::Real(_) => false,
        }
    }

    /// Adds the symbols the term mentions free (not those its quantifiers and lambdas bind).
    pub fn symbols<'t>(&'t self, found: &mut std::collections::HashSet<&'t str>) {
        fn walk<'t>(term: &'t Term, bound: &mut Vec<&'t str>, found: &mut std::collections::HashSet<&'t str>) {
            match term {
                Term::Bool(_) | Term::Int(_) | Term::Real(_) => {}
                Term::Symbol(name) => {
                    if !bound.contains(&name.as_str()) {
                        found.insert(name);
                    }
                }
                Term::App(_, args) => args.iter().for_each(|arg| walk(arg, bound, found)),
                Term::Quantifier { bound: bindings, patterns, body, .. } => {
                    let depth = bound.len();
                    bound.extend(bindings.iter().map(|(name, _)| name.as_str()));
                    patterns.iter().flatten().for_each(|pattern| walk(pattern, bound, found));
                    walk(body, bound, found);
                    bound.truncate(depth);
                }
                Term::Lambda { bound: (name, _), body } => {
                    bound.push(name);
                    walk(body, bound, found);
                    bound.pop();
                }
            }
        }
        walk(self, &mut Vec::new(), found);
    }

    /// Adds the functions the term applies.
    pub fn functions<'t>(&'t self, found: &mut std::collections::HashSet<&'t str>) {
        match self {
            Term::Bool(_) | Term::Int(_) | Term::Real(_) | Term::Symbol(_) => {}
            Term::App(op, args) => {
                if let Op::Apply(name) = op {
                    found.insert(name);
                }
                args.iter().for_each(|arg| arg.functions(found));
            }
            Term::Quantifier { patterns, body, .. } => {
                patterns.iter().flatten().for_each(|pattern| pattern.functions(found));
                body.functions(found);
            }
            Term::Lambda { body, .. } => body.functions(found),
        }
    }

    /// The conjunction, without the noise of `(and)` and `(and x)`.
    pub fn and(mut terms: Vec<Term>) -> Term {
        terms.retain(|term| *term != Term::Bool(true));
        match terms.len() {
            0 => Term::Bool(true),
            1 => terms.remove(0),
            _ => Term::App(Op::And, terms),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    DeclareConst(String, Sort),
    DeclareFun(String, Vec<Sort>, Sort),
    Assert(Term),
}

/// Declarations and assertions, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    pub commands: Vec<Command>,
}

impl Script {
    /// The asserted terms, in order.
    pub fn assertions(&self) -> impl Iterator<Item = &Term> {
        self.commands.iter().filter_map(|command| match command {
            Command::Assert(term) => Some(term),
            _ => None,
        })
    }
}

/// A symbol as SMT-LIB writes it: plain when it can be, `|quoted|` otherwise.
pub fn symbol_text(name: &str) -> String {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "~!@$%^&*_-+=<>.?/".contains(c));
    if plain {
        name.to_string()
    } else {
        format!("|{name}|")
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => f.write_str("Bool"),
            Sort::Int => f.write_str("Int"),
            Sort::Real => f.write_str("Real"),
            Sort::Array(domain, range) => write!(f, "(Array {domain} {range})"),
        }
    }
}

fn write_real(f: &mut impl Write, value: &BigRational) -> fmt::Result {
    let magnitude = value.abs();
    let text = if magnitude.denom().is_one() {
        format!("{}.0", magnitude.numer())
    } else {
        format!("(/ {}.0 {}.0)", magnitude.numer(), magnitude.denom())
    };
    if value.is_negative() {
        write!(f, "(- {text})")
    } else {
        f.write_str(&text)
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Bool(value) => write!(f, "{value}"),
            Term::Int(value) if value.is_negative() => write!(f, "(- {})", -value),
            Term::Int(value) => write!(f, "{value}"),
            Term::Real(value) => write_real(f, value),
            Term::Symbol(name) => f.write_str(&symbol_text(name)),
            Term::App(op, args) if args.is_empty() => f.write_str(&symbol_text(op.smtlib())),
            Term::App(op, args) => {
                let name = match op {
                    Op::Apply(name) => symbol_text(name),
                    Op::ConstArray(sort) => format!("(as const {sort})"),
                    other => other.smtlib().to_string(),
                };
                write!(f, "({name}")?;
                for arg in args {
                    write!(f, " {arg}")?;
                }
                f.write_str(")")
            }
            Term::Lambda { bound: (name, sort), body } => write!(f, "(lambda (({} {sort})) {body})", symbol_text(name)),
            Term::Quantifier { forall, bound, patterns, body } => {
                let keyword = if *forall { "forall" } else { "exists" };
                write!(f, "({keyword} (")?;
                for (index, (name, sort)) in bound.iter().enumerate() {
                    if index > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "({} {sort})", symbol_text(name))?;
                }
                f.write_str(") ")?;
                if patterns.is_empty() {
                    write!(f, "{body})")
                } else {
                    write!(f, "(! {body}")?;
                    for pattern in patterns {
                        f.write_str(" :pattern (")?;
                        for (index, term) in pattern.iter().enumerate() {
                            if index > 0 {
                                f.write_str(" ")?;
                            }
                            write!(f, "{term}")?;
                        }
                        f.write_str(")")?;
                    }
                    f.write_str("))")
                }
            }
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::DeclareConst(name, sort) => {
                write!(f, "(declare-const {} {sort})", symbol_text(name))
            }
            Command::DeclareFun(name, domain, range) => {
                write!(f, "(declare-fun {} (", symbol_text(name))?;
                for (index, sort) in domain.iter().enumerate() {
                    if index > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{sort}")?;
                }
                write!(f, ") {range})")
            }
            Command::Assert(term) => write!(f, "(assert {term})"),
        }
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for command in &self.commands {
            writeln!(f, "{command}")?;
        }
        Ok(())
    }
}

/// A solver's answer to one check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Sat,
    Unsat,
    /// Neither: a timeout, a resource limit, or an incomplete theory. Never taken as either.
    Unknown(String),
}

/// A value from a model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Bool(bool),
    Int(BigInt),
    Real(BigRational),
    /// Anything else (an array, say), as the solver wrote it.
    Other(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(value) => write!(f, "{value}"),
            Value::Int(value) => write!(f, "{value}"),
            Value::Real(value) => write!(f, "{value}"),
            Value::Other(text) => f.write_str(text),
        }
    }
}

/// How many rounds of model-based quantifier instantiation z3 may spend looking for a model: a
/// counterexample to a simple quantified fact is found in a round or two, while a model the
/// solver cannot build (of `f(x) > x` for all `x`, say) would otherwise take it to the time limit.
/// Past this bound, the answer is `unknown`: undecided, never verified.
pub const Z3_MODEL_ROUNDS: u32 = 10;

/// How many rewriting steps z3 may spend evaluating one term in a model. Debian's z3 4.8.12 can
/// take minutes and tens of gigabytes to evaluate a single heap read in some models (a one-token
/// mutant of `odd_even_sort_global.pvl` took 10 GB and 26 s for `H_ev_in[lid]`); past this bound the
/// evaluation fails, a counterexample value is left out, and a check whose failure cannot be read
/// off the model is undecided. A step count, not a time, so the answer is the same on every
/// machine. A million steps take well under a second.
pub const Z3_MODEL_EVALUATION_STEPS: u32 = 1_000_000;

/// Limits and randomness of each check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time per check.
    pub timeout: Duration,
    /// z3's `rlimit` (cvc5's `rlimit-per`): a deterministic bound on work, per check. 0: none.
    pub resource_limit: u64,
    /// The solver's random seed.
    pub seed: u32,
    /// Set from another thread, stops the check in flight (the in-process z3; a solver process
    /// finishes its check) and answers every later one `unknown`: how a language server drops a
    /// verification its user has typed past. The answers are undecided, never failed.
    pub cancel: Option<Cancel>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { timeout: Duration::from_secs(10), resource_limit: 0, seed: 0, cancel: None }
    }
}

impl Limits {
    /// The answer every check gets once the checks are cancelled.
    pub fn cancelled(&self) -> Option<Answer> {
        self.cancel.as_ref().filter(|cancel| cancel.is_cancelled()).map(|_| Answer::Unknown(CANCELLED.to_string()))
    }
}

/// The reason of an `unknown` answer to a cancelled check.
pub const CANCELLED: &str = "cancelled";

/// A flag shared by whoever may cancel a verification and the solvers that run it.
#[derive(Clone, Debug, Default)]
pub struct Cancel(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Two flags are the same when they are one flag.
impl PartialEq for Cancel {
    fn eq(&self, other: &Cancel) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Cancel {}

/// Something went wrong with the solver itself (not with the program being checked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverError(pub String);

impl fmt::Display for SolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The narrow interface to a solver.
pub trait Solver {
    /// Does ahead of the first [`Solver::load`] what it would do first, and what it costs most
    /// to start with (z3: making the context and the solver), so that it can be done while
    /// the caller still reads its input. The outcomes of the checks are the same either way.
    fn prepare(&mut self) {}
    /// Starts afresh with the declarations and assertions of `script`.
    fn load(&mut self, script: &Script) -> Result<(), SolverError>;
    /// Checks satisfiability with the given Boolean constants assumed true or false.
    fn check(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError>;
    /// Like [`Solver::check`], for one last try at a query the incremental check left open: a
    /// solver may decide it from scratch, with the assumptions as facts, where its incremental
    /// mode could not (z3 then eliminates lambdas and macros before searching).
    fn check_alone(&mut self, assumptions: &[(String, bool)]) -> Result<Answer, SolverError> {
        self.check(assumptions)
    }
    /// Like [`Solver::check`], with the solver's work bounded by `resource_limit` of its
    /// deterministic units; `None` if the backend cannot bound it so.
    fn check_within(
        &mut self,
        _assumptions: &[(String, bool)],
        _resource_limit: u64,
    ) -> Result<Option<Answer>, SolverError> {
        Ok(None)
    }
    /// The values of `terms` in the model of the last check, which answered `Sat`.
    fn values(&mut self, terms: &[Term]) -> Result<Vec<Value>, SolverError>;
    /// Makes the fresh checks of [`Solver::check_alone`] use the configured seed plus `offset`:
    /// another deterministic search, for a query the solver gave up on (`unknown` short of its
    /// limits). A solver without seeds ignores it.
    fn vary_seed(&mut self, _offset: u32) {}
    /// The work of every check so far, in the solver's deterministic resource units (z3's rlimit
    /// count), if it reports them: equal from run to run exactly when the solver's searches are.
    fn resources_used(&self) -> Option<u64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_print_as_smtlib() {
        let x = Term::symbol("x@1");
        let quoted = Term::symbol("a'b");
        let select = Term::app(Op::Select, vec![Term::symbol("H"), Term::Int(BigInt::from(-2))]);
        let term = Term::and(vec![Term::eq(x, select), Term::negation(quoted), Term::Bool(true)]);
        assert_eq!(term.to_string(), "(and (= x@1 (select H (- 2))) (not |a'b|))");
        assert_eq!(Term::Real(BigRational::new((-1).into(), 3.into())).to_string(), "(- (/ 1.0 3.0))");
        let forall = Term::Quantifier {
            forall: true,
            bound: vec![("i".into(), Sort::Int)],
            patterns: vec![vec![Term::app(Op::Apply("f".into()), vec![Term::symbol("i")])]],
            body: Box::new(Term::Bool(true)),
        };
        assert_eq!(forall.to_string(), "(forall ((i Int)) (! true :pattern ((f i))))");
    }
}
