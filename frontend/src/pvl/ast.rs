//! The syntax tree: what the parser builds, with spans and unresolved names.
//!
//! It carries no meaning beyond the text: names are strings, the separating `*` is only an operator,
//! and every question of scope and type is left to [`crate::pvl::resolve`]. Expressions and statements
//! record their nesting depth so that the parser can refuse input nested deeper than the later
//! recursive passes can walk (see [`MAX_DEPTH`]).

use lockstep_logic::Span;
use num_bigint::BigInt;

/// The deepest nesting of expressions or statements accepted. Kernels nest a handful of levels;
/// the limit keeps every recursive pass over the tree far from the end of a thread's stack.
pub const MAX_DEPTH: u32 = 200;

#[derive(Clone, Debug)]
pub struct File {
    pub items: Vec<Item>,
    /// Whether `tid`, `gid`, `lid`, `tcount`, `gsize` and the per-axis ids and sizes are reserved
    /// names, as in PVL. An OpenCL or CUDA kernel names them in its own words (`threadIdx.x`,
    /// `get_local_size(0)`), which its lowering turns into [`ExprKind::Builtin`], and leaves these
    /// names to the program (`int tid = threadIdx.x;`).
    pub reserved_names: bool,
}

#[derive(Clone, Debug)]
pub enum Item {
    Function(FunctionDecl),
    Kernel(KernelDecl),
    /// Text the parser skipped after a syntax error; already reported.
    Error,
}

#[derive(Clone, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    Int,
    Bool,
    Void,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub ty: TypeName,
    pub ty_span: Span,
    pub name: Ident,
}

#[derive(Clone, Debug)]
pub struct FunctionDecl {
    pub result: TypeName,
    pub result_span: Span,
    pub name: Ident,
    pub params: Vec<Param>,
    pub clauses: Vec<Clause>,
    /// The `decreases` clauses (a function has at most one; the resolver says so).
    pub decreases: Vec<Decreases>,
    pub body: Expr,
    pub span: Span,
}

/// `decreases e;`: the measure a recursive function's calls make smaller.
#[derive(Clone, Debug)]
pub struct Decreases {
    pub measure: Expr,
    pub span: Span,
}

/// A clause of a pure function as written, before the parser sorts them.
pub enum FunctionClause {
    Contract(Clause),
    Decreases(Decreases),
}

