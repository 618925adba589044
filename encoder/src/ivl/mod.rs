//! The intermediate verification language (IVL): the subset of Boogie 2.4 that the encoding needs.
//!
//! A [`Program`] holds constants, functions (with optional definitions), axioms, global variables
//! and procedures with `requires`/`ensures`/`modifies`. Procedure bodies are structured commands:
//! assignment (also to a map cell), `havoc`, `assume`, `assert`, `if`, `while` with invariants and
//! `call`. Every check (an `assert`, a `requires` at each call, an `ensures`, an invariant) may carry
//! an opaque tag chosen by whoever built the program; results come back keyed by it.
//!
//! The text form is Boogie: [`print::program`] writes it (deterministically, byte for byte) and [`parse::program`]
//! reads it back, so tests can be written as small Boogie programs and real Boogie can check the
//! same text. A tag prints as the attribute `{:tag "..."}`, which Boogie ignores.

pub mod check;
mod lexer;
pub mod parse;
pub mod print;

use num_bigint::BigInt;
use num_rational::BigRational;

/// Where a construct stands in a parsed text: 1-based line and column. Programs built in memory
/// have no positions (`Position::NONE`); the printer assigns lines when it writes them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl Position {
    pub const NONE: Position = Position { line: 0, column: 0 };
}

/// A Boogie type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int,
    Bool,
    Real,
    /// `[domain]range`, e.g. a heap `[int]int` or a permission mask `[int]real`.
    Map(Box<Type>, Box<Type>),
}

impl Type {
    pub fn map(domain: Type, range: Type) -> Type {
        Type::Map(Box::new(domain), Box::new(range))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Boogie's `div`: integer division, Euclidean as in SMT-LIB.
    Div,
    /// Boogie's `mod`: the Euclidean remainder, in `[0, |d|)`.
    Mod,
    /// Boogie's `/`: real division.
    RealDiv,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Implies,
    Iff,
}

impl BinaryOp {
    pub fn boogie(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "div",
            BinaryOp::Mod => "mod",
            BinaryOp::RealDiv => "/",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Implies => "==>",
            BinaryOp::Iff => "<==>",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Forall,
    Exists,
}

/// A Boogie expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(BigInt),
    Real(BigRational),
    Bool(bool),
    Var(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `map[index]`.
    Select(Box<Expr>, Box<Expr>),
    /// `map[index := value]`.
    Store(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call of a declared function, or of the conversion `real(e)`.
    Call(String, Vec<Expr>),
    IfThenElse(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `old(e)`: `e` in the state where the procedure (or the called procedure) started.
    Old(Box<Expr>),
    /// `(lambda i: T :: body)`: the map that gives `body` at every `i`. A map defined this way
    /// needs no quantified assumption: the solver reads it by substitution (a constant body is
    /// SMT-LIB's constant array), which keeps permission masks free of quantifiers.
    Lambda {
        bound: Binding,
        body: Box<Expr>,
    },
    Quantified {
        quantifier: Quantifier,
        bound: Vec<Binding>,
        triggers: Vec<Vec<Expr>>,
        body: Box<Expr>,
    },
}

impl Expr {
    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var(name.into())
    }

    pub fn int(value: i64) -> Expr {
        Expr::Int(BigInt::from(value))
    }

    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(lhs), Box::new(rhs))
    }

    pub fn negation(operand: Expr) -> Expr {
        Expr::Unary(UnaryOp::Not, Box::new(operand))
    }

    pub fn select(map: Expr, index: Expr) -> Expr {
        Expr::Select(Box::new(map), Box::new(index))
    }
}

/// A name with its type: a parameter, a variable, a constant or a bound variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub name: String,
    pub ty: Type,
}

impl Binding {
    pub fn new(name: impl Into<String>, ty: Type) -> Binding {
        Binding { name: name.into(), ty }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub declarations: Vec<Declaration>,
    /// Where each declaration starts, for a parsed program (empty for one built in memory).
    pub positions: Vec<Position>,
}

impl Program {
    pub fn new(declarations: Vec<Declaration>) -> Program {
        Program { declarations, positions: Vec::new() }
    }

