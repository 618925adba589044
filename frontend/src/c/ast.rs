//! The syntax tree of an OpenCL C or CUDA file: what the parser builds, with spans.
//!
//! It is C's shape, not lockstep's: declarations with specifiers and declarators, expressions
//! with side effects, and the annotations as VerCors writes them. [`crate::c::lower`] gives it
//! lockstep's meaning. Nodes record their nesting depth, as PVL's do, so that the parser refuses
//! input nested deeper than the later recursive passes can walk.

use lockstep_logic::Span;
use num_bigint::BigInt;

use crate::pvl::ast::depth_of;
pub use crate::pvl::ast::{Ident, TooDeep};

#[derive(Clone, Debug)]
pub struct File {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Function(Function),
    /// A declaration at file scope: a `__constant` array, a prototype, a global variable.
    Declaration(Declaration),
    /// An annotation that belongs to no function (one after the last function).
    Annotation(Annotation),
    /// Text the parser skipped after a syntax error; already reported.
    Error,
}

/// A word before a declaration that is not its type: an address space, `__global__`, `const`, ...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qualifier {
    /// `__kernel`, `kernel` or `__global__`: an entry point.
    Kernel,
    /// `__device__`: a helper function of CUDA.
    Device,
    Host,
    /// `__global`, `global`.
    Global,
    /// `__local`, `local`.
    Local,
    /// `__shared__`.
    Shared,
    /// `__constant`, `constant`, `__constant__`.
    Constant,
    /// `__private`, `private`.
    Private,
    Const,
    Volatile,
    Restrict,
    Static,
    Inline,
    Extern,
    /// `typedef`: the declaration names types, not variables ([`crate::c::structs`]).
    Typedef,
}

/// A C type name without its pointers and arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseType {
    Void,
    Bool,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Half,
    SizeT,
}

#[derive(Clone, Debug)]
pub struct TypeSpec {
    pub base: BaseType,
    /// `unsigned` (or `uint`, `uchar`, ...), as opposed to signed or unsaid.
    pub unsigned: bool,
    /// How many components a value has: 1 for a scalar, 2 to 16 for a vector (`float4`).
    pub width: u32,
    /// A struct type or a `typedef` name, which [`crate::c::structs`] replaces before the
    /// lowering; `base` means nothing then.
    pub named: Option<NamedType>,
    /// Whether a struct or `typedef` name came with other type words (`unsigned T`, or a
    /// `typedef` of a name already declared as a type), which C does not allow.
    pub mixed: bool,
    pub span: Span,
}

/// A type that is not an arithmetic type's keyword.
#[derive(Clone, Debug)]
pub enum NamedType {
    Struct(Box<StructType>),
    /// A name that a `typedef` declared.
    Typedef(Ident),
}

/// `struct tag { fields }`, `struct { fields }` or `struct tag` (fields declared elsewhere).
#[derive(Clone, Debug)]
pub struct StructType {
    pub tag: Option<Ident>,
    pub fields: Option<Vec<Field>>,
    pub span: Span,
}