#[derive(Clone, Debug)]
pub struct KernelDecl {
    pub name: Ident,
    pub params: Vec<Param>,
    pub members: Vec<Member>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySpace {
    Global,
    Local,
}

#[derive(Clone, Debug)]
pub enum Member {
    /// `global int[size] a, b;`
    Arrays {
        memory: MemorySpace,
        element: TypeName,
        element_span: Span,
        size: Expr,
        names: Vec<Ident>,
        /// Whether accesses are checked against `size` ([`lockstep_logic::Array::bounded`]): always
        /// in PVL.
        bounded: bool,
        span: Span,
    },
    Clause(Clause),
    /// `void main() { ... }`
    Main {
        result: TypeName,
        result_span: Span,
        name: Ident,
        params: Vec<Param>,
        body: Block,
        span: Span,
    },
    Error,
}

/// Whose contract a clause belongs to, as written before `requires`/`ensures`.
pub use lockstep_logic::outline::Level;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClauseKind {
    Requires,
    Ensures,
    /// `context R;`: `requires R; ensures R;`, as VerCors writes it.
    Context,
    Invariant,
    /// A loop invariant that is only a candidate ([`lockstep_logic::Kernel::candidate_invariants`]),
    /// as the C frontend reads GPUVerify's `__candidate_invariant(e)`.
    CandidateInvariant,
}

impl ClauseKind {
    pub fn keyword(self) -> &'static str {
        match self {
            ClauseKind::Requires => "requires",
            ClauseKind::Ensures => "ensures",
            ClauseKind::Context => "context",
            ClauseKind::Invariant | ClauseKind::CandidateInvariant => "invariant",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Clause {
    pub level: Level,
    pub kind: ClauseKind,
    pub formula: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    pub depth: u32,
}

/// A fence name as written: `local`, `global`, or anything else (an error found later).
pub type FenceName = Ident;

#[derive(Clone, Debug)]
pub enum StmtKind {
    Declare {
        ty: TypeName,
        ty_span: Span,
        name: Ident,
        init: Option<Expr>,
    },
    Assign {
        target: Ident,
        value: Expr,
    },
    Write {
        target: Ident,
        index: Expr,
        value: Expr,
    },
    If {
        cond: Expr,
        then_branch: Box<Stmt>,
        else_branch: Option<Box<Stmt>>,
    },
    While {
        invariants: Vec<Clause>,
        cond: Expr,
        body: Box<Stmt>,
    },
    /// `fences` is `None` for a label without fences, `barrier(1)`, refused as ambiguous.
    Barrier {
        label: Option<(BigInt, Span)>,
        fences: Option<Vec<FenceName>>,
        clauses: Vec<Clause>,
    },
    Assert(Expr),
    Assume(Expr),
    Block(Block),
    /// A `requires`/`ensures` clause where a statement was expected (Fig. 5.9 has one after
    /// `barrier(2,){}`); reported by the resolver with a hint.
    StrayClause(Clause),
    /// Text the parser skipped after a syntax error; already reported.
    Error,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// The separating conjunction, written `*` (next to a permission) or `**`.
    Star,
    Implies,
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Mod,
    /// `a \ b`: a fraction, always rational.
    Fraction,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Star => "**",
            BinaryOp::Implies => "->",
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Mod => "mod",
            BinaryOp::Fraction => "\\",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantifierKind {
    Forall,
    Exists,
    /// `\forall*`, the iterated separating conjunction.
    ForallStar,
}

/// `perm(loc, N)` counts in percent; `Perm(loc, q)` takes a fraction, `read` or `write`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermStyle {
    Percent,
    Fraction,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(BigInt),
    Bool(bool),
    /// The amount keywords `read` and `write`.
    Read,
    Write,
    Result,
    Name(String),
    /// An id or size of the launch, named in the source language's words.
    Builtin(lockstep_logic::Builtin),
    /// The exact result of a signed machine operation, which must lie in the type's range
    /// ([`lockstep_logic::ExprKind::InRange`]); made by the C lowering and by `--int32`.
    InRange {
        value: Box<Expr>,
        int: lockstep_logic::MachineInt,
    },
    /// An index into a private array of `length` cells, which must lie in `[0, length)`
    /// ([`lockstep_logic::ExprKind::PrivateIndex`]); made by the C lowering.
    PrivateIndex {
        index: Box<Expr>,
        length: u32,
    },
    /// The value the thread's increment `site` of `counter[cell]` returns
    /// ([`lockstep_logic::ExprKind::Ticket`]); made by the C lowering.
    Ticket {
        counter: Ident,
        cell: Box<Expr>,
        site: u32,
        int: lockstep_logic::MachineInt,
    },
    Index {
        array: Ident,
        index: Box<Expr>,
    },
    Call {
        function: Ident,
        args: Vec<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cond {
        cond: Box<Expr>,
        then_value: Box<Expr>,
        else_value: Box<Expr>,
    },
    Quantifier {
        kind: QuantifierKind,
        ty: TypeName,
        ty_span: Span,
        var: Ident,
        range: Box<Expr>,
        body: Box<Expr>,
    },
    Old(Box<Expr>),
    /// `\sum(int j; range; body)`: the sum of `body` over the integers `j` in `range`.
    Sum {
        ty: Option<(TypeName, Span)>,
        var: Ident,
        range: Box<Expr>,
        body: Box<Expr>,
    },
    Perm {
        style: PermStyle,
        location: Box<Expr>,
        amount: Box<Expr>,
    },
}

/// A node nested deeper than [`MAX_DEPTH`].
#[derive(Clone, Debug, PartialEq)]
pub struct TooDeep {
    pub span: Span,
}

/// The depth of a node whose deepest child has `child_depth`, unless that is deeper than
/// [`MAX_DEPTH`].
pub fn depth_of(child_depth: u32, span: Span) -> Result<u32, TooDeep> {
    let depth = 1 + child_depth;
    if depth > MAX_DEPTH {
        return Err(TooDeep { span });
    }
    Ok(depth)
}

impl ExprKind {
    /// The expressions directly inside this one.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Read
            | ExprKind::Write
            | ExprKind::Result
            | ExprKind::Name(_)
            | ExprKind::Builtin(_) => vec![],
            ExprKind::Index { index, .. } => vec![index],
            ExprKind::Call { args, .. } => args.iter().collect(),
            ExprKind::Unary { operand, .. }
            | ExprKind::Old(operand)
            | ExprKind::InRange { value: operand, .. }
            | ExprKind::PrivateIndex { index: operand, .. }
            | ExprKind::Ticket { cell: operand, .. } => vec![operand],
            ExprKind::Binary { lhs, rhs, .. } => vec![lhs, rhs],
            ExprKind::Cond { cond, then_value, else_value } => vec![cond, then_value, else_value],
            ExprKind::Quantifier { range, body, .. } | ExprKind::Sum { range, body, .. } => vec![range, body],
            ExprKind::Perm { location, amount, .. } => vec![location, amount],
        }
    }
}

impl Expr {
    /// Builds a node, refusing one nested deeper than [`MAX_DEPTH`].
    pub fn new(kind: ExprKind, span: Span) -> Result<Expr, TooDeep> {
        let depth = depth_of(kind.children().iter().map(|child| child.depth).max().unwrap_or(0), span)?;
        Ok(Expr { kind, span, depth })
    }

    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Result<Expr, TooDeep> {
        let span = lhs.span.to(rhs.span);
        Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span)
    }
}

impl StmtKind {
    fn depth(&self) -> u32 {
        let stmt_depth = |stmt: &Stmt| stmt.depth;
        match self {
            StmtKind::If { then_branch, else_branch, .. } => {
                then_branch.depth.max(else_branch.as_deref().map_or(0, stmt_depth))
            }
            StmtKind::While { body, .. } => body.depth,
            StmtKind::Block(block) => block.stmts.iter().map(stmt_depth).max().unwrap_or(0),
            _ => 0,
        }
    }
}

impl Stmt {
    /// Builds a statement, refusing one nested deeper than [`MAX_DEPTH`].
    pub fn new(kind: StmtKind, span: Span) -> Result<Stmt, TooDeep> {
        let depth = depth_of(kind.depth(), span)?;
        Ok(Stmt { kind, span, depth })
    }
}
