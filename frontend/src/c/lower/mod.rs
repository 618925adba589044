//! The lowering of OpenCL C and CUDA: the C syntax tree becomes a kernel of the surface language
//! that PVL parses into ([`crate::pvl::ast`]), which the resolver then checks into the kernel IR.
//!
//! What the lowering decides (documented in the README's OpenCL and CUDA section):
//! - A kernel is a function marked `__kernel`/`kernel` (OpenCL) or `__global__` (CUDA); its
//!   contract is the annotation right before it, and speaks for one thread, as VerCors's does.
//! - Pointer and array parameters are arrays: global memory, or local memory for an OpenCL
//!   `local` pointer. An array's length is the `e` of a `\pointer_length(a) == e` conjunct of the
//!   kernel's `requires` or `context` clauses (`\shared_mem_size(s) == e` for CUDA's `extern
//!   __shared__ int s[];`); without one it is an unknown length the contract may speak of as
//!   `\pointer_length(a)`. `a != NULL` holds for every array.
//! - `__shared__` and `local` arrays declared in the body are the group's local memory; arrays
//!   of several dimensions are laid out by rows.
//! - The ids: `threadIdx`, `blockIdx`, `blockDim`, `gridDim` (`.x`, `.y`, `.z`) and
//!   `get_local_id`, `get_group_id`, `get_local_size`, `get_num_groups` (dimension 0, 1 or 2)
//!   are the per-axis ids and sizes; `get_global_id(d)` is `get_group_id(d) * get_local_size(d) +
//!   get_local_id(d)` and `get_global_size(d)` is `get_local_size(d) * get_num_groups(d)`;
//!   `\ltid` and `\gtid` are the linear ids `lid` and `tid`.
//! - `__syncthreads()` is a barrier that fences local and global memory; `barrier(flags)` fences
//!   the memories its `CLK_LOCAL_MEM_FENCE` and `CLK_GLOBAL_MEM_FENCE` flags name. The annotation
//!   right before a barrier is its contract; the one right before a loop holds its
//!   `loop_invariant`s.
//! - `for (init; cond; step) body` is `init; while (cond) { body step }`; compound assignments and
//!   `++`/`--` are assignments; `min`, `max` and `abs` are conditional expressions. A `return;`
//!   of the kernel guards the statements after it.
//! - In code, a condition of type `int` holds when it is not 0, as in C.
//!
//! A construct outside this subset gets `kernel::unsupported`, naming it.
//!
//! [`lower`] runs a `Lowerer`: this module holds its state, the types its child modules share and
//! the building blocks they all use (nodes, diagnostics, scopes), and each child adds the methods
//! of one concern: `kernel` (parameters, arrays, contract and body), `statements`, `expressions`
//! (with `bitwise` operators, `calls` and `floats`), `memory` (the cells that code reads and
//! writes), `barriers`, `contracts` (the clauses of annotations), `loops`, `vectors`, `pointers`,
//! `private` memory, `atomics`, `inline`d helper functions, and GPUVerify's `barrier_invariants`
//! and access `logs`.

pub mod async_copies;
mod atomics;
mod barrier_invariants;
mod barriers;
mod bitwise;
mod calls;
mod contracts;
mod expressions;
mod floats;
mod images;
mod inline;
mod kernel;
mod logs;
mod loops;
mod memory;
mod pointers;
mod private;
mod specs;
mod statements;
pub(super) mod vectors;

use crate::c::ast;
use crate::c::integers::{self, CType, Integers};
use crate::c::Dialect;
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::{Builtin, MachineInt, Span};
use logs::Logged;
use num_bigint::BigInt;
use std::collections::{HashMap, HashSet};
use vectors::VectorType;