/// A line of a struct's fields: `int x, y;`.
#[derive(Clone, Debug)]
pub struct Field {
    pub specifiers: Specifiers,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// A word of a type as written: `unsigned long int` is three.
#[derive(Clone, Debug)]
pub enum TypeWord {
    /// A base type, and whether the word itself makes it unsigned (`uint`, `size_t`).
    Base(BaseType, bool),
    /// A vector type (`uint4`): its component type, whether that is unsigned, and its width.
    Vector(BaseType, bool, u32),
    Unsigned,
    Signed,
    Named(NamedType),
}

/// A word of a declaration's specifiers, as the parser meets it.
#[derive(Clone, Debug)]
pub enum SpecWord {
    Qualifier(Qualifier, Span),
    Type(TypeWord, Span),
}

/// The type that type words name together: `unsigned` alone is `unsigned int`, `long int` is
/// `long`, and a declaration without a type word is `int`, as in C89.
pub fn type_spec(words: Vec<SpecWord>, span: Span) -> TypeSpec {
    let mut base = None;
    let mut unsigned = false;
    let mut width = 1;
    let mut named = None;
    let mut other_words = false;
    let mut type_span: Option<Span> = None;
    for word in words {
        let SpecWord::Type(word, word_span) = word else { continue };
        type_span = Some(type_span.map_or(word_span, |seen| seen.to(word_span)));
        match word {
            TypeWord::Unsigned => {
                unsigned = true;
                other_words = true;
            }
            TypeWord::Signed => other_words = true,
            TypeWord::Named(found) => {
                other_words |= named.is_some();
                named = Some(found);
            }
            TypeWord::Vector(found, is_unsigned, found_width) => {
                other_words = true;
                unsigned |= is_unsigned;
                width = found_width;
                base = Some(found);
            }
            TypeWord::Base(found, is_unsigned) => {
                other_words = true;
                unsigned |= is_unsigned;
                // `long int` and `short int` are `long` and `short`.
                if !(found == BaseType::Int && matches!(base, Some(BaseType::Long | BaseType::Short))) {
                    base = Some(found);
                }
            }
        }
    }
    let mixed = named.is_some() && other_words;
    TypeSpec { base: base.unwrap_or(BaseType::Int), unsigned, width, named, mixed, span: type_span.unwrap_or(span) }
}

/// The type word of a vector type's name (`uint4`), which the lexer recognised.
pub fn vector_word(name: &str) -> TypeWord {
    let (base, unsigned, width) = arithmetic_type_name(name).unwrap_or((BaseType::Int, false, 1));
    TypeWord::Vector(base, unsigned, width)
}

/// The component type, signedness and width that OpenCL's name of an arithmetic type gives:
/// `uint4` is `(Int, true, 4)` and `float` is `(Float, false, 1)`.
pub fn arithmetic_type_name(name: &str) -> Option<(BaseType, bool, u32)> {
    let digits = name.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let width = match digits {
        "" => 1,
        _ => digits.parse().ok().filter(|width| [2, 3, 4, 8, 16].contains(width))?,
    };
    let scalar = &name[..name.len() - digits.len()];
    let (unsigned, base) = match scalar.strip_prefix('u') {
        Some(integer @ ("char" | "short" | "int" | "long")) => (true, integer),
        _ => (false, scalar),
    };
    let base = match base {
        "char" => BaseType::Char,
        "short" => BaseType::Short,
        "int" => BaseType::Int,
        "long" => BaseType::Long,
        "float" => BaseType::Float,
        "double" => BaseType::Double,
        "half" => BaseType::Half,
        _ => return None,
    };
    Some((base, unsigned, width))
}

/// The name of a type as C spells it, for diagnostics: `unsigned int`, `float4`, `struct s`.
pub(super) fn type_name(ty: &TypeSpec) -> String {
    match &ty.named {
        Some(NamedType::Struct(structure)) => {
            return structure.tag.as_ref().map_or("struct".to_string(), |tag| format!("struct {}", tag.name));
        }
        Some(NamedType::Typedef(name)) => return name.name.clone(),
        None => {}
    }
    let base = match ty.base {
        BaseType::Void => "void",
        BaseType::Bool => "bool",
        BaseType::Char => "char",
        BaseType::Short => "short",
        BaseType::Int => "int",
        BaseType::Long => "long",
        BaseType::Float => "float",
        BaseType::Double => "double",
        BaseType::Half => "half",
        BaseType::SizeT => return "size_t".to_string(),
    };
    match (ty.unsigned, ty.width) {
        (false, 1) => base.to_string(),
        (true, 1) => format!("unsigned {base}"),
        (false, width) => format!("{base}{width}"),
        (true, width) => format!("u{base}{width}"),
    }
}

/// Sorts the words of a declaration into its qualifiers and its type.
pub fn specifiers(words: Vec<SpecWord>, span: Span) -> Specifiers {
    let qualifiers = words
        .iter()
        .filter_map(|word| match word {
            SpecWord::Qualifier(qualifier, span) => Some((*qualifier, *span)),
            SpecWord::Type(..) => None,
        })
        .collect();
    Specifiers { qualifiers, ty: type_spec(words, span), span }
}

#[derive(Clone, Debug)]
pub struct Specifiers {
    pub qualifiers: Vec<(Qualifier, Span)>,
    pub ty: TypeSpec,
    pub span: Span,
}

impl Specifiers {
    pub fn has(&self, qualifier: Qualifier) -> bool {
        self.qualifiers.iter().any(|(found, _)| *found == qualifier)
    }
}

/// The part of a declaration that names one thing: `*p`, `a[16]`, `s[]`.
#[derive(Clone, Debug)]
pub struct Declarator {
    /// How many `*` stand before the name.
    pub pointers: usize,
    pub name: Ident,
    /// The array dimensions, outermost first; `None` for `[]`.
    pub dimensions: Vec<Option<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Declaration {
    pub specifiers: Specifiers,
    pub declarators: Vec<(Declarator, Option<Expr>)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub specifiers: Specifiers,
    pub declarator: Declarator,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub specifiers: Specifiers,
    /// How many `*` stand before the name: the result is a pointer.
    pub pointers: usize,
    pub name: Ident,
    pub params: Vec<Param>,
    /// `None` for a prototype.
    pub body: Option<Block>,
    pub span: Span,
}

/// A `/*@ ... @*/` or `//@` comment: its clauses.
#[derive(Clone, Debug)]
pub struct Annotation {
    pub clauses: Vec<SpecClause>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecKind {
    Requires,
    Ensures,
    Context,
    LoopInvariant,
    Assert,
    Assume,
}

impl SpecKind {
    pub fn keyword(self) -> &'static str {
        match self {
            SpecKind::Requires => "requires",
            SpecKind::Ensures => "ensures",
            SpecKind::Context => "context",
            SpecKind::LoopInvariant => "loop_invariant",
            SpecKind::Assert => "assert",
            SpecKind::Assume => "assume",
        }
    }
}

#[derive(Clone, Debug)]
pub enum SpecClause {
    Clause {
        kind: SpecKind,
        formula: Expr,
        span: Span,
    },
    /// A clause whose keyword lockstep does not know (`ghost`, `given`, `context_everywhere`, ...).
    Unknown {
        keyword: Ident,
        span: Span,
    },
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

#[derive(Clone, Debug)]
pub enum StmtKind {
    Declaration(Declaration),
    Expr(Expr),
    If {
        cond: Expr,
        then_branch: Box<Stmt>,
        else_branch: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// `switch`, `goto`, a label: refused by the lowering, which names them.
    Unsupported(&'static str),
    Block(Block),
    /// An annotation between statements: the contract of the barrier or loop after it, or
    /// `assert`s.
    Annotation(Annotation),
    Empty,
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
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddressOf,
    PreIncrement,
    PreDecrement,
    PostIncrement,
    PostDecrement,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
    /// `==>`, annotations only.
    Implies,
    /// `**`, annotations only.
    Star,
    /// `q \ d`, annotations only.
    Fraction,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Implies => "==>",
            BinaryOp::Star => "**",
            BinaryOp::Fraction => "\\",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantifierKind {
    Forall,
    ForallStar,
    Exists,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int {
        value: BigInt,
        unsigned: bool,
    },
    Float(String),
    Bool(bool),
    Name(String),
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Call {
        function: Ident,
        args: Vec<Expr>,
    },
    /// `s.x`, and `p->x`.
    Member {
        base: Box<Expr>,
        field: Ident,
        arrow: bool,
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
    /// `x = e` (`op` is `None`) and `x op= e`.
    Assign {
        op: Option<BinaryOp>,
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Cond {
        cond: Box<Expr>,
        then_value: Box<Expr>,
        else_value: Box<Expr>,
    },
    Cast {
        ty: TypeSpec,
        pointers: usize,
        operand: Box<Expr>,
    },
    SizeofType {
        ty: TypeSpec,
        pointers: usize,
    },
    SizeofExpr(Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    String,
    /// `{a, b, c}`, the initializer of an array.
    InitList(Vec<Expr>),
    // Annotations only.
    Quantifier {
        kind: QuantifierKind,
        ty: TypeSpec,
        var: Ident,
        range: Option<Box<Expr>>,
        body: Box<Expr>,
    },
    Old(Box<Expr>),
    Perm {
        location: Box<Expr>,
        amount: Box<Expr>,
    },
    Read,
    Write,
    Result,
    Gtid,
    Ltid,
    /// `\pointer_length(a)`, `\shared_mem_size(s)`, `\pointer_index(a, i, q)`, and any other
    /// `\word(...)`.
    Backslash {
        word: Ident,
        args: Vec<Expr>,
    },
}

impl ExprKind {
    fn child_depth(&self) -> u32 {
        self.children().iter().map(|child| child.depth).max().unwrap_or(0)
    }

    /// The expressions directly inside this one.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            ExprKind::Int { .. }
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Name(_)
            | ExprKind::SizeofType { .. }
            | ExprKind::String
            | ExprKind::Read
            | ExprKind::Write
            | ExprKind::Result
            | ExprKind::Gtid
            | ExprKind::Ltid => Vec::new(),
            ExprKind::Index { base, index } => vec![base, index],
            ExprKind::Call { args, .. } | ExprKind::Backslash { args, .. } | ExprKind::InitList(args) => {
                args.iter().collect()
            }
            ExprKind::Member { base, .. } => vec![base],
            ExprKind::Unary { operand, .. }
            | ExprKind::Cast { operand, .. }
            | ExprKind::SizeofExpr(operand)
            | ExprKind::Old(operand) => vec![operand],
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Comma(lhs, rhs) => vec![lhs, rhs],
            ExprKind::Assign { target, value, .. } => vec![target, value],
            ExprKind::Cond { cond, then_value, else_value } => vec![cond, then_value, else_value],
            ExprKind::Quantifier { range, body, .. } => range.iter().map(|range| &**range).chain([&**body]).collect(),
            ExprKind::Perm { location, amount } => vec![location, amount],
        }
    }
}

impl ExprKind {
    /// The expressions directly inside this one, to change them.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            ExprKind::Int { .. }
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Name(_)
            | ExprKind::SizeofType { .. }
            | ExprKind::String
            | ExprKind::Read
            | ExprKind::Write
            | ExprKind::Result
            | ExprKind::Gtid
            | ExprKind::Ltid => Vec::new(),
            ExprKind::Index { base, index } => vec![base, index],
            ExprKind::Call { args, .. } | ExprKind::Backslash { args, .. } | ExprKind::InitList(args) => {
                args.iter_mut().collect()
            }
            ExprKind::Member { base, .. } => vec![base],
            ExprKind::Unary { operand, .. }
            | ExprKind::Cast { operand, .. }
            | ExprKind::SizeofExpr(operand)
            | ExprKind::Old(operand) => vec![operand],
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Comma(lhs, rhs) => vec![lhs, rhs],
            ExprKind::Assign { target, value, .. } => vec![target, value],
            ExprKind::Cond { cond, then_value, else_value } => vec![cond, then_value, else_value],
            ExprKind::Quantifier { range, body, .. } => {
                range.iter_mut().map(|range| &mut **range).chain([&mut **body]).collect()
            }
            ExprKind::Perm { location, amount } => vec![location, amount],
        }
    }
}

impl Expr {
    /// Builds a node, refusing one nested deeper than [`crate::pvl::ast::MAX_DEPTH`].
    pub fn new(kind: ExprKind, span: Span) -> Result<Expr, TooDeep> {
        Ok(Expr { span, depth: depth_of(kind.child_depth(), span)?, kind })
    }

    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Result<Expr, TooDeep> {
        let span = lhs.span.to(rhs.span);
        Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span)
    }

    /// The literal `value`, of type `int` where it fits (a leaf).
    pub fn int(value: impl Into<BigInt>, span: Span) -> Expr {
        Expr { kind: ExprKind::Int { value: value.into(), unsigned: false }, span, depth: 1 }
    }
}

impl StmtKind {
    fn child_depth(&self) -> u32 {
        let depth = |stmt: &Stmt| stmt.depth;
        match self {
            StmtKind::If { then_branch, else_branch, .. } => {
                then_branch.depth.max(else_branch.as_deref().map_or(0, depth))
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => body.depth,
            StmtKind::For { init, body, .. } => body.depth.max(init.as_deref().map_or(0, depth)),
            StmtKind::Block(block) => block.stmts.iter().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
}

impl Stmt {
    /// Builds a statement, refusing one nested deeper than [`crate::pvl::ast::MAX_DEPTH`].
    pub fn new(kind: StmtKind, span: Span) -> Result<Stmt, TooDeep> {
        Ok(Stmt { span, depth: depth_of(kind.child_depth(), span)?, kind })
    }

    /// GPUVerify's `__requires(e);` or `__ensures(e);`, or a `__global_` one, which open a
    /// function's body: its name and formula.
    pub fn gpuverify_clause(&self) -> Option<(&str, &Expr)> {
        let StmtKind::Expr(Expr { kind: ExprKind::Call { function, args }, .. }) = &self.kind else { return None };
        let name = function.name.as_str();
        match args.as_slice() {
            [formula] if matches!(name, "__requires" | "__global_requires" | "__ensures" | "__global_ensures") => {
                Some((name, formula))
            }
            _ => None,
        }
    }
}