    /// Where the declaration at `index` starts, if the program was parsed.
    pub fn position(&self, index: usize) -> Position {
        self.positions.get(index).copied().unwrap_or(Position::NONE)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Declaration {
    Const(Binding),
    Function(Function),
    Axiom(Expr),
    /// A quantified theorem about the program's functions that the VC generator instantiates
    /// itself, at the ground terms of each query that match its triggers, rather than handing it
    /// to the solver's matching, where it would loop (`axiom {:ground} e;`; V9 in
    /// `proofs/vcgen.md`).
    Lemma(Expr),
    /// A global variable.
    Var(Binding),
    Procedure(Procedure),
}

/// An uninterpreted function, or a defined one when it has a body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Binding>,
    pub result: Type,
    pub body: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Procedure {
    pub name: String,
    pub params: Vec<Binding>,
    pub returns: Vec<Binding>,
    pub requires: Vec<Spec>,
    pub ensures: Vec<Spec>,
    /// The global variables the procedure may change.
    pub modifies: Vec<String>,
    /// `None` for a procedure without implementation: only its contract is used, at calls.
    pub body: Option<Body>,
    pub position: Position,
}

/// A `requires`, `ensures` or loop invariant. A `free` one is assumed and never checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub free: bool,
    pub expr: Expr,
    pub tag: Option<String>,
    /// For a free `requires`: the procedures whose verification shows it, `{:proved_by "p", ...}`.
    /// [`crate::run`] verifies them first and assumes the spec only if every check of every one of
    /// them verified; real Boogie ignores the attribute and assumes the spec.
    pub proved_by: Vec<String>,
    pub position: Position,
}

impl Spec {
    pub fn checked(expr: Expr, tag: impl Into<String>) -> Spec {
        Spec { free: false, expr, tag: Some(tag.into()), proved_by: Vec::new(), position: Position::NONE }
    }