/// A lowered C file.
pub struct Lowered {
    /// The surface file with its kernels, when it has one.
    pub file: Option<surface::File>,
    pub diagnostics: Vec<Diagnostic>,
    /// The claims of the file that cannot be stated for one thread, with why
    /// ([`lockstep_logic::Kernel::unstated_claims`]).
    pub unstated_claims: Vec<(Span, String)>,
    /// For each kernel, by name, the calls its threads make together, with the surface variables
    /// that hold what they must agree on ([`lockstep_logic::Collective`]).
    pub collectives: HashMap<String, Vec<async_copies::Collective>>,
}

/// Lowers a parsed C file.
pub fn lower(file: &ast::File, source: &str, dialect: Dialect, integers: Integers) -> Lowered {
    let mut lowerer = Lowerer {
        diagnostics: Vec::new(),
        unstated_claims: Vec::new(),
        integers,
        scopes: Vec::new(),
        assigned: HashSet::new(),
        helpers: HashMap::new(),
        prototypes: HashMap::new(),
        constants: Vec::new(),
        constant_symbols: HashMap::new(),
        read_only: HashSet::new(),
        uninitialized: HashSet::new(),
        lengths_spoken: HashSet::new(),
        exits: Vec::new(),
        loops_around: 0,
        copies: async_copies::Copies::default(),
        collectives: HashMap::new(),
        inlining: Vec::new(),
        fresh: 0,
        before: None,
        conditional: false,
        asks_about_logs: file.items.iter().any(|item| match item {
            ast::Item::Function(function) => {
                function.body.as_ref().is_some_and(|body| logs::asks_about_logs(&body.stmts))
            }
            _ => false,
        }),
        logs: None,
        noovfl_statement: false,
        // Over-approximated by the text (comments and macros included): a kernel of such a file
        // has the parameter whether or not it calls the function.
        uses_work_dim: source.contains("get_work_dim"),
        atomic_only: HashSet::new(),
        counters: HashSet::new(),
        counter_sites: HashMap::new(),
        dialect,
        return_flag: None,
        flagged_returns: 0,
        old_values: None,
        quantified: 0,
        barrier_invariants: Vec::new(),
        thread_instance: None,
        other_axis_in_instance: false,
        function_wide: Vec::new(),
    };
    // Each function with the annotation written right before it: the kernels to lower, and the
    // helpers to inline where they are called.
    let mut kernels = Vec::new();
    let mut contract: Option<&ast::Annotation> = None;
    for item in &file.items {
        match item {
            ast::Item::Annotation(annotation) => {
                if let Some(previous) = contract.replace(annotation) {
                    lowerer.stray_annotation(previous, "an annotation before another one");
                }
            }
            ast::Item::Function(function) => {
                let written = contract.take();
                if function.specifiers.has(ast::Qualifier::Kernel) {
                    kernels.push((function, written));
                } else if function.body.is_some() {
                    lowerer.helper(function, written);
                } else {
                    if let Some(annotation) = written {
                        lowerer.stray_annotation(annotation, "an annotation before a prototype");
                    }
                    lowerer.prototypes.insert(&function.name.name, function);
                }
            }
            ast::Item::Declaration(declaration) => {
                if let Some(annotation) = contract.take() {
                    lowerer.stray_annotation(annotation, "an annotation before a declaration");
                }
                lowerer.file_scope_declaration(declaration);
            }
            ast::Item::Error => {}
        }
    }
    if let Some(annotation) = contract {
        lowerer.stray_annotation(annotation, "an annotation after the last function");
    }
    let mut items = Vec::new();
    for (function, written) in kernels {
        // A kernel is dropped only with an error that says why, never silently: a dropped
        // kernel would leave its obligations unchecked.
        let errors = lowerer.errors();
        let kernel = lowerer.kernel(function, written);
        if let Some(kernel) = lowerer.reported(errors, kernel, function.name.span) {
            items.push(surface::Item::Kernel(kernel));
        }
    }
    if items.is_empty() && !lowerer.diagnostics.iter().any(Diagnostic::is_error) {
        let (message, label) = if source.trim().is_empty() {
            ("the file is empty", "nothing to check")
        } else {
            ("the file declares no kernel", "no kernel in this file")
        };
        let help = match dialect {
            Dialect::OpenCl => "an OpenCL file holds at least one `__kernel void name(...) { ... }`",
            Dialect::Cuda => "a CUDA file holds at least one `__global__ void name(...) { ... }`",
        };
        lowerer.diagnostics.push(Diagnostic::error(Code::EmptyFile, message, Span::new(0, 0), label).with_help(help));
    }
    Lowered {
        file: (!items.is_empty()).then_some(surface::File { items, reserved_names: false }),
        diagnostics: lowerer.diagnostics,
        unstated_claims: lowerer.unstated_claims,
        collectives: lowerer.collectives,
    }
}

#[derive(Clone, Debug)]
enum Symbol {
    /// A scalar: its type, where its value lies (narrower than the type for a variable the
    /// kernel never assigns after its declaration), and its name in the surface kernel.
    Scalar { ty: CType, interval: integers::Interval, name: String },
    /// An array: its element type, the sizes of its dimensions after the first (for the layout
    /// by rows), where its cells are, and where it starts there (a helper's pointer parameter
    /// may point into an array: `f(a + k)`). An array of vectors has their components for
    /// elements, and its `vector` type.
    Array {
        element: CType,
        inner_dimensions: Vec<surface::Expr>,
        storage: Storage,
        offset: Option<surface::Expr>,
        vector: Option<VectorType>,
    },
    /// A pointer variable: a private variable of the surface kernel (`name`) holds the index it
    /// points to in its `targets`, which its assignments add to until it is first used (see
    /// [`crate::c::lower::pointers`]). With more than one, the variable `tag` holds which.
    /// A pointer into an array of vectors has their type, and holds the index of a vector.
    Pointer {
        element: CType,
        vector: Option<VectorType>,
        name: String,
        targets: Vec<Storage>,
        tag: Option<String>,
        used: bool,
    },
    /// A scalar in local memory (`__local int x;`, `__shared__ int x;`): the one cell of the
    /// group's array `name`.
    Cell { element: CType, name: String },
    /// A private vector: one private scalar of the surface kernel for each component.
    Vector { ty: VectorType, names: Vec<String> },
}

/// Where the cells of an array are.
#[derive(Clone, Debug, PartialEq)]
enum Storage {
    /// The kernel's array of this name, in global or local memory.
    Memory(String),
    /// Private memory: one private variable of the surface kernel for each cell. A private array
    /// (`int t[4];`) is one, and so is a private scalar whose address is taken (`&x`), of one
    /// cell. An index that is not a constant picks its variable by cases, and must lie in the
    /// array ([`surface::ExprKind::PrivateIndex`]).
    Private(Vec<String>),
    /// Where the null pointer points: no cell, so that every access through it fails.
    Null,
    /// One of `options` (none of them `Either`), the one at the position the private variable
    /// `tag` holds: a pointer variable assigned pointers into several arrays.
    Either { tag: String, options: Vec<Storage> },
}

/// The size in bytes of a type, as `sizeof` gives it.
fn size_of(ty: CType) -> u32 {
    match ty {
        CType::Bool => 1,
        CType::Int(MachineInt { bits, .. }) | CType::Float(bits) => bits / 8,
    }
}

/// Where an expression stands: code (C's meaning) or an annotation (the specification language).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Code,
    Annotation,
}

/// A cell of an array: the kernel's array, the index there, and the C type of the element.
type ArrayCell = (surface::Ident, surface::Expr, CType);

/// A cell that code reads or writes: one in memory, one of a private array (its cells'
/// variables, the index among them, and the element type: [`Storage::Private`]), none (through
/// the null pointer, at this index), or one of several ([`Storage::Either`]).
enum Location {
    Memory(ArrayCell),
    Private(Vec<String>, surface::Expr, CType),
    Null(surface::Expr, CType),
    Either { tag: String, options: Vec<Location> },
}

/// What a kernel's contract says of its arrays' lengths: `\pointer_length(a) == e`.
type Lengths = HashMap<String, surface::Expr>;