    /// A free `requires` that holds because the procedures `proved_by` verify.
    pub fn proved_by(expr: Expr, proved_by: Vec<String>) -> Spec {
        Spec { free: true, expr, tag: None, proved_by, position: Position::NONE }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub locals: Vec<Binding>,
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub position: Position,
}

impl Stmt {
    pub fn new(kind: StmtKind) -> Stmt {
        Stmt { kind, position: Position::NONE }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x := e;`, or `m[i] := e;` when `indices` is not empty (`m := m[i := e]`).
    Assign {
        target: String,
        indices: Vec<Expr>,
        value: Expr,
    },
    Havoc(Vec<String>),
    Assume(Expr),
    /// `assert e;`, after which `e` is assumed (a failed check is reported once, as in Boogie);
    /// with `assumed: false`, Boogie's `assert {:subsumption 0} e;`, after which it is not, so
    /// that the checks after a failed one are still decided on every path.
    Assert {
        expr: Expr,
        tag: Option<String>,
        assumed: bool,
    },
    /// `if (c) {...} else {...}`; a condition of `None` is Boogie's `*`, either branch.
    If {
        cond: Option<Expr>,
        then_branch: Vec<Stmt>,
        else_branch: Vec<Stmt>,
    },
    /// `while (c) invariant ...; {...}`; a condition of `None` is `*`.
    While {
        cond: Option<Expr>,
        invariants: Vec<Spec>,
        body: Vec<Stmt>,
    },
    /// `call x, y := p(args);`
    Call {
        targets: Vec<String>,
        procedure: String,
        args: Vec<Expr>,
    },
}

impl Expr {
    /// Visits the expression and every expression inside it (triggers included), outermost first.
    pub fn walk<'e>(&'e self, visit: &mut impl FnMut(&'e Expr)) {
        visit(self);
        match self {
            Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) | Expr::Var(_) => {}
            Expr::Unary(_, operand) | Expr::Old(operand) | Expr::Lambda { body: operand, .. } => operand.walk(visit),
            Expr::Binary(_, lhs, rhs) | Expr::Select(lhs, rhs) => {
                lhs.walk(visit);
                rhs.walk(visit);
            }
            Expr::Store(first, second, third) | Expr::IfThenElse(first, second, third) => {
                first.walk(visit);
                second.walk(visit);
                third.walk(visit);
            }
            Expr::Call(_, args) => args.iter().for_each(|arg| arg.walk(visit)),
            Expr::Quantified { triggers, body, .. } => {
                triggers.iter().flatten().for_each(|term| term.walk(visit));
                body.walk(visit);
            }
        }
    }
}

impl Program {
    /// Visits every expression of the program, as [`Expr::walk`] does.
    pub fn walk_expressions<'p>(&'p self, visit: &mut impl FnMut(&'p Expr)) {
        for declaration in &self.declarations {
            match declaration {
                Declaration::Const(_) | Declaration::Var(_) => {}
                Declaration::Axiom(expr) | Declaration::Lemma(expr) => expr.walk(visit),
                Declaration::Function(function) => function.body.iter().for_each(|body| body.walk(visit)),
                Declaration::Procedure(procedure) => {
                    for spec in procedure.requires.iter().chain(&procedure.ensures) {
                        spec.expr.walk(visit);
                    }
                    procedure.body.iter().for_each(|body| walk_statements(&body.stmts, visit));
                }
            }
        }
    }
}

/// Visits every expression of the statements, as [`Expr::walk`] does.
pub fn walk_statements<'p>(stmts: &'p [Stmt], visit: &mut impl FnMut(&'p Expr)) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Assign { indices, value, .. } => indices.iter().chain([value]).for_each(|expr| expr.walk(visit)),
            StmtKind::Havoc(_) => {}
            StmtKind::Assume(expr) | StmtKind::Assert { expr, .. } => expr.walk(visit),
            StmtKind::If { cond, then_branch, else_branch } => {
                cond.iter().for_each(|cond| cond.walk(visit));
                walk_statements(then_branch, visit);
                walk_statements(else_branch, visit);
            }
            StmtKind::While { cond, invariants, body } => {
                cond.iter().for_each(|cond| cond.walk(visit));
                invariants.iter().for_each(|spec| spec.expr.walk(visit));
                walk_statements(body, visit);
            }
            StmtKind::Call { args, .. } => args.iter().for_each(|arg| arg.walk(visit)),
        }
    }
}

/// Replaces free variables by expressions. Bound variables shadow; the replacements must not
/// mention a variable bound where they land (the callers' replacements are fresh names).
pub fn substitute(expr: &Expr, renaming: &std::collections::HashMap<String, Expr>) -> Expr {
    let go = |inner: &Expr| substitute(inner, renaming);
    match expr {
        Expr::Var(name) => renaming.get(name).cloned().unwrap_or_else(|| expr.clone()),
        Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) => expr.clone(),
        Expr::Unary(op, operand) => Expr::Unary(*op, Box::new(go(operand))),
        Expr::Binary(op, lhs, rhs) => Expr::Binary(*op, Box::new(go(lhs)), Box::new(go(rhs))),
        Expr::Select(map, index) => Expr::Select(Box::new(go(map)), Box::new(go(index))),
        Expr::Store(map, index, value) => Expr::Store(Box::new(go(map)), Box::new(go(index)), Box::new(go(value))),
        Expr::Call(name, args) => Expr::Call(name.clone(), args.iter().map(go).collect()),
        Expr::IfThenElse(cond, then_value, else_value) => {
            Expr::IfThenElse(Box::new(go(cond)), Box::new(go(then_value)), Box::new(go(else_value)))
        }
        Expr::Old(value) => Expr::Old(Box::new(go(value))),
        Expr::Lambda { bound, body } => {
            let mut inner = renaming.clone();
            inner.remove(&bound.name);
            Expr::Lambda { bound: bound.clone(), body: Box::new(substitute(body, &inner)) }
        }
        Expr::Quantified { quantifier, bound, triggers, body } => {
            let mut inner = renaming.clone();
            for binding in bound {
                inner.remove(&binding.name);
            }
            Expr::Quantified {
                quantifier: *quantifier,
                bound: bound.clone(),
                triggers: triggers
                    .iter()
                    .map(|terms| terms.iter().map(|term| substitute(term, &inner)).collect())
                    .collect(),
                body: Box::new(substitute(body, &inner)),
            }
        }
    }
}