struct Lowerer<'f> {
    diagnostics: Vec<Diagnostic>,
    /// The claims lowered as [`Lowerer::unstated_claim`]s.
    unstated_claims: Vec<(Span, String)>,
    /// How the file's code reads its integers.
    integers: Integers,
    /// The names in scope, innermost last.
    scopes: Vec<HashMap<String, Symbol>>,
    /// The names the kernel or helper being lowered assigns (`x = e`, `x += e`, `x++`) anywhere.
    assigned: HashSet<String>,
    /// The file's helper functions, inlined where they are called ([`crate::c::lower::inline`]).
    helpers: HashMap<&'f str, Helper<'f>>,
    /// The functions the file declares without a body (`int bar(int);`).
    prototypes: HashMap<&'f str, &'f ast::Function>,
    /// The file's `__constant` variables and arrays, which every kernel starts by declaring as
    /// private ones (see [`Lowerer::file_scope_declaration`]), and their symbols there, which
    /// helpers see too.
    constants: Vec<&'f ast::Declaration>,
    constant_symbols: HashMap<String, Symbol>,
    /// The private variables that hold the `__constant`s' values, which nothing may write.
    read_only: HashSet<String>,
    /// The scalars declared without a value (`int t;`), which the loops' type invariant leaves
    /// out: keeping them there made three of GPUVerify's `//pass` kernels (`enabled/dominator`,
    /// with `int result;` assigned in loops) fail the invariant's preservation.
    uninitialized: HashSet<String>,
    /// The unknown lengths (`\pointer_length(a)`) an annotation speaks of: their arrays' accesses
    /// are checked against them ([`lockstep_logic::Array::bounded`]).
    lengths_spoken: HashSet<String>,
    /// The flags of the loops being lowered, innermost last ([`crate::c::lower::loops`]).
    exits: Vec<loops::Exits>,
    /// How many loops enclose the code being lowered, counting those around an inlined call.
    loops_around: u32,
    /// The asynchronous copies of the kernel being lowered ([`crate::c::lower::async_copies`]).
    copies: async_copies::Copies,
    /// The collective calls of each kernel lowered so far ([`Lowered::collectives`]).
    collectives: HashMap<String, Vec<async_copies::Collective>>,
    /// The helpers being inlined, innermost last.
    inlining: Vec<Inlined>,
    /// How many names have been made up so far (for inlined calls and floating-point values),
    /// to keep them apart.
    fresh: u32,
    /// What runs before the statement being lowered: the inlined code of its helper calls and
    /// the declarations of its arbitrary floating-point values. `None` where an expression may
    /// run more than once in its statement (a loop's condition), where neither can be placed.
    before: Option<Vec<surface::Stmt>>,
    /// Whether the expression being lowered may not run when its statement does (after `&&`,
    /// `||` or `?`), so that a helper call there cannot be inlined before the statement.
    conditional: bool,
    /// The file's dialect: OpenCL and CUDA give some operations different meanings.
    dialect: Dialect,
    /// The flag a `return` sets where the rewrite of `if`s cannot place it, in the function whose
    /// body is being lowered (`Some`), once one does (`Some(Some)`); and how many such returns have
    /// been lowered so far, which tells the statements that hold one ([`crate::c::lower::loops`]).
    return_flag: Option<Option<String>>,
    flagged_returns: u32,
    /// While a helper is inlined: the values its `\old(e)`s read, each computed into a variable
    /// where the call starts ([`crate::c::lower::inline`]).
    old_values: Option<Vec<surface::Stmt>>,
    /// How many quantifiers enclose the annotation being lowered.
    quantified: u32,
    /// The clauses of the barrier invariants written since the last barrier, which the next
    /// barrier takes as its contract ([`crate::c::lower::barrier_invariants`]).
    barrier_invariants: Vec<surface::Clause>,
    /// While a barrier invariant is instantiated: the local id (first axis) of the thread it is
    /// read for; and whether the formula read another id of the thread's, which it cannot be.
    thread_instance: Option<surface::Expr>,
    other_axis_in_instance: bool,
    /// The function-wide invariants of the function whose body is being lowered, which each of
    /// its loops takes ([`Lowerer::function_wide_invariants`]).
    function_wide: Vec<ast::Expr>,
    /// Whether the file asks about GPUVerify's access logs anywhere ([`crate::c::lower::logs`]).
    asks_about_logs: bool,
    /// The arrays whose accesses are logged, while a kernel's body is lowered in a file that asks
    /// about the logs.
    logs: Option<Vec<Logged>>,
    /// Whether the file may call `get_work_dim()`, which is then each kernel's parameter
    /// [`WORK_DIM`].
    uses_work_dim: bool,
    /// The kernel's arrays of unstated length that its code reaches only through atomic
    /// operations ([`crate::c::lower::atomics`]).
    atomic_only: HashSet<String>,
    /// Of those, the counters: arrays the code only increments, each increment at most once per
    /// thread, whose values are then distinct ([`crate::c::lower::atomics`]).
    counters: HashSet<String>,
    /// The increment sites of each counter lowered so far, and its type.
    counter_sites: HashMap<String, (u32, MachineInt)>,
    /// Whether the statement being lowered is `x = __add_noovfl_T(a, b);` or declares one
    /// variable so, the one place where the call's assumption can stand before it.
    noovfl_statement: bool,
}

/// The kernel parameter that `get_work_dim()` reads: the number of dimensions the host
/// launched the kernel with, 1 to 3, alike for every thread. `lockstep run` gives it the
/// launch's number of axes.
pub const WORK_DIM: &str = "get_work_dim()";

/// A helper function and its contract.
#[derive(Clone, Copy)]
struct Helper<'f> {
    function: &'f ast::Function,
    contract: Option<&'f ast::Annotation>,
}

/// A call being inlined: the helper's name, the suffix its variables carry, and the variable
/// that receives its result (with the result's type), unless it returns `void`.
struct Inlined {
    name: String,
    suffix: String,
    result: Option<(String, CType)>,
}

impl Lowerer<'_> {
    fn unsupported(&mut self, span: Span, construct: impl Into<String>, help: impl Into<String>) {
        let construct = construct.into();
        self.diagnostics.push(
            Diagnostic::error(Code::Unsupported, format!("{construct} is not supported"), span, "not supported")
                .with_help(help),
        );
    }

    /// How many errors have been reported so far.
    fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|diagnostic| diagnostic.is_error()).count()
    }

    /// `lowered`, which the caller leaves out where it is `None`: then an error says why, if
    /// none has been reported since there were `errors` ([`Lowerer::unreadable`]).
    fn reported<T>(&mut self, errors: usize, lowered: Option<T>, span: Span) -> Option<T> {
        if lowered.is_none() && self.errors() == errors {
            self.unreadable(span);
        }
        lowered
    }

    /// An error for a part that failed to lower without saying why: a safety net, so that no
    /// clause or kernel is ever left out silently.
    fn unreadable(&mut self, span: Span) {
        self.unsupported(
            span,
            "a construct lockstep could not read here",
            "simplify this part; please report the file, as lockstep should say what it cannot read",
        );
    }

    fn stray_annotation(&mut self, annotation: &ast::Annotation, what: &str) {
        self.diagnostics.push(
            Diagnostic::error(Code::StrayClause, format!("{what} belongs to nothing"), annotation.span, "belongs to nothing")
                .with_help("an annotation stands right before a kernel (its contract), a barrier (the barrier's contract) or a loop (its `loop_invariant`s), or holds `assert`s between statements"),
        );
    }

    fn node(&mut self, kind: surface::ExprKind, span: Span) -> Option<surface::Expr> {
        self.checked(surface::Expr::new(kind, span))
    }

    fn too_deep(&mut self, span: Span) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::NestingTooDeep,
                "nested too deeply",
                Span::new(span.start, span.start + 1),
                format!("more than {} levels of nesting", surface::MAX_DEPTH),
            )
            .with_help("split the expression or statement, for example with a private variable"),
        );
    }

    fn binary(
        &mut self,
        op: surface::BinaryOp,
        lhs: surface::Expr,
        rhs: surface::Expr,
        span: Span,
    ) -> Option<surface::Expr> {
        self.node(surface::ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span)
    }

    fn int(&mut self, value: impl Into<BigInt>, span: Span) -> Option<surface::Expr> {
        self.node(surface::ExprKind::Int(value.into()), span)
    }

    fn builtin(&mut self, builtin: Builtin, span: Span) -> Option<surface::Expr> {
        self.node(surface::ExprKind::Builtin(builtin), span)
    }

    /// Replaces the symbol `name` stands for, in the scope that declares it.
    fn redeclare(&mut self, name: &str, symbol: Symbol) {
        if let Some(scope) = self.scopes.iter_mut().rev().find(|scope| scope.contains_key(name)) {
            scope.insert(name.to_string(), symbol);
        }
    }

    fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    fn declare(&mut self, name: &str, symbol: Symbol) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), symbol);
        }
    }

    /// The type of a scalar value, or a diagnostic naming the type lockstep does not support
    /// here (`void`, or a vector where a scalar is expected). `char` is signed, as in OpenCL;
    /// `long` and `size_t` have 64 bits, as on every GPU.
    fn c_type(&mut self, ty: &ast::TypeSpec) -> Option<CType> {
        if ty.width > 1 {
            self.unsupported(
                ty.span,
                format!("the vector type `{}` here", ast::type_name(ty)),
                "vectors are private variables, kernel parameters, array elements and values of expressions; helper functions take and return scalars",
            );
            return None;
        }
        self.scalar_type(ty)
    }

    /// The type of a value's components: the type itself for a scalar.
    fn scalar_type(&mut self, ty: &ast::TypeSpec) -> Option<CType> {
        let scalar = vectors::scalar_of(ty);
        if scalar.is_none() {
            self.unsupported(
                ty.span,
                format!("the type `{}`", ast::type_name(ty)),
                "values have integer, floating-point or `bool` types",
            );
        }
        scalar
    }

    fn surface_stmt(&mut self, kind: surface::StmtKind, span: Span) -> Option<surface::Stmt> {
        self.checked(surface::Stmt::new(kind, span))
    }

    /// The declaration of a private variable `name` of C type `ty` (its name written at
    /// `name_span`): of `init`'s value, or else of a value that is not known, which for an
    /// integer (with C's integers) lies in its type, as C's indeterminate values do; so neither a
    /// proof nor a counterexample meets an `int` beyond `INT_MAX`.
    fn declared(
        &mut self,
        name: String,
        ty: CType,
        ty_span: Span,
        name_span: Span,
        span: Span,
        init: Option<surface::Expr>,
    ) -> Option<Vec<surface::Stmt>> {
        let unknown = init.is_none();
        if unknown {
            self.uninitialized.insert(name.clone());
        }
        let declare = surface::StmtKind::Declare {
            ty: ty.surface(),
            ty_span,
            name: surface::Ident { name: name.clone(), span: name_span },
            init,
        };
        let mut stmts = vec![self.surface_stmt(declare, span)?];
        if let (CType::Int(int_type), true) = (ty, unknown && self.integers.bounded()) {
            // `x = (least <= x && x <= greatest) ? x : least`: every value of the type, and only those.
            let in_type = self.checked(integers::in_type(&name, int_type, span))?;
            let least = self.int(int_type.bounds().0, span)?;
            let value = self.node(surface::ExprKind::Name(name.clone()), span)?;
            let kind = surface::ExprKind::Cond {
                cond: Box::new(in_type),
                then_value: Box::new(value),
                else_value: Box::new(least),
            };
            let value = self.node(kind, span)?;
            let assign = surface::StmtKind::Assign { target: surface::Ident { name, span: name_span }, value };
            stmts.push(self.surface_stmt(assign, span)?);
        }
        Some(stmts)
    }

    fn block_of(&mut self, stmts: Vec<surface::Stmt>, span: Span) -> Option<surface::Stmt> {
        self.surface_stmt(surface::StmtKind::Block(surface::Block { stmts, span }), span)
    }

    /// The name in the surface kernel of a variable declared in C: inside an inlined helper, its
    /// C name with the call's suffix (`x@bar1`), so that it names neither the caller's variables
    /// nor those of another call.
    /// A name that C declares again in an inner scope (`int x;` where a parameter `x` is seen)
    /// gets a number of its own (`x@3`), as the surface language does not shadow names.
    fn local_name(&mut self, name: &str) -> String {
        let base = match self.inlining.last() {
            Some(inlined) => format!("{name}{}", inlined.suffix),
            None => name.to_string(),
        };
        if self.lookup(name).is_none() {
            return base;
        }
        self.fresh += 1;
        format!("{base}@{}", self.fresh)
    }

    fn checked<T>(&mut self, built: Result<T, surface::TooDeep>) -> Option<T> {
        match built {
            Ok(value) => Some(value),
            Err(too_deep) => {
                self.too_deep(too_deep.span);
                None
            }
        }
    }
}

/// The names that statements assign, anywhere in them.
fn assigned_names(stmts: &[ast::Stmt], out: &mut HashSet<String>) {
    // A variable whose address is taken may be written through the pointer.
    fn address_taken(expr: &ast::Expr, out: &mut HashSet<String>) {
        if let ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } = &expr.kind {
            if let ast::ExprKind::Name(name) = &operand.kind {
                out.insert(name.clone());
            }
        }
        for child in expr.kind.children() {
            address_taken(child, out);
        }
    }
    fn in_expr(expr: &ast::Expr, out: &mut HashSet<String>) {
        let target = match &expr.kind {
            ast::ExprKind::Assign { target, value, .. } => {
                in_expr(value, out);
                Some(target)
            }
            ast::ExprKind::Unary {
                op:
                    ast::UnaryOp::PreIncrement
                    | ast::UnaryOp::PreDecrement
                    | ast::UnaryOp::PostIncrement
                    | ast::UnaryOp::PostDecrement,
                operand,
            } => Some(operand),
            ast::ExprKind::Comma(first, second) => {
                in_expr(first, out);
                in_expr(second, out);
                None
            }
            _ => None,
        };
        if let Some(ast::Expr { kind: ast::ExprKind::Name(name), .. }) = target.map(|target| &**target) {
            out.insert(name.clone());
        }
    }
    for stmt in stmts {
        match &stmt.kind {
            ast::StmtKind::Expr(expr) => {
                in_expr(expr, out);
                address_taken(expr, out);
            }
            ast::StmtKind::Declaration(declaration) => {
                for init in declaration.declarators.iter().filter_map(|(_, init)| init.as_ref()) {
                    address_taken(init, out);
                }
            }
            ast::StmtKind::Return(Some(value)) => address_taken(value, out),
            ast::StmtKind::If { cond, then_branch, else_branch } => {
                address_taken(cond, out);
                assigned_names(std::slice::from_ref(then_branch), out);
                assigned_names(else_branch.as_deref().map(std::slice::from_ref).unwrap_or_default(), out);
            }
            ast::StmtKind::While { cond, body } | ast::StmtKind::DoWhile { body, cond } => {
                address_taken(cond, out);
                assigned_names(std::slice::from_ref(body), out)
            }
            ast::StmtKind::For { init, cond, step, body } => {
                assigned_names(init.as_deref().map(std::slice::from_ref).unwrap_or_default(), out);
                for expr in cond.iter().chain(step) {
                    address_taken(expr, out);
                }
                if let Some(step) = step {
                    in_expr(step, out);
                }
                assigned_names(std::slice::from_ref(body), out);
            }
            ast::StmtKind::Block(block) => assigned_names(&block.stmts, out),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
