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

mod atomics;
mod barrier_invariants;
mod inline;
mod logs;
mod loops;
mod pointers;
mod private;
pub(super) mod vectors;

use crate::c::ast;
use crate::c::integers::{self, CType, Integers, Value};
use crate::c::Dialect;
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::{Axis, Builtin, MachineInt, Span};
use logs::{Access, Logged};
use loops::Loop;
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive};
use std::collections::{HashMap, HashSet};
use vectors::VectorType;

/// Lowers a parsed C file: the surface file with its kernels, when it has one, and the problems.
pub fn lower(
    file: &ast::File,
    source: &str,
    dialect: Dialect,
    integers: Integers,
) -> (Option<surface::File>, Vec<Diagnostic>) {
    let mut lowerer = Lowerer {
        diagnostics: Vec::new(),
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
    let lowered = (!items.is_empty()).then_some(surface::File { items, reserved_names: false });
    (lowered, lowerer.diagnostics)
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
    Pointer { element: CType, name: String, targets: Vec<Storage>, tag: Option<String>, used: bool },
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

/// The most cells a private array may have: an access by an index that is not a constant is
/// one case for each of them.
const PRIVATE_CELLS: u32 = 64;

/// The C type of an integer literal: `int` (`unsigned` with a `u`) where it fits, else 64 bits.
fn literal_type(value: &BigInt, unsigned: bool) -> MachineInt {
    let narrow = if unsigned { integers::UINT } else { integers::INT };
    let (_, greatest) = narrow.bounds();
    if *value <= greatest {
        narrow
    } else {
        MachineInt { bits: 64, signed: !unsigned }
    }
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

impl Location {
    /// The C type of the cell.
    fn element(&self) -> CType {
        match self {
            Location::Memory((_, _, element)) | Location::Private(_, _, element) | Location::Null(_, element) => {
                *element
            }
            Location::Either { options, .. } => options.first().map_or(CType::Int(integers::INT), Location::element),
        }
    }
}

/// What a kernel's contract says of its arrays' lengths: `\pointer_length(a) == e`.
type Lengths = HashMap<String, surface::Expr>;

struct Lowerer<'f> {
    diagnostics: Vec<Diagnostic>,
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
    /// The scalars declared without a value (`int t;`), whose value need not lie in their type
    /// until they are assigned.
    uninitialized: HashSet<String>,
    /// The unknown lengths (`\pointer_length(a)`) an annotation speaks of: their arrays' accesses
    /// are checked against them ([`lockstep_logic::Array::bounded`]).
    lengths_spoken: HashSet<String>,
    /// The flags of the loops being lowered, innermost last ([`crate::c::lower::loops`]).
    exits: Vec<loops::Exits>,
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

/// A kernel under construction: its members so far and the lengths its contract gives.
struct KernelParts {
    members: Vec<surface::Member>,
    /// Facts of the C program that the kernel's contract assumes: the launch's limit and the
    /// ranges of integer parameters.
    facts: Vec<surface::Expr>,
    lengths: Lengths,
    /// Unknown lengths, each a kernel parameter named like `\pointer_length(a)`.
    length_params: Vec<surface::Param>,
}

impl<'f> Lowerer<'f> {
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

    /// The array `name` denotes, with where it starts in its cells: an array, a helper's pointer
    /// parameter, a pointer variable that points somewhere, or a local scalar's cell.
    fn array_of(&self, name: &str, span: Span) -> Option<Symbol> {
        let flat = |element: CType, storage: Storage, offset: Option<surface::Expr>| Symbol::Array {
            element,
            inner_dimensions: Vec::new(),
            storage,
            offset,
            vector: None,
        };
        match self.lookup(name)? {
            symbol @ Symbol::Array { .. } => Some(symbol.clone()),
            Symbol::Pointer { element, name, targets, tag, .. } if !targets.is_empty() => {
                let offset = surface::Expr::new(surface::ExprKind::Name(name.clone()), span).ok();
                let storage = match tag {
                    Some(tag) if targets.len() > 1 => Storage::Either { tag: tag.clone(), options: targets.clone() },
                    _ => targets[0].clone(),
                };
                Some(flat(*element, storage, offset))
            }
            Symbol::Cell { element, name } => Some(flat(*element, Storage::Memory(name.clone()), None)),
            Symbol::Pointer { .. } | Symbol::Scalar { .. } | Symbol::Vector { .. } => None,
        }
    }

    /// The array `&name` points into: [`Lowerer::array_of`], and a private scalar's one cell.
    fn addressed(&self, name: &str, span: Span) -> Option<Symbol> {
        match self.lookup(name)? {
            Symbol::Scalar { ty, name, .. } => Some(Symbol::Array {
                element: *ty,
                inner_dimensions: Vec::new(),
                storage: Storage::Private(vec![name.clone()]),
                offset: None,
                vector: None,
            }),
            _ => self.array_of(name, span),
        }
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

    /// A declaration outside any function: a `__constant` variable or array (OpenCL's program
    /// scope, CUDA's `__constant__`) is read-only memory every thread sees alike, so each thread
    /// may as well have its own copy: every kernel starts by declaring it as a private variable
    /// or array ([`crate::c::lower::private`]), with its initializer (one without is arbitrary, which
    /// claims less). An assignment to it is an error, as in C.
    fn file_scope_declaration(&mut self, declaration: &'f ast::Declaration) {
        if declaration.declarators.is_empty() {
            return;
        }
        if declaration.specifiers.has(ast::Qualifier::Constant) {
            self.constants.push(declaration);
            return;
        }
        self.unsupported(
            declaration.span,
            "a declaration outside a function",
            "declare constants with `#define`, and arrays as kernel parameters or inside the kernel",
        );
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

    fn kernel(&mut self, function: &ast::Function, contract: Option<&ast::Annotation>) -> Option<surface::KernelDecl> {
        let Some(body) = &function.body else {
            self.unsupported(function.span, "a kernel without a body", "give the kernel its code");
            return None;
        };
        if function.specifiers.ty.base != ast::BaseType::Void {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::MainSignature,
                    "a kernel returns `void`",
                    function.specifiers.ty.span,
                    "not `void`",
                )
                .with_help("kernels return nothing; write their results into arrays"),
            );
        }
        self.scopes = vec![HashMap::new()];
        self.assigned = HashSet::new();
        self.uninitialized = HashSet::new();
        self.lengths_spoken = HashSet::new();
        assigned_names(&body.stmts, &mut self.assigned);
        let written: Vec<&ast::SpecClause> =
            contract.map(|contract| contract.clauses.iter().collect()).unwrap_or_default();
        let mut parts = KernelParts {
            members: Vec::new(),
            facts: Vec::new(),
            lengths: self.lengths(&written),
            length_params: Vec::new(),
        };
        if self.integers.bounded() {
            parts.facts.extend(self.checked(integers::launch_limit_clause(function.name.span)));
        }
        let mut params = Vec::new();
        for param in &function.params {
            self.param(param, &mut parts, &mut params);
        }
        if self.uses_work_dim {
            self.work_dim(function.name.span, &mut parts, &mut params);
        }
        self.shared_arrays(&body.stmts, &mut parts);
        let unstated =
            |name: &String| parts.length_params.iter().any(|param| param.name.name.ends_with(&format!("({name})")));
        let is_local = |name: &str| {
            parts.members.iter().any(|member| {
                matches!(member, surface::Member::Arrays { memory: surface::MemorySpace::Local, names, .. }
                    if names.iter().any(|local| local.name == name))
            })
        };
        let uses = atomics::atomic_uses(&body.stmts, &written, &is_local, &fences_local);
        self.atomic_only = uses.only;
        self.atomic_only.retain(unstated);
        // A counter's increments touch no cell, so its length matters only to their bounds.
        self.counters = uses.counters;
        self.counter_sites = HashMap::new();
        let mut clauses = Vec::new();
        for clause in written {
            match clause {
                ast::SpecClause::Clause { kind, formula, span } => {
                    let kind = match kind {
                        ast::SpecKind::Requires => surface::ClauseKind::Requires,
                        ast::SpecKind::Ensures => surface::ClauseKind::Ensures,
                        ast::SpecKind::Context => surface::ClauseKind::Context,
                        other => {
                            self.misplaced_clause(*other, *span, "a kernel's contract");
                            continue;
                        }
                    };
                    let errors = self.errors();
                    let formula = self.expr(formula, Place::Annotation, &parts.lengths);
                    if let Some(formula) = self.reported(errors, formula, *span) {
                        clauses.push(surface::Member::Clause(surface::Clause {
                            level: surface::Level::Thread,
                            kind,
                            formula,
                            span: *span,
                        }));
                    }
                }
                ast::SpecClause::Unknown { keyword, span } => self.unknown_clause(keyword, *span),
            }
        }
        // GPUVerify's `__requires(e);` and `__ensures(e);` at the start of the body.
        let leading = body.stmts.iter().take_while(|stmt| gpuverify_clause(stmt).is_some()).count();
        for stmt in &body.stmts[..leading] {
            let Some((kind, formula, _)) = gpuverify_clause(stmt) else { continue };
            if kind == surface::ClauseKind::Requires
                && self.hint_left_out(formula, stmt.span, "this precondition", false)
            {
                continue;
            }
            let errors = self.errors();
            let formula = self.gpuverify_formula(formula, &parts.lengths);
            if let Some(formula) = self.reported(errors, formula, stmt.span) {
                clauses.push(surface::Member::Clause(surface::Clause {
                    level: surface::Level::Thread,
                    kind,
                    formula,
                    span: stmt.span,
                }));
            }
        }
        let body = ast::Block { stmts: body.stmts[leading..].to_vec(), span: body.span };
        // C's parameters are the function's variables: one the code assigns is a copy of the
        // parameter, which the contract still means.
        let mut copies = Vec::new();
        for param in &function.params {
            let c_name = &param.declarator.name.name;
            if let (true, Some(Symbol::Scalar { ty, name, .. })) =
                (self.assigned.contains(c_name), self.lookup(c_name).cloned())
            {
                let copy = format!("{c_name}@local");
                let init = self.node(surface::ExprKind::Name(name), param.declarator.name.span);
                let kind = surface::StmtKind::Declare {
                    ty: ty.surface(),
                    ty_span: param.specifiers.ty.span,
                    name: surface::Ident { name: copy.clone(), span: param.declarator.name.span },
                    init,
                };
                copies.extend(self.surface_stmt(kind, param.declarator.name.span));
                self.declare(c_name, Symbol::Scalar { ty, interval: ty.interval(), name: copy });
            }
        }
        if self.asks_about_logs {
            let logged = parts.members.iter().flat_map(|member| match member {
                surface::Member::Arrays { memory, names, .. } => {
                    names.iter().map(|name| Logged { array: name.name.clone(), memory: *memory }).collect()
                }
                _ => Vec::new(),
            });
            self.logs = Some(logged.collect());
            copies.extend(self.log_declarations(body.span));
        }
        let body = self.kernel_body(&body, &parts.lengths).map(|mut body| {
            body.stmts.splice(0..0, copies);
            body
        });
        self.logs = None;
        // An array whose length no annotation states or speaks of has no bounds to check: its
        // size is that unknown length, times the stride of an array of vectors.
        for member in &mut parts.members {
            if let surface::Member::Arrays { size, bounded, .. } = member {
                let length = match &size.kind {
                    surface::ExprKind::Binary { op: surface::BinaryOp::Mul, lhs, .. } => &lhs.kind,
                    kind => kind,
                };
                if let surface::ExprKind::Name(length) = length {
                    let unstated = parts.length_params.iter().any(|param| param.name.name == *length);
                    *bounded = !unstated || self.lengths_spoken.contains(length);
                }
            }
        }
        params.append(&mut parts.length_params);
        for (counter, (sites, int)) in std::mem::take(&mut self.counter_sites) {
            parts.facts.extend(self.counter_limit(&counter, sites, int, &parts.members, function.name.span));
        }
        let mut members = parts.members;
        // The C program's facts come first, so that the written clauses may rely on them.
        members.extend(parts.facts.into_iter().map(|formula| {
            surface::Member::Clause(surface::Clause {
                level: surface::Level::Thread,
                kind: surface::ClauseKind::Requires,
                span: formula.span,
                formula,
            })
        }));
        members.extend(clauses);
        let name = surface::Ident { name: "main".to_string(), span: function.name.span };
        members.push(surface::Member::Main {
            result: surface::TypeName::Void,
            result_span: function.specifiers.ty.span,
            name,
            params: Vec::new(),
            body: body?,
            span: function.span,
        });
        Some(surface::KernelDecl { name: function.name.clone(), params, members, span: function.span })
    }

    fn misplaced_clause(&mut self, kind: ast::SpecKind, span: Span, place: &str) {
        self.diagnostics.push(
            Diagnostic::error(Code::StrayClause, format!("a `{}` in {place}", kind.keyword()), span, "not allowed here")
                .with_help("contracts of kernels and barriers hold `requires`, `ensures` and `context`; `loop_invariant` stands before a loop; `assert` and `assume` between statements"),
        );
    }

    fn unknown_clause(&mut self, keyword: &surface::Ident, span: Span) {
        self.unsupported(
            span,
            format!("the annotation `{}`", keyword.name),
            "lockstep reads `requires`, `ensures`, `context`, `loop_invariant`, `assert` and `assume` in annotations",
        );
    }

    /// The lengths a kernel's contract gives its arrays: the `e` of each `\pointer_length(a) == e`
    /// or `\shared_mem_size(a) == e` conjunct of a `requires` or `context` clause.
    fn lengths(&mut self, clauses: &[&ast::SpecClause]) -> Lengths {
        let mut found: Vec<(String, &ast::Expr)> = Vec::new();
        for clause in clauses {
            if let ast::SpecClause::Clause { kind: ast::SpecKind::Requires | ast::SpecKind::Context, formula, .. } =
                clause
            {
                collect_lengths(formula, &mut found);
            }
        }
        let mut lengths = Lengths::new();
        for (array, length) in found {
            if lengths.contains_key(&array) {
                continue;
            }
            if let Some(length) = self.expr(length, Place::Annotation, &Lengths::new()) {
                lengths.insert(array, length);
            }
        }
        lengths
    }

    fn param(&mut self, param: &ast::Param, parts: &mut KernelParts, params: &mut Vec<surface::Param>) {
        let declarator = &param.declarator;
        let specifiers = &param.specifiers;
        let is_array = declarator.pointers > 0 || !declarator.dimensions.is_empty();
        if declarator.name.name.is_empty() {
            if specifiers.ty.base != ast::BaseType::Void || is_array {
                self.diagnostics.push(
                    Diagnostic::error(Code::UnknownName, "a kernel parameter without a name", param.span, "no name")
                        .with_help("name every parameter of a kernel"),
                );
            }
            return;
        }
        if !is_array {
            let Some(ty) = self.scalar_type(&specifiers.ty) else { return };
            let c_name = &declarator.name.name;
            let span = declarator.name.span;
            if specifiers.ty.width == 1 {
                self.declare(c_name, Symbol::Scalar { ty, interval: ty.interval(), name: c_name.clone() });
                self.scalar_param(c_name, ty, specifiers.ty.span, span, parts, params);
                return;
            }
            // A vector parameter: a parameter for each component.
            let vector = VectorType { element: ty, width: specifiers.ty.width };
            let names: Vec<String> = (0..vector.width).map(|k| vectors::component_name(c_name, k)).collect();
            for name in &names {
                self.scalar_param(name, ty, specifiers.ty.span, span, parts, params);
            }
            self.declare(c_name, Symbol::Vector { ty: vector, names });
            return;
        }
        if declarator.pointers + declarator.dimensions.len() > 1 {
            self.unsupported(
                param.span,
                "a pointer to pointers, or an array parameter of several dimensions",
                "pass a flat array and compute its index",
            );
            return;
        }
        let memory = if specifiers.has(ast::Qualifier::Local) {
            surface::MemorySpace::Local
        } else {
            surface::MemorySpace::Global
        };
        let word = if memory == surface::MemorySpace::Local { "\\shared_mem_size" } else { "\\pointer_length" };
        self.array(&declarator.name, &specifiers.ty, memory, None, word, parts, param.span);
    }

    /// `sites * tcount <= 2^N` (`gsize` for a counter in local memory): the launches whose
    /// increments of an `N`-bit counter return distinct values, which every launch has unless
    /// the counter wraps around (`crate::c::lower::atomics`).
    fn counter_limit(
        &mut self,
        counter: &str,
        sites: u32,
        int: MachineInt,
        members: &[surface::Member],
        span: Span,
    ) -> Option<surface::Expr> {
        let local = members.iter().any(|member| {
            matches!(member, surface::Member::Arrays { memory: surface::MemorySpace::Local, names, .. }
                if names.iter().any(|name| name.name == counter))
        });
        let sharers = if local { Builtin::Gsize } else { Builtin::Tcount };
        let sharers = self.node(surface::ExprKind::Builtin(sharers), span)?;
        let sites = self.int(i64::from(sites), span)?;
        let increments = self.binary(surface::BinaryOp::Mul, sites, sharers, span)?;
        let values = self.node(surface::ExprKind::Int(BigInt::from(1) << int.bits), span)?;
        self.binary(surface::BinaryOp::Le, increments, values, span)
    }

    /// The parameter [`WORK_DIM`], which lies in `[1, 3]`. That the axes beyond it have one
    /// group of one thread is left out, which claims less: stated, it made a solver search the
    /// sizes' products for seconds.
    fn work_dim(&mut self, span: Span, parts: &mut KernelParts, params: &mut Vec<surface::Param>) {
        params.push(surface::Param {
            ty: surface::TypeName::Int,
            ty_span: span,
            name: surface::Ident { name: WORK_DIM.to_string(), span },
        });
        let mut within = || -> Option<surface::Expr> {
            let dimensions = self.node(surface::ExprKind::Name(WORK_DIM.to_string()), span)?;
            let (one, three) = (self.int(1, span)?, self.int(3, span)?);
            let low = self.binary(surface::BinaryOp::Le, one, dimensions.clone(), span)?;
            let high = self.binary(surface::BinaryOp::Le, dimensions, three, span)?;
            self.binary(surface::BinaryOp::And, low, high, span)
        };
        parts.facts.extend(within());
    }

    /// A scalar parameter of the surface kernel, which holds a value of its C type.
    fn scalar_param(
        &mut self,
        name: &str,
        ty: CType,
        ty_span: Span,
        span: Span,
        parts: &mut KernelParts,
        params: &mut Vec<surface::Param>,
    ) {
        params.push(surface::Param {
            ty: ty.surface(),
            ty_span,
            name: surface::Ident { name: name.to_string(), span },
        });
        if let (CType::Int(int_type), true) = (ty, self.integers.bounded()) {
            if let Some(formula) = self.checked(integers::in_type(name, int_type, span)) {
                parts.facts.push(formula);
            }
        }
    }

    /// Declares an array member: with the given length, the one the contract states, or an
    /// unknown length named `\word(name)`.
    #[allow(clippy::too_many_arguments)]
    fn array(
        &mut self,
        name: &surface::Ident,
        element: &ast::TypeSpec,
        memory: surface::MemorySpace,
        dimensions: Option<Vec<surface::Expr>>,
        word: &str,
        parts: &mut KernelParts,
        span: Span,
    ) {
        let Some(element_type) = self.scalar_type(element) else { return };
        let vector = (element.width > 1).then_some(VectorType { element: element_type, width: element.width });
        let (size, inner_dimensions) = match dimensions {
            Some(mut dimensions) if !dimensions.is_empty() => {
                let first = dimensions.remove(0);
                let mut size = first;
                for dimension in &dimensions {
                    let Some(product) = self.binary(surface::BinaryOp::Mul, size, dimension.clone(), span) else {
                        return;
                    };
                    size = product;
                }
                (size, dimensions)
            }
            _ => match parts.lengths.get(&name.name).cloned() {
                Some(length) => {
                    // A C array's length is never negative.
                    let zero = self.int(0, length.span);
                    if let Some(non_negative) =
                        zero.and_then(|zero| self.binary(surface::BinaryOp::Le, zero, length.clone(), length.span))
                    {
                        parts.facts.push(non_negative);
                    }
                    (length, Vec::new())
                }
                None => {
                    let length_name = format!("{word}({})", name.name);
                    parts.length_params.push(surface::Param {
                        ty: surface::TypeName::Int,
                        ty_span: name.span,
                        name: surface::Ident { name: length_name.clone(), span: name.span },
                    });
                    let Some(length) = self.node(surface::ExprKind::Name(length_name), name.span) else { return };
                    let zero = self.int(0, name.span);
                    if let Some(non_negative) =
                        zero.and_then(|zero| self.binary(surface::BinaryOp::Le, zero, length.clone(), name.span))
                    {
                        parts.facts.push(non_negative);
                    }
                    parts.lengths.insert(name.name.clone(), length.clone());
                    (length, Vec::new())
                }
            },
        };
        // An array of vectors holds their components, `stride` cells for each.
        let size = match vector {
            Some(vector) => {
                let Some(stride) = self.int(vector.stride(), span) else { return };
                let Some(cells) = self.binary(surface::BinaryOp::Mul, size, stride, span) else { return };
                cells
            }
            None => size,
        };
        let storage = Storage::Memory(name.name.clone());
        let symbol = Symbol::Array { element: element_type, inner_dimensions, storage, offset: None, vector };
        self.declare(&name.name, symbol);
        parts.members.push(surface::Member::Arrays {
            memory,
            element: surface::TypeName::Int,
            element_span: element.span,
            size,
            names: vec![name.clone()],
            bounded: true,
            span,
        });
    }

    /// The local arrays a kernel body declares (`__shared__ int s[64];`, `local int t[16];`,
    /// `extern __shared__ int s[];`), anywhere in it: they belong to the group, not to a block.
    fn shared_arrays(&mut self, stmts: &[ast::Stmt], parts: &mut KernelParts) {
        for stmt in stmts {
            match &stmt.kind {
                ast::StmtKind::Declaration(declaration) if is_local_memory(&declaration.specifiers) => {
                    for (declarator, init) in &declaration.declarators {
                        if declarator.pointers > 0 {
                            // A private pointer into local memory ([`Lowerer::declaration`]).
                            continue;
                        }
                        if init.is_some() {
                            self.unsupported(
                                declarator.span,
                                "an initializer of local memory",
                                "local memory starts undefined; let the threads write it",
                            );
                            continue;
                        }
                        let mut dimensions = Vec::new();
                        let mut dynamic = false;
                        for dimension in &declarator.dimensions {
                            match dimension {
                                Some(size) => {
                                    let errors = self.errors();
                                    let size_expr = self.expr(size, Place::Annotation, &parts.lengths);
                                    dimensions.extend(self.reported(errors, size_expr, size.span));
                                }
                                None => dynamic = true,
                            }
                        }
                        if declarator.dimensions.is_empty() {
                            // A local scalar: one cell.
                            let Some(one) = self.int(1, declarator.span) else { continue };
                            let memory = surface::MemorySpace::Local;
                            let ty = &declaration.specifiers.ty;
                            self.array(&declarator.name, ty, memory, Some(vec![one]), "", parts, declaration.span);
                            if let Some(element) = self.c_type(ty) {
                                let name = declarator.name.name.clone();
                                self.declare(&declarator.name.name, Symbol::Cell { element, name });
                            }
                            continue;
                        }
                        let dimensions = (!dynamic).then_some(dimensions);
                        self.array(
                            &declarator.name,
                            &declaration.specifiers.ty,
                            surface::MemorySpace::Local,
                            dimensions,
                            "\\shared_mem_size",
                            parts,
                            declaration.span,
                        );
                    }
                }
                ast::StmtKind::Block(block) => self.shared_arrays(&block.stmts, parts),
                ast::StmtKind::If { then_branch, else_branch, .. } => {
                    self.shared_arrays(std::slice::from_ref(then_branch), parts);
                    if let Some(else_branch) = else_branch {
                        self.shared_arrays(std::slice::from_ref(else_branch), parts);
                    }
                }
                ast::StmtKind::While { body, .. }
                | ast::StmtKind::DoWhile { body, .. }
                | ast::StmtKind::For { body, .. } => self.shared_arrays(std::slice::from_ref(body), parts),
                _ => {}
            }
        }
    }

    fn kernel_body(&mut self, body: &ast::Block, lengths: &Lengths) -> Option<surface::Block> {
        let mut stmts = Vec::new();
        self.constant_symbols.clear();
        self.read_only.clear();
        for declaration in self.constants.clone() {
            if self.vector_type(&declaration.specifiers.ty)?.is_some()
                || declaration.declarators.iter().any(|(declarator, _)| declarator.pointers > 0)
            {
                self.unsupported(
                    declaration.span,
                    "a `__constant` vector or pointer",
                    "declare `__constant` scalars and arrays of scalars",
                );
                return None;
            }
            // A kernel parameter of the same name hides the constant, as in C.
            let mut declaration = declaration.clone();
            declaration.declarators.retain(|(declarator, _)| self.lookup(&declarator.name.name).is_none());
            stmts.extend(self.declaration(&declaration, lengths)?);
            for (declarator, _) in &declaration.declarators {
                let name = &declarator.name.name;
                let symbol = self.lookup(name).cloned();
                match &symbol {
                    Some(Symbol::Scalar { name, .. }) => {
                        self.read_only.insert(name.clone());
                    }
                    Some(Symbol::Array { storage: Storage::Private(cells), .. }) => {
                        self.read_only.extend(cells.iter().cloned());
                    }
                    _ => {}
                }
                if let Some(symbol) = symbol {
                    self.constant_symbols.insert(name.clone(), symbol);
                }
            }
        }
        stmts.extend(self.function_body(&body.stmts, lengths, body.span)?);
        Some(surface::Block { stmts, span: body.span })
    }

    /// A write to the variable `variable` of the surface kernel, which is an error where it
    /// holds (a cell of) a file-scope `__constant`, as in C; whether it is.
    fn writes_constant(&mut self, variable: &str, span: Span) -> bool {
        if !self.read_only.contains(variable) {
            return false;
        }
        self.diagnostics.push(
            Diagnostic::error(Code::TypeMismatch, "a write to `__constant` memory", span, "read-only")
                .with_help("`__constant` memory is read-only: copy the value into a variable of its own"),
        );
        true
    }

    fn surface_stmt(&mut self, kind: surface::StmtKind, span: Span) -> Option<surface::Stmt> {
        self.checked(surface::Stmt::new(kind, span))
    }

    fn block_of(&mut self, stmts: Vec<surface::Stmt>, span: Span) -> Option<surface::Stmt> {
        self.surface_stmt(surface::StmtKind::Block(surface::Block { stmts, span }), span)
    }

    /// Lowers a list of statements. An annotation goes with the barrier or loop after it. Where
    /// the list `ends_function` (nothing runs after it but the end of the kernel or of the
    /// inlined helper: the body, and the tail of an `if` or block that ends such a list, outside
    /// loops), a `return` guards the statements after it; anywhere else it is refused.
    fn statements(
        &mut self,
        stmts: &[ast::Stmt],
        lengths: &Lengths,
        ends_function: bool,
    ) -> Option<Vec<surface::Stmt>> {
        self.scopes.push(HashMap::new());
        // Each statement places its own code before itself.
        let before = self.before.take();
        let conditional = std::mem::replace(&mut self.conditional, false);
        // A block's barrier invariants go to a barrier of its own.
        let outer_invariants = std::mem::take(&mut self.barrier_invariants);
        let lowered = self.statements_in_scope(stmts, lengths, ends_function);
        self.unclaimed_barrier_invariants();
        self.barrier_invariants = outer_invariants;
        self.before = before;
        self.conditional = conditional;
        self.scopes.pop();
        lowered
    }

    /// Lowers a statement's expressions with `lower`: what it gives, and what must run before
    /// the statement (the inlined code of the helper calls in them, ...).
    fn with_before<T>(&mut self, lower: impl FnOnce(&mut Self) -> Option<T>) -> Option<(Vec<surface::Stmt>, T)> {
        let outer = self.before.replace(Vec::new());
        let lowered = lower(self);
        let before = std::mem::replace(&mut self.before, outer).unwrap_or_default();
        Some((before, lowered?))
    }

    /// The statements `lower` gives, after what must run before them.
    fn before_then(
        &mut self,
        lower: impl FnOnce(&mut Self) -> Option<Vec<surface::Stmt>>,
    ) -> Option<Vec<surface::Stmt>> {
        let (mut stmts, lowered) = self.with_before(lower)?;
        stmts.extend(lowered);
        Some(stmts)
    }

    /// Lowers with `lower` an expression that may run more than once in its statement (a loop's
    /// condition): nothing can be placed before it.
    fn repeated<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.before.take();
        let lowered = lower(self);
        self.before = outer;
        lowered
    }

    /// Lowers with `lower` an expression that may not run when its statement does (after `&&`,
    /// `||` or `?`): no helper call in it can be inlined before the statement.
    fn conditionally<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.conditional, true);
        let lowered = lower(self);
        self.conditional = outer;
        lowered
    }

    /// Whether code can run before the statement being lowered, once, where the expression at
    /// `span` would (an inlined call, an atomic operation); if not, `what` is refused.
    fn runs_once_before(&mut self, span: Span, what: String) -> bool {
        if self.before.is_some() && !self.conditional {
            return true;
        }
        self.unsupported(
            span,
            what,
            "lockstep runs it before the statement it is in, which reads it only where it runs exactly once there: not in a loop's condition, nor after `&&`, `||` or `?`; write it in a statement of its own",
        );
        false
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

    fn statements_in_scope(
        &mut self,
        stmts: &[ast::Stmt],
        lengths: &Lengths,
        ends_function: bool,
    ) -> Option<Vec<surface::Stmt>> {
        let mut lowered = Vec::new();
        let mut ok = true;
        let mut index = 0;
        while index < stmts.len() {
            let stmt = &stmts[index];
            index += 1;
            let returns_before = self.flagged_returns;
            // The statement after which the rest may have to be guarded.
            let mut guarded_after = None;
            match &stmt.kind {
                ast::StmtKind::Annotation(annotation) => {
                    let next = stmts.get(index);
                    if next.is_some_and(|next| is_barrier(next) || is_loop(next)) {
                        let next = next.expect("checked");
                        index += 1;
                        let last = ends_function && index == stmts.len();
                        match self.stmt_with_annotation(next, Some(annotation), lengths, last) {
                            Some(stmts) => lowered.extend(stmts),
                            None => ok = false,
                        }
                        guarded_after = Some(next);
                    } else {
                        ok &= self.assertions(annotation, lengths, &mut lowered);
                    }
                }
                ast::StmtKind::Return(value) if ends_function => {
                    match self.before_then(|lowerer| lowerer.returned(value.as_ref(), stmt.span, lengths)) {
                        Some(stmts) => lowered.extend(stmts),
                        None => ok = false,
                    }
                    // The statements after it never run.
                    break;
                }
                ast::StmtKind::If { cond, then_branch, else_branch }
                    if ends_function
                        && (ends_in_return(then_branch) || else_branch.as_deref().is_some_and(ends_in_return)) =>
                {
                    // `if (c) { A; return; } else { B }  R` is `if (c) { A } else { B R }`.
                    let rest = &stmts[index..];
                    index = stmts.len();
                    let condition = self.with_before(|lowerer| lowerer.condition(cond, lengths));
                    let branch = |lowerer: &mut Lowerer, branch: Option<&ast::Stmt>| -> Option<surface::Stmt> {
                        let mut body: Vec<ast::Stmt> = branch.map(flatten).unwrap_or_default();
                        if !branch.is_some_and(ends_in_return) {
                            body.extend(rest.iter().cloned());
                        }
                        let span = branch.map_or(stmt.span, |branch| branch.span);
                        // The branch holds the rest of this list, which ends the kernel.
                        let stmts = lowerer.statements(&body, lengths, true)?;
                        lowerer.block_of(stmts, span)
                    };
                    let then_lowered = branch(self, Some(then_branch));
                    let else_lowered = branch(self, else_branch.as_deref());
                    let (Some((before, cond)), Some(then_branch), Some(else_branch)) =
                        (condition, then_lowered, else_lowered)
                    else {
                        ok = false;
                        continue;
                    };
                    lowered.extend(before);
                    let kind = surface::StmtKind::If {
                        cond,
                        then_branch: Box::new(then_branch),
                        else_branch: Some(Box::new(else_branch)),
                    };
                    match self.surface_stmt(kind, stmt.span) {
                        Some(lowered_if) => lowered.push(lowered_if),
                        None => ok = false,
                    }
                }
                _ => {
                    match self.stmt_with_annotation(stmt, None, lengths, ends_function && index == stmts.len()) {
                        Some(stmts) => lowered.extend(stmts),
                        None => ok = false,
                    }
                    guarded_after = Some(stmt);
                }
            }
            // After a `break`, `continue` or `return` that may have run, the rest runs under the
            // guard that it did not ([`crate::c::lower::loops`]).
            let Some(after) = guarded_after.filter(|_| index < stmts.len()) else { continue };
            match self.guard_after(after, self.flagged_returns > returns_before) {
                Some(None) => {}
                Some(Some(guard)) => {
                    let rest = &stmts[index..];
                    index = stmts.len();
                    let rest = self.statements(rest, lengths, ends_function);
                    let rest = rest.and_then(|rest| self.block_of(rest, after.span));
                    let guarded = rest.and_then(|rest| {
                        let kind =
                            surface::StmtKind::If { cond: guard, then_branch: Box::new(rest), else_branch: None };
                        self.surface_stmt(kind, after.span)
                    });
                    match guarded {
                        Some(guarded) => lowered.push(guarded),
                        None => ok = false,
                    }
                }
                None => ok = false,
            }
        }
        ok.then_some(lowered)
    }

    /// The `assert`s and `assume`s of an annotation between statements.
    fn assertions(&mut self, annotation: &ast::Annotation, lengths: &Lengths, out: &mut Vec<surface::Stmt>) -> bool {
        let mut ok = true;
        for clause in &annotation.clauses {
            match clause {
                ast::SpecClause::Clause {
                    kind: kind @ (ast::SpecKind::Assert | ast::SpecKind::Assume),
                    formula,
                    span,
                } => {
                    let Some(formula) = self.expr(formula, Place::Annotation, lengths) else {
                        ok = false;
                        continue;
                    };
                    let kind = if *kind == ast::SpecKind::Assert {
                        surface::StmtKind::Assert(formula)
                    } else {
                        surface::StmtKind::Assume(formula)
                    };
                    match self.surface_stmt(kind, *span) {
                        Some(stmt) => out.push(stmt),
                        None => ok = false,
                    }
                }
                ast::SpecClause::Clause { kind, span, .. } => {
                    self.misplaced_clause(*kind, *span, "an annotation that is not before a kernel, barrier or loop");
                    ok = false;
                }
                ast::SpecClause::Unknown { keyword, span } => {
                    self.unknown_clause(keyword, *span);
                    ok = false;
                }
            }
        }
        ok
    }

    /// The clauses of an annotation before a barrier or a loop, of the kinds it takes.
    fn contract_clauses(
        &mut self,
        annotation: Option<&ast::Annotation>,
        lengths: &Lengths,
        for_loop: bool,
    ) -> Option<Vec<surface::Clause>> {
        let mut clauses = Vec::new();
        let mut ok = true;
        for clause in annotation.map(|annotation| annotation.clauses.as_slice()).unwrap_or_default() {
            match clause {
                ast::SpecClause::Clause { kind, formula, span } => {
                    let kind = match (kind, for_loop) {
                        (ast::SpecKind::LoopInvariant, true) => surface::ClauseKind::Invariant,
                        (ast::SpecKind::Requires, false) => surface::ClauseKind::Requires,
                        (ast::SpecKind::Ensures, false) => surface::ClauseKind::Ensures,
                        (ast::SpecKind::Context, false) => surface::ClauseKind::Context,
                        (other, _) => {
                            let place = if for_loop { "the annotation of a loop" } else { "a barrier's contract" };
                            self.misplaced_clause(*other, *span, place);
                            ok = false;
                            continue;
                        }
                    };
                    match self.expr(formula, Place::Annotation, lengths) {
                        Some(formula) => {
                            clauses.push(surface::Clause { level: surface::Level::Thread, kind, formula, span: *span })
                        }
                        None => ok = false,
                    }
                }
                ast::SpecClause::Unknown { keyword, span } => {
                    self.unknown_clause(keyword, *span);
                    ok = false;
                }
            }
        }
        ok.then_some(clauses)
    }

    /// Lowers one statement (into none, one or several), with the annotation written before it;
    /// `ends_function` when nothing runs after it but the kernel's end ([`Lowerer::statements`]).
    fn stmt_with_annotation(
        &mut self,
        stmt: &ast::Stmt,
        annotation: Option<&ast::Annotation>,
        lengths: &Lengths,
        ends_function: bool,
    ) -> Option<Vec<surface::Stmt>> {
        let span = stmt.span;
        let one =
            |lowerer: &mut Lowerer, kind: surface::StmtKind| lowerer.surface_stmt(kind, span).map(|stmt| vec![stmt]);
        match &stmt.kind {
            // Local memory belongs to the group ([`Lowerer::shared_arrays`]); a pointer into it is a
            // private variable.
            ast::StmtKind::Declaration(declaration)
                if is_local_memory(&declaration.specifiers)
                    && declaration.declarators.iter().all(|(declarator, _)| declarator.pointers == 0) =>
            {
                Some(Vec::new())
            }
            ast::StmtKind::Declaration(declaration) => {
                let assumes = matches!(declaration.declarators.as_slice(), [(_, Some(init))] if is_noovfl_call(init));
                self.noovfl_statement = assumes;
                let lowered = self.before_then(|lowerer| lowerer.declaration(declaration, lengths));
                self.noovfl_statement = false;
                lowered
            }
            ast::StmtKind::Expr(expr) if is_noovfl_assignment(expr) => {
                self.noovfl_statement = true;
                let lowered = self.before_then(|lowerer| lowerer.expression_statement(expr, lengths));
                self.noovfl_statement = false;
                lowered
            }
            ast::StmtKind::Expr(expr) => match barrier_fences(expr) {
                Some(fences) => {
                    let fences = self.fences(fences, expr.span)?;
                    let mut clauses = self.contract_clauses(annotation, lengths, false)?;
                    clauses.append(&mut self.barrier_invariants);
                    let resets = self.log_resets(&fences, span);
                    let barrier = surface::StmtKind::Barrier { label: None, fences: Some(fences), clauses };
                    let mut stmts = one(self, barrier)?;
                    stmts.extend(resets);
                    Some(stmts)
                }
                None => self.before_then(|lowerer| lowerer.expression_statement(expr, lengths)),
            },
            ast::StmtKind::If { cond, then_branch, else_branch } => {
                let cond = self.with_before(|lowerer| lowerer.condition(cond, lengths));
                let then_branch = self.branch(then_branch, lengths, ends_function);
                let else_branch = match else_branch {
                    Some(branch) => Some(self.branch(branch, lengths, ends_function)?),
                    None => None,
                };
                let (mut before, cond) = cond?;
                let kind = surface::StmtKind::If {
                    cond,
                    then_branch: Box::new(then_branch?),
                    else_branch: else_branch.map(Box::new),
                };
                before.push(self.surface_stmt(kind, span)?);
                Some(before)
            }
            ast::StmtKind::While { cond, body } => {
                let parts = Loop { init: None, cond: Some(cond), step: None, body, body_first: false };
                self.c_loop(stmt, annotation, parts, lengths)
            }
            ast::StmtKind::For { init, cond, step, body } => {
                self.scopes.push(HashMap::new());
                let parts =
                    Loop { init: init.as_deref(), cond: cond.as_ref(), step: step.as_ref(), body, body_first: false };
                let lowered = self.c_loop(stmt, annotation, parts, lengths);
                self.scopes.pop();
                let lowered = lowered?;
                one(self, surface::StmtKind::Block(surface::Block { stmts: lowered, span }))
            }
            ast::StmtKind::DoWhile { body, cond } => {
                let parts = Loop { init: None, cond: Some(cond), step: None, body, body_first: true };
                self.c_loop(stmt, annotation, parts, lengths)
            }
            ast::StmtKind::Break | ast::StmtKind::Continue => self.jump(stmt),
            ast::StmtKind::Return(value) => self.flagged_return(value.as_ref(), span, lengths),
            ast::StmtKind::Unsupported(construct) => {
                self.unsupported(span, format!("`{construct}`"), "write it with `if` and `else`");
                None
            }
            ast::StmtKind::Block(block) => {
                let stmts = self.statements(&block.stmts, lengths, ends_function)?;
                one(self, surface::StmtKind::Block(surface::Block { stmts, span }))
            }
            ast::StmtKind::Annotation(annotation) => {
                let mut out = Vec::new();
                self.assertions(annotation, lengths, &mut out).then_some(out)
            }
            ast::StmtKind::Empty => Some(Vec::new()),
            ast::StmtKind::Error => None,
        }
    }

    fn branch(&mut self, stmt: &ast::Stmt, lengths: &Lengths, ends_function: bool) -> Option<surface::Stmt> {
        let stmts = self.statements(std::slice::from_ref(stmt), lengths, ends_function)?;
        self.block_of(stmts, stmt.span)
    }

    fn declaration(&mut self, declaration: &ast::Declaration, lengths: &Lengths) -> Option<Vec<surface::Stmt>> {
        if let Some(vector) = self.vector_type(&declaration.specifiers.ty)? {
            return self.vector_declarations(declaration, vector, lengths);
        }
        let ty = self.c_type(&declaration.specifiers.ty)?;
        let mut lowered = Vec::new();
        let mut ok = true;
        for (declarator, init) in &declaration.declarators {
            if declarator.pointers == 0 && is_local_memory(&declaration.specifiers) {
                // Declared for the group already ([`Lowerer::shared_arrays`]).
                continue;
            }
            if declarator.pointers == 1 && declarator.dimensions.is_empty() {
                match self.pointer_variable(declarator, ty, init.as_ref(), lengths) {
                    Some(stmts) => lowered.extend(stmts),
                    None => ok = false,
                }
                continue;
            }
            if declarator.pointers == 0 && !declarator.dimensions.is_empty() {
                let ty_span = declaration.specifiers.ty.span;
                match self.private_array(declarator, ty, ty_span, init.as_ref(), lengths) {
                    Some(stmts) => lowered.extend(stmts),
                    None => ok = false,
                }
                continue;
            }
            if declarator.pointers > 0 {
                self.unsupported(
                    declarator.span,
                    "a private array of pointers or a pointer to pointers",
                    "point into one array with each pointer variable",
                );
                ok = false;
                continue;
            }
            let init = match init {
                Some(init) => match self.typed(init, Place::Code, lengths) {
                    Some(value) => Some(value),
                    None => {
                        ok = false;
                        continue;
                    }
                },
                None => None,
            };
            let init = match init {
                Some(value) => match self.convert(value, ty, Place::Code, declarator.span) {
                    Some(value) => Some(value),
                    None => {
                        ok = false;
                        continue;
                    }
                },
                None => None,
            };
            // A variable never assigned again keeps the interval of its first value.
            let interval = match &init {
                Some(value) if !self.assigned.contains(&declarator.name.name) => value.interval.clone(),
                _ => ty.interval(),
            };
            let init = init.map(|value| value.expr);
            let name = self.local_name(&declarator.name.name);
            if init.is_none() {
                self.uninitialized.insert(name.clone());
            }
            self.declare(&declarator.name.name, Symbol::Scalar { ty, interval, name: name.clone() });
            let kind = surface::StmtKind::Declare {
                ty: ty.surface(),
                ty_span: declaration.specifiers.ty.span,
                name: surface::Ident { name, span: declarator.name.span },
                init,
            };
            match self.surface_stmt(kind, declarator.span) {
                Some(stmt) => lowered.push(stmt),
                None => ok = false,
            }
        }
        ok.then_some(lowered)
    }

    /// The declarations of private vectors: `float4 a, b = e;`.
    fn vector_declarations(
        &mut self,
        declaration: &ast::Declaration,
        vector: VectorType,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let mut lowered = Vec::new();
        let mut ok = true;
        for (declarator, init) in &declaration.declarators {
            if declarator.pointers > 0 || !declarator.dimensions.is_empty() {
                self.unsupported(
                    declarator.span,
                    "a private array of vectors or a pointer to vectors",
                    "keep private vectors in variables, or use local or global memory",
                );
                ok = false;
                continue;
            }
            let ty_span = declaration.specifiers.ty.span;
            match self.vector_declaration(declarator, vector, init.as_ref(), ty_span, lengths) {
                Some(stmts) => lowered.extend(stmts),
                None => ok = false,
            }
        }
        ok.then_some(lowered)
    }

    /// How integers are read at a place: annotations are mathematical, code as the file asks.
    fn integers(&self, place: Place) -> Integers {
        match place {
            Place::Code => self.integers,
            Place::Annotation => Integers::Mathematical,
        }
    }

    /// A lowered value converted to `ty`, as C converts it (code) or as the specification
    /// language compares it (annotations).
    fn converted(&mut self, value: Value, ty: CType, place: Place, span: Span) -> Option<surface::Expr> {
        self.convert(value, ty, place, span).map(|value| value.expr)
    }

    /// A value converted to `ty`. A conversion to or from a floating-point type (other than to
    /// its own) gives an arbitrary value of `ty` ([`Lowerer::arbitrary`]).
    fn convert(&mut self, value: Value, ty: CType, place: Place, span: Span) -> Option<Value> {
        match (value.ty, ty) {
            (CType::Float(from), CType::Float(to)) if from == to => Some(value),
            (CType::Float(_), _) | (_, CType::Float(_)) => self.arbitrary(ty, vec![value], place, span),
            _ => {
                let integers = self.integers(place);
                self.checked(integers::convert(value, ty, integers, span))
            }
        }
    }

    /// The result of a floating-point operation, of type `ty`: an arbitrary value, so that no
    /// property of floating-point arithmetic can be assumed wrongly. It is a variable declared
    /// without a value before the statement (each run of the statement gives it a new one; `run`
    /// gives it 0), and the operands' code stays in the expression beside it, multiplied by 0,
    /// so that their reads, bounds and overflows are still checked where C evaluates them.
    fn arbitrary(&mut self, ty: CType, operands: Vec<Value>, place: Place, span: Span) -> Option<Value> {
        if place == Place::Annotation {
            self.unsupported(
                span,
                "floating-point arithmetic or a floating-point constant in an annotation",
                "annotations compare floating-point values only as they are copied: `out[i] == in[i]`",
            );
            return None;
        }
        if self.before.is_none() {
            self.unsupported(
                span,
                "a floating-point operation in a loop's condition",
                "compute the condition into a variable before the loop and at the end of its body",
            );
            return None;
        }
        self.fresh += 1;
        let name = format!("\\arbitrary@{}", self.fresh);
        let declare = surface::StmtKind::Declare {
            ty: ty.surface(),
            ty_span: span,
            name: surface::Ident { name: name.clone(), span },
            init: None,
        };
        let declare = self.surface_stmt(declare, span)?;
        self.before.get_or_insert_with(Vec::new).push(declare);
        // 0 * e for an operand with code in it (an int), or `e ? 0 : 0` (a bool).
        let mut kept: Option<surface::Expr> = None;
        for operand in operands {
            if matches!(
                operand.expr.kind,
                surface::ExprKind::Int(_)
                    | surface::ExprKind::Bool(_)
                    | surface::ExprKind::Name(_)
                    | surface::ExprKind::Builtin(_)
            ) {
                continue;
            }
            let zero = self.int(0, operand.expr.span)?;
            let part = match operand.ty {
                CType::Bool => {
                    let other_zero = zero.clone();
                    let kind = surface::ExprKind::Cond {
                        cond: Box::new(operand.expr),
                        then_value: Box::new(zero),
                        else_value: Box::new(other_zero),
                    };
                    self.node(kind, span)?
                }
                _ => self.binary(surface::BinaryOp::Mul, zero, operand.expr, span)?,
            };
            kept = Some(match kept {
                Some(kept) => self.binary(surface::BinaryOp::Add, kept, part, span)?,
                None => part,
            });
        }
        let value = self.node(surface::ExprKind::Name(name), span)?;
        let expr = match (kept, ty) {
            (None, _) => value,
            // The operands first, so that they are evaluated whatever the value.
            (Some(kept), CType::Bool) => {
                let zero = self.int(0, span)?;
                let evaluated = self.binary(surface::BinaryOp::Eq, kept, zero, span)?;
                self.binary(surface::BinaryOp::And, evaluated, value, span)?
            }
            (Some(kept), _) => self.binary(surface::BinaryOp::Add, value, kept, span)?,
        };
        Some(Value { expr, ty, interval: ty.interval() })
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

    /// An expression of type `ty` in code: an `int` where a `bool` is wanted holds when it is not
    /// 0, and a `bool` where an `int` is wanted is 1 or 0, as in C.
    fn value(&mut self, expr: &ast::Expr, ty: CType, lengths: &Lengths) -> Option<surface::Expr> {
        let value = self.typed(expr, Place::Code, lengths)?;
        self.converted(value, ty, Place::Code, expr.span)
    }

    fn condition(&mut self, expr: &ast::Expr, lengths: &Lengths) -> Option<surface::Expr> {
        self.value(expr, CType::Bool, lengths)
    }

    /// An expression statement: an assignment, `++`/`--`, or a call.
    fn expression_statement(&mut self, expr: &ast::Expr, lengths: &Lengths) -> Option<Vec<surface::Stmt>> {
        let span = expr.span;
        let (target, op, value): (&ast::Expr, Option<ast::BinaryOp>, Option<&ast::Expr>) = match &expr.kind {
            ast::ExprKind::Assign { op, target, value } => (target, *op, Some(value)),
            ast::ExprKind::Unary { op: ast::UnaryOp::PreIncrement | ast::UnaryOp::PostIncrement, operand } => {
                (operand, Some(ast::BinaryOp::Add), None)
            }
            ast::ExprKind::Unary { op: ast::UnaryOp::PreDecrement | ast::UnaryOp::PostDecrement, operand } => {
                (operand, Some(ast::BinaryOp::Sub), None)
            }
            ast::ExprKind::Comma(first, second) => {
                let mut lowered = self.expression_statement(first, lengths)?;
                lowered.extend(self.expression_statement(second, lengths)?);
                return Some(lowered);
            }
            ast::ExprKind::Call { function, args }
                if matches!(function.name.as_str(), "__assert" | "__assume" | "__global_assert") =>
            {
                // GPUVerify's `__assert(e)` and `__assume(e)`, checked and assumed as annotations;
                // `__global_assert(e)` holds in every thread, so it is checked in this one.
                let [formula] = args.as_slice() else {
                    self.argument_count(&function.name, 1, args.len(), span);
                    return None;
                };
                if function.name == "__assume" && self.hint_left_out(formula, span, "this assumption", false) {
                    return Some(Vec::new());
                }
                if self.global_over_logs(&function.name, formula, span) {
                    return None;
                }
                let formula = self.gpuverify_formula(formula, lengths)?;
                let kind = if function.name != "__assume" {
                    surface::StmtKind::Assert(formula)
                } else {
                    surface::StmtKind::Assume(formula)
                };
                return self.surface_stmt(kind, span).map(|stmt| vec![stmt]);
            }
            ast::ExprKind::Call { function, .. } if matches!(function.name.as_str(), "__requires" | "__ensures") => {
                self.diagnostics.push(
                    Diagnostic::error(Code::StrayClause, format!("`{}` after the kernel's first statements", function.name), span, "not at the start of the kernel")
                        .with_help("GPUVerify's `__requires` and `__ensures` stand at the start of a kernel's body, before any other statement"),
                );
                return None;
            }
            ast::ExprKind::Call { function, .. } if function.name == "__requires_fresh_array" => {
                // An assumption: left out, nothing is lost.
                self.left_out(
                    span,
                    "GPUVerify's `__requires_fresh_array`".to_string(),
                    "it tells GPUVerify's access logs that no thread has touched the array yet; lockstep's permissions say which thread may touch which cell",
                );
                return Some(Vec::new());
            }
            ast::ExprKind::Call { function, args } if barrier_invariants::is_barrier_invariant(&function.name) => {
                return self.barrier_invariant(&function.name, args, span, lengths).map(|()| Vec::new());
            }
            // Read at each loop of the function ([`Lowerer::function_wide_invariants`]).
            ast::ExprKind::Call { function, .. } if FUNCTION_WIDE_INVARIANTS.contains(&function.name.as_str()) => {
                return Some(Vec::new());
            }
            ast::ExprKind::Call { function, .. } if is_proof_hint(&function.name) => {
                self.left_out(
                    span,
                    format!("GPUVerify's `{}`", function.name),
                    "it speaks of pairs of threads, as GPUVerify's two-thread encoding checks them; lockstep checks each thread on its own",
                );
                return Some(Vec::new());
            }
            ast::ExprKind::Call { function, args } if self.helpers.contains_key(function.name.as_str()) => {
                return self.inline(function, args, span, lengths).map(|(stmts, _)| stmts);
            }
            ast::ExprKind::Call { function, args } if atomics::is_atomic(&function.name) => {
                return self.atomic(&function.name, args, span, lengths).map(|(stmts, _)| stmts);
            }
            ast::ExprKind::Call { function, args } if self.prototypes.contains_key(function.name.as_str()) => {
                // Evaluated for its arguments' sake, into a variable nothing reads.
                let value = self.undefined_call(&function.name, args, span, Place::Code, lengths)?;
                self.fresh += 1;
                let kind = surface::StmtKind::Declare {
                    ty: value.ty.surface(),
                    ty_span: span,
                    name: surface::Ident { name: format!("\\unused@{}", self.fresh), span },
                    init: Some(value.expr),
                };
                return self.surface_stmt(kind, span).map(|stmt| vec![stmt]);
            }
            ast::ExprKind::Call { function, .. } if MEMORY_FENCES.contains(&function.name.as_str()) => {
                return Some(Vec::new());
            }
            ast::ExprKind::Call { function, args } if vectors::is_vstore(&function.name) => {
                return self.vstore(&function.name, args, span, lengths);
            }
            ast::ExprKind::Call { function, .. } => {
                self.unsupported(
                    span,
                    format!("a call of `{}` as a statement", function.name),
                    "lockstep knows the barriers, GPUVerify's `__assert`, `__assume`, `__requires` and `__ensures`, the built-ins that compute values, and the helper functions the file defines",
                );
                return None;
            }
            _ => {
                self.unsupported(span, "an expression statement without an effect", "remove it");
                return None;
            }
        };
        // The value assigned: `e`, or `target op e` for `op=`, `++` and `--`, converted to the
        // target's type.
        let assigned = match (op, value) {
            (None, Some(value)) => value.clone(),
            (Some(op), value) => {
                let one = ast::Expr::int(1, span);
                let rhs = value.cloned().unwrap_or(one);
                match ast::Expr::binary(op, target.clone(), rhs) {
                    Ok(expr) => ast::Expr { span, ..expr },
                    Err(too_deep) => {
                        self.too_deep(too_deep.span);
                        return None;
                    }
                }
            }
            (None, None) => return None,
        };
        if let Some(vector) = self.shape(target) {
            return self.vector_assignment(target, vector, &assigned, span, lengths);
        }
        let kind = match &target.kind {
            ast::ExprKind::Member { base, field, arrow: false } if self.shape(base).is_some() => {
                match self.component(base, field)? {
                    vectors::Component::Private { name, ty } => {
                        let value = self.value(&assigned, ty, lengths)?;
                        surface::StmtKind::Assign { target: surface::Ident { name, span: target.span }, value }
                    }
                    vectors::Component::Memory(cell) => {
                        let cell = self.location(&cell, Place::Code, lengths)?;
                        self.write_location(cell, &assigned, span, lengths)?
                    }
                    vectors::Component::Value(_) => {
                        self.unsupported(
                            target.span,
                            "an assignment to a component of a vector value",
                            "assign to a component of a vector variable or array element: `v.x = e`",
                        );
                        return None;
                    }
                }
            }
            ast::ExprKind::Name(name) if matches!(self.lookup(name), Some(Symbol::Pointer { .. })) => {
                self.pointer_assignment(name, &assigned, lengths)?
            }
            ast::ExprKind::Name(name) if matches!(self.lookup(name), Some(Symbol::Cell { .. })) => {
                let cell = self.location_at(target, &[], None, span, Place::Code, lengths)?;
                self.write_location(cell, &assigned, span, lengths)?
            }
            ast::ExprKind::Name(name) => {
                let (ty, name) = match self.lookup(name) {
                    Some(Symbol::Scalar { ty, name, .. }) => (*ty, name.clone()),
                    _ => (CType::Int(integers::INT), name.clone()),
                };
                if self.writes_constant(&name, target.span) {
                    return None;
                }
                let value = self.value(&assigned, ty, lengths)?;
                surface::StmtKind::Assign { target: surface::Ident { name, span: target.span }, value }
            }
            ast::ExprKind::Index { .. } | ast::ExprKind::Unary { op: ast::UnaryOp::Deref, .. } => {
                let cell = self.location(target, Place::Code, lengths)?;
                self.write_location(cell, &assigned, span, lengths)?
            }
            _ => {
                self.unsupported(
                    target.span,
                    "an assignment to this kind of target",
                    "assign to a variable or an array element",
                );
                return None;
            }
        };
        self.surface_stmt(kind, span).map(|stmt| vec![stmt])
    }

    fn fences(&mut self, fences: Fences, span: Span) -> Option<Vec<surface::FenceName>> {
        let name = |name: &str| surface::Ident { name: name.to_string(), span };
        match fences {
            Fences::Both => Some(vec![name("local"), name("global")]),
            Fences::Flags(flags) => {
                let mut names = Vec::new();
                let mut ok = true;
                for flag in flags_of(flags) {
                    if let Some(bits) = fence_bits(flag) {
                        if bits & 1 != 0 {
                            names.push(name("local"));
                        }
                        if bits & 2 != 0 {
                            names.push(name("global"));
                        }
                        continue;
                    }
                    match &flag.kind {
                        ast::ExprKind::Name(word) if !word.starts_with("CLK_") => {
                            // A variable: which memories it fences depends on its value, and
                            // fencing fewer than it may is sound (a race or a permission that
                            // moves across the barrier is then reported, never hidden).
                            self.diagnostics.push(
                                Diagnostic::warning(
                                    Code::VariableFlags,
                                    format!("the barrier flag `{word}` is a variable, taken to fence no memory"),
                                    flag.span,
                                    "fences nothing",
                                )
                                .with_help("write the flags as constants, `CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE`, for the barrier to fence them"),
                            );
                        }
                        _ => {
                            self.diagnostics.push(
                                Diagnostic::error(Code::UnknownFence, "a barrier flag lockstep does not know", flag.span, "not a fence flag")
                                    .with_help("OpenCL's barriers take `CLK_LOCAL_MEM_FENCE`, `CLK_GLOBAL_MEM_FENCE` or both, joined by `|`"),
                            );
                            ok = false;
                        }
                    }
                }
                ok.then_some(names)
            }
        }
    }

    /// The value a cell holds, in memory or private.
    fn read_location(&mut self, location: Location, place: Place, span: Span) -> Option<Value> {
        match location {
            Location::Memory(cell) => self.read_cell(cell, place, span),
            Location::Private(cells, index, element) => self.read_private(&cells, index, element, span),
            Location::Null(index, element) => {
                let value = self.through_null(index, span)?;
                let expr = match element {
                    CType::Bool => {
                        let zero = self.int(0, span)?;
                        self.binary(surface::BinaryOp::Ne, value, zero, span)?
                    }
                    _ => value,
                };
                Some(Value { expr, ty: element, interval: element.interval() })
            }
            Location::Either { tag, options } => {
                let mut values = Vec::new();
                for option in options {
                    values.push(self.read_location(option, place, span)?);
                }
                let mut picked = values.pop()?;
                for (k, value) in values.into_iter().enumerate().rev() {
                    let cond = self.is_option(&tag, k, span)?;
                    let kind = surface::ExprKind::Cond {
                        cond: Box::new(cond),
                        then_value: Box::new(value.expr),
                        else_value: Box::new(picked.expr),
                    };
                    picked = Value { expr: self.node(kind, span)?, ..picked };
                }
                Some(picked)
            }
        }
    }

    /// An access at `index` through the null pointer: an index into no cell, whose
    /// `access.bounds` check fails wherever the access may happen.
    fn through_null(&mut self, index: surface::Expr, span: Span) -> Option<surface::Expr> {
        self.node(surface::ExprKind::PrivateIndex { index: Box::new(index), length: 0 }, span)
    }

    /// An access through the null pointer as a statement, `int \null@n = ...;` (see
    /// [`Lowerer::through_null`]), and the variable it declares.
    fn null_access(&mut self, index: surface::Expr, span: Span) -> Option<(surface::StmtKind, String)> {
        self.fresh += 1;
        let name = format!("\\null@{}", self.fresh);
        let init = Some(self.through_null(index, span)?);
        let ident = surface::Ident { name: name.clone(), span };
        Some((surface::StmtKind::Declare { ty: surface::TypeName::Int, ty_span: span, name: ident, init }, name))
    }

    /// `tag == k`: a pointer that may point into several arrays points into its `k`th.
    fn is_option(&mut self, tag: &str, k: usize, span: Span) -> Option<surface::Expr> {
        let tag = self.node(surface::ExprKind::Name(tag.to_string()), span)?;
        let k = self.int(k, span)?;
        self.binary(surface::BinaryOp::Eq, tag, k, span)
    }

    /// The write of `assigned`, converted to the cell's type, into a cell.
    fn write_location(
        &mut self,
        location: Location,
        assigned: &ast::Expr,
        span: Span,
        lengths: &Lengths,
    ) -> Option<surface::StmtKind> {
        let value = self.value(assigned, location.element(), lengths)?;
        self.write_value(location, value, span)
    }

    /// The write of `value` (of the cell's type) into a cell.
    fn write_value(&mut self, location: Location, value: surface::Expr, span: Span) -> Option<surface::StmtKind> {
        match location {
            Location::Memory(cell) => self.write_cell(cell, value, span),
            Location::Private(cells, index, _) => self.write_private(&cells, index, value, span),
            Location::Null(index, _) => self.null_access(index, span).map(|(access, _)| access),
            Location::Either { tag, options } => {
                let mut otherwise: Option<Box<surface::Stmt>> = None;
                let last = options.len().checked_sub(1)?;
                for (k, option) in options.into_iter().enumerate().rev() {
                    let write = self.write_value(option, value.clone(), span)?;
                    let write = self.surface_stmt(write, span)?;
                    otherwise = Some(Box::new(if k == last {
                        write
                    } else {
                        let cond = self.is_option(&tag, k, span)?;
                        let kind =
                            surface::StmtKind::If { cond, then_branch: Box::new(write), else_branch: otherwise.take() };
                        self.surface_stmt(kind, span)?
                    }));
                }
                Some(otherwise?.kind)
            }
        }
    }

    /// The cell in memory a permission is held on, or a diagnostic where it is elsewhere.
    fn memory_location(&mut self, location: Location, span: Span) -> Option<ArrayCell> {
        let what = match location {
            Location::Memory(cell) => return Some(cell),
            Location::Private(..) => "a cell of a private array",
            Location::Null(..) | Location::Either { .. } => {
                "a cell through a pointer that may be null or point into several arrays"
            }
        };
        self.no_permission_here(span, what.into());
        None
    }

    /// `Perm(..)` of something that is not memory: permissions are of memory.
    fn no_permission_here(&mut self, span: Span, what: String) {
        self.diagnostics.push(
            Diagnostic::error(Code::PermissionLocation, format!("{what} is not a cell of memory"), span, "not an array cell")
                .with_help("permissions are held on cells of global and local memory: `Perm(&a[i], q)`; private variables need none"),
        );
    }

    /// The value a cell holds. A cell of a `bool` array holds 1 or 0, as C stores a `bool`, and
    /// reads as whether it is not 0.
    fn read_cell(&mut self, cell: ArrayCell, place: Place, span: Span) -> Option<Value> {
        if place == Place::Code {
            self.log_access(Access::Read, &cell, span)?;
        }
        let (array, index, element) = cell;
        let lowered = self.node(surface::ExprKind::Index { array, index: Box::new(index) }, span)?;
        let lowered = match element {
            CType::Bool => {
                let zero = self.int(0, span)?;
                self.binary(surface::BinaryOp::Ne, lowered, zero, span)?
            }
            _ => lowered,
        };
        Some(Value { expr: lowered, ty: element, interval: element.interval() })
    }

    /// The write of `value`, of the cell's type, into the cell (a `bool` as 1 or 0).
    fn write_cell(
        &mut self,
        (array, index, element): ArrayCell,
        value: surface::Expr,
        span: Span,
    ) -> Option<surface::StmtKind> {
        self.log_access(Access::Write, &(array.clone(), index.clone(), element), span)?;
        let value = match element {
            // A `bool` is stored as the int 1 or 0.
            CType::Bool => {
                let value = Value { expr: value, ty: CType::Bool, interval: CType::Bool.interval() };
                self.convert(value, CType::Int(integers::UINT), Place::Code, span)?.expr
            }
            _ => value,
        };
        Some(surface::StmtKind::Write { target: array, index, value })
    }

    /// An array element being written or read: the array and the (row-major) index.
    fn location(&mut self, expr: &ast::Expr, place: Place, lengths: &Lengths) -> Option<Location> {
        // A component of an element of an array of vectors: `a[i].x`.
        let (expr, component) = match &expr.kind {
            ast::ExprKind::Member { base, field, arrow: false } if self.shape(base).is_some() => {
                let (_, component) = self.single_component(base, field)?;
                (base.as_ref(), Some(component))
            }
            _ => (expr, None),
        };
        let mut indices = Vec::new();
        let mut base = expr;
        loop {
            match &base.kind {
                ast::ExprKind::Index { base: inner, index } => {
                    indices.push(index.as_ref());
                    base = inner;
                }
                ast::ExprKind::Unary { op: ast::UnaryOp::Deref, operand } if indices.is_empty() => {
                    let zero = ast::Expr::int(0, base.span);
                    return self.location_at(operand, &[&zero], component, expr.span, place, lengths);
                }
                _ => break,
            }
        }
        indices.reverse();
        self.location_at(base, &indices, component, expr.span, place, lengths)
    }

    /// The cell `base[indices...]` (its `component` for an array of vectors).
    fn location_at(
        &mut self,
        base: &ast::Expr,
        indices: &[&ast::Expr],
        component: Option<u32>,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Location> {
        let ast::ExprKind::Name(name) = &base.kind else {
            let construct = match base.kind {
                ast::ExprKind::Cast { .. } => "a pointer cast",
                ast::ExprKind::Member { .. } => "a struct field",
                _ => "pointer arithmetic",
            };
            self.unsupported(base.span, construct, "index the array itself: `a[i + k]`");
            return None;
        };
        let (element, inner_dimensions, storage, offset, vector) = match self.array_of(name, base.span) {
            Some(Symbol::Array { element, inner_dimensions, storage, offset, vector }) => {
                (element, inner_dimensions, storage, offset, vector)
            }
            _ if matches!(self.lookup(name), Some(Symbol::Pointer { .. })) => {
                self.unsupported(
                    base.span,
                    format!("the pointer `{name}` before it points into an array"),
                    "assign the pointer before using it: `p = a + k;`",
                );
                return None;
            }
            _ => (CType::Int(integers::INT), Vec::new(), Storage::Memory(name.clone()), None, None),
        };
        self.pointer_used(name);
        let in_storage = |flat| Self::location_in(storage, flat, element, base.span);
        if let (None, Some(Symbol::Cell { .. })) = (indices.first(), self.lookup(name)) {
            // `&x` of a local scalar: its one cell.
            let zero = self.int(0, span)?;
            return Some(in_storage(zero));
        }
        let Some(first) = indices.first() else {
            // `Perm(&x, q)` of a variable: permissions are of memory.
            self.no_permission_here(span, format!("`{name}`"));
            return None;
        };
        let flat = if indices.len() == inner_dimensions.len() + 1 {
            // Row-major: ((i0 * d1 + i1) * d2 + i2) ...
            let mut flat = self.index(indices[0], place, lengths)?;
            for (index, dimension) in indices[1..].iter().zip(&inner_dimensions) {
                let index = self.index(index, place, lengths)?;
                let scaled = self.binary(surface::BinaryOp::Mul, flat, dimension.clone(), span)?;
                flat = self.binary(surface::BinaryOp::Add, scaled, index, span)?;
            }
            flat
        } else if inner_dimensions.is_empty() {
            // Not an array at all, or indexed twice: the resolver says which.
            self.index(first, place, lengths)?
        } else {
            self.unsupported(
                span,
                "an access to part of an array of several dimensions",
                "index every dimension: `s[i][j]`",
            );
            return None;
        };
        let flat = match offset {
            Some(offset) => self.binary(surface::BinaryOp::Add, flat, offset, span)?,
            None => flat,
        };
        let flat = match (vector, component) {
            (None, _) => flat,
            // Component k of vector i is cell `i * stride + k` ([`crate::c::lower::vectors`]).
            (Some(vector), Some(component)) => {
                let stride = self.int(vector.stride(), span)?;
                let first = self.binary(surface::BinaryOp::Mul, flat, stride, span)?;
                let component = self.int(component, span)?;
                self.binary(surface::BinaryOp::Add, first, component, span)?
            }
            (Some(vector), None) => {
                self.unsupported(
                    span,
                    format!("an element of the `{}` array `{name}` where a scalar is expected", vector.name()),
                    "name one component: `a[i].x`",
                );
                return None;
            }
        };
        Some(in_storage(flat))
    }

    fn index(&mut self, index: &ast::Expr, place: Place, lengths: &Lengths) -> Option<surface::Expr> {
        let value = self.typed(index, place, lengths)?;
        let ty = match value.ty {
            CType::Bool => CType::Int(integers::INT),
            ty => ty,
        };
        self.converted(value, ty, place, index.span)
    }

    /// An expression where the surface language decides its type (annotations, array lengths).
    fn expr(&mut self, expr: &ast::Expr, place: Place, lengths: &Lengths) -> Option<surface::Expr> {
        self.typed(expr, place, lengths).map(|value| value.expr)
    }

    /// A lowered value with its C type and interval. In annotations the type is only a guess that
    /// the resolver checks, and integers are mathematical.
    fn typed(&mut self, expr: &ast::Expr, place: Place, lengths: &Lengths) -> Option<Value> {
        let span = expr.span;
        let int = |lowerer: &mut Lowerer, lowered: Option<surface::Expr>, ty: MachineInt| {
            let _ = lowerer;
            lowered.map(|expr| Value { expr, ty: CType::Int(ty), interval: CType::Int(ty).interval() })
        };
        let boolean = |lowered: Option<surface::Expr>| {
            lowered.map(|expr| Value { expr, ty: CType::Bool, interval: CType::Bool.interval() })
        };
        match &expr.kind {
            ast::ExprKind::Int { value, unsigned } => {
                let ty = literal_type(value, *unsigned);
                let lowered = self.int(value.clone(), span)?;
                Some(Value { expr: lowered, ty: CType::Int(ty), interval: integers::Interval::exactly(value) })
            }
            ast::ExprKind::Bool(value) => boolean(self.node(surface::ExprKind::Bool(*value), span)),
            // `1.5f` is a `float`, `1.5` a `double`: an arbitrary value of its type.
            ast::ExprKind::Float(text) => {
                let ty = if text.ends_with(['f', 'F']) { integers::FLOAT } else { integers::DOUBLE };
                self.arbitrary(ty, Vec::new(), place, span)
            }
            ast::ExprKind::String => {
                self.unsupported(span, "a string", "kernels compute with numbers");
                None
            }
            ast::ExprKind::InitList(_) => {
                self.unsupported(span, "an initializer list", "let the threads write the array");
                None
            }
            // OpenCL's fence flags as values, for a barrier whose flags are a variable.
            ast::ExprKind::Name(name) if fence_flag_value(name).is_some() && self.lookup(name).is_none() => {
                let value = BigInt::from(fence_flag_value(name)?);
                let expr = self.int(value.clone(), span)?;
                Some(Value { expr, ty: CType::Int(integers::UINT), interval: integers::Interval::exactly(&value) })
            }
            ast::ExprKind::Name(name) => {
                if name == "NULL" && place == Place::Annotation {
                    self.unsupported(
                        span,
                        "`NULL` outside `a != NULL`",
                        "arrays are never `NULL`; compare an array with it: `a != NULL`",
                    );
                    return None;
                }
                match self.lookup(name) {
                    Some(Symbol::Cell { .. }) => {
                        let cell = self.location_at(expr, &[], None, span, place, lengths)?;
                        return self.read_location(cell, place, span);
                    }
                    Some(Symbol::Pointer { .. }) => {
                        self.unsupported(span, format!("the pointer `{name}` as a value"), "index the pointer: `p[i]`");
                        return None;
                    }
                    Some(Symbol::Vector { ty, .. }) => {
                        let ty = ty.name();
                        self.unsupported(
                            span,
                            format!("the `{ty}` `{name}` where a scalar is expected"),
                            "name one component: `v.x`",
                        );
                        return None;
                    }
                    _ => {}
                }
                let (ty, interval, name) = match self.lookup(name) {
                    Some(Symbol::Scalar { ty, interval, name }) => (*ty, interval.clone(), name.clone()),
                    _ => (CType::Int(integers::INT), CType::Int(integers::INT).interval(), name.clone()),
                };
                let lowered = self.node(surface::ExprKind::Name(name), span)?;
                Some(Value { expr: lowered, ty, interval })
            }
            ast::ExprKind::Index { .. } | ast::ExprKind::Unary { op: ast::UnaryOp::Deref, .. } => {
                let cell = self.location(expr, place, lengths)?;
                self.read_location(cell, place, span)
            }
            ast::ExprKind::Member { base, field, arrow: false } if self.shape(base).is_some() => {
                match self.component(base, field)? {
                    vectors::Component::Private { name, ty } => {
                        let lowered = self.node(surface::ExprKind::Name(name), span)?;
                        Some(Value { expr: lowered, ty, interval: ty.interval() })
                    }
                    vectors::Component::Memory(cell) => {
                        let cell = self.location(&cell, place, lengths)?;
                        self.read_location(cell, place, span)
                    }
                    vectors::Component::Value(component) => self.typed(&component, place, lengths),
                }
            }
            ast::ExprKind::Member { base, field, arrow } => {
                let builtin = match (&base.kind, *arrow, axis_named(&field.name)) {
                    (ast::ExprKind::Name(name), false, Some(axis)) => match name.as_str() {
                        "threadIdx" => Some(Builtin::LocalId(axis)),
                        "blockIdx" => Some(Builtin::GroupId(axis)),
                        "blockDim" => Some(Builtin::GroupSize(axis)),
                        "gridDim" => Some(Builtin::Groups(axis)),
                        _ => None,
                    },
                    _ => None,
                };
                let Some(builtin) = builtin else {
                    self.unsupported(
                        span,
                        "a struct field",
                        "lockstep knows the fields `.x`, `.y` and `.z` of CUDA's `threadIdx`, `blockIdx`, `blockDim` and `gridDim`",
                    );
                    return None;
                };
                // CUDA's ids and sizes are `unsigned int`.
                self.builtin_value(builtin, integers::UINT, span)
            }
            ast::ExprKind::Call { function, args } => self.call(function, args, span, place, lengths),
            ast::ExprKind::Unary { op, operand } => self.unary(*op, operand, span, place, lengths),
            ast::ExprKind::Binary { op, lhs, rhs } => self.binary_expr(*op, lhs, rhs, span, place, lengths),
            ast::ExprKind::Assign { .. } => {
                self.unsupported(span, "an assignment inside an expression", "assign in a statement of its own");
                None
            }
            ast::ExprKind::Cond { cond, then_value, else_value } => {
                // In annotations too, an integer condition holds where it is not 0, as in C (and
                // GPUVerify's annotations).
                let cond = match place {
                    Place::Code => self.condition(cond, lengths),
                    Place::Annotation => self.typed(cond, place, lengths).and_then(|cond| match cond.ty {
                        CType::Int(_) => self.converted(cond, CType::Bool, place, span),
                        _ => Some(cond.expr),
                    }),
                };
                let then_value = self.conditionally(|lowerer| lowerer.typed(then_value, place, lengths));
                let else_value = self.conditionally(|lowerer| lowerer.typed(else_value, place, lengths));
                let (cond, then_value, else_value) = (cond?, then_value?, else_value?);
                let ty = match (then_value.ty, else_value.ty) {
                    (CType::Bool, CType::Bool) => CType::Bool,
                    (then_type, else_type) => integers::floating([then_type, else_type])
                        .unwrap_or_else(|| CType::Int(integers::common(then_type, else_type))),
                };
                let interval = match ty {
                    CType::Int(_) => integers::either(&then_value.interval, &else_value.interval),
                    CType::Bool | CType::Float(_) => ty.interval(),
                };
                let then_value = self.converted(then_value, ty, place, span)?;
                let else_value = self.converted(else_value, ty, place, span)?;
                let kind = surface::ExprKind::Cond {
                    cond: Box::new(cond),
                    then_value: Box::new(then_value),
                    else_value: Box::new(else_value),
                };
                let lowered = self.node(kind, span)?;
                Some(Value { expr: lowered, ty, interval })
            }
            ast::ExprKind::Cast { ty, pointers, operand } => {
                if *pointers > 0 {
                    self.unsupported(span, "a pointer cast", "index the array itself");
                    return None;
                }
                if ty.width > 1 {
                    self.unsupported(
                        span,
                        format!("the `{}` value where a scalar is expected", ast::type_name(ty)),
                        "name one component: `((float4)(a, b, c, d)).x`",
                    );
                    return None;
                }
                let wanted = self.c_type(ty)?;
                let value = self.typed(operand, place, lengths)?;
                self.convert(value, wanted, place, span)
            }
            ast::ExprKind::SizeofType { ty, pointers } => {
                // A vector takes `stride` times its component's size (a 3-vector as much as a 4-vector).
                let size = if *pointers > 0 {
                    Some(8)
                } else {
                    let stride = self.vector_type(ty)?.map_or(1, VectorType::stride);
                    self.scalar_type(ty).map(|element| size_of(element) * stride)
                };
                let value = BigInt::from(size?);
                let lowered = self.int(value.clone(), span)?;
                Some(Value {
                    expr: lowered,
                    ty: CType::Int(integers::SIZE_T),
                    interval: integers::Interval::exactly(&value),
                })
            }
            ast::ExprKind::SizeofExpr(_) => {
                self.unsupported(span, "`sizeof` of an expression", "write `sizeof` of the type: `sizeof(int)`");
                None
            }
            ast::ExprKind::Comma(..) => {
                self.unsupported(
                    span,
                    "the comma operator in an expression",
                    "write the parts as statements of their own",
                );
                None
            }
            ast::ExprKind::Quantifier { kind, ty, var, range, body } if place == Place::Annotation => {
                boolean(self.quantifier(*kind, ty, var, range.as_deref(), body, span, lengths))
            }
            ast::ExprKind::Old(inner) if place == Place::Annotation => {
                if self.old_values.is_some() {
                    return self.old_value(inner, span, lengths);
                }
                let inner = self.typed(inner, place, lengths)?;
                let lowered = self.node(surface::ExprKind::Old(Box::new(inner.expr)), span)?;
                Some(Value { expr: lowered, ..inner })
            }
            ast::ExprKind::Perm { location, amount } if place == Place::Annotation => {
                let location = match &location.kind {
                    ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => operand,
                    _ => location,
                };
                // A permission on a vector in memory is one on each of its components.
                let cells = match self.shape(location) {
                    Some(vector) => (0..vector.width).map(|k| self.project(location, k)).collect::<Option<Vec<_>>>()?,
                    None => vec![(**location).clone()],
                };
                let amount = self.expr(amount, place, lengths)?;
                let mut permissions: Option<surface::Expr> = None;
                for cell in &cells {
                    let location = self.location(cell, place, lengths)?;
                    let (array, index, _) = self.memory_location(location, cell.span)?;
                    let cell = self.node(surface::ExprKind::Index { array, index: Box::new(index) }, cell.span)?;
                    let kind = surface::ExprKind::Perm {
                        style: surface::PermStyle::Fraction,
                        location: Box::new(cell),
                        amount: Box::new(amount.clone()),
                    };
                    let permission = self.node(kind, span)?;
                    permissions = Some(match permissions {
                        Some(before) => self.binary(surface::BinaryOp::Star, before, permission, span)?,
                        None => permission,
                    });
                }
                boolean(permissions)
            }
            ast::ExprKind::Read if place == Place::Annotation => {
                let lowered = self.node(surface::ExprKind::Read, span);
                int(self, lowered, integers::INT)
            }
            ast::ExprKind::Write if place == Place::Annotation => {
                let lowered = self.node(surface::ExprKind::Write, span);
                int(self, lowered, integers::INT)
            }
            ast::ExprKind::Result if place == Place::Annotation => match self.inlining.last() {
                // In a helper's contract, the variable that receives its result.
                Some(Inlined { result: Some((name, ty)), .. }) => {
                    let (name, ty) = (name.clone(), *ty);
                    let lowered = self.node(surface::ExprKind::Name(name), span)?;
                    Some(Value { expr: lowered, ty, interval: ty.interval() })
                }
                _ => {
                    let lowered = self.node(surface::ExprKind::Result, span);
                    int(self, lowered, integers::INT)
                }
            },
            ast::ExprKind::Gtid if place == Place::Annotation => self.builtin_value(Builtin::Tid, integers::INT, span),
            ast::ExprKind::Ltid if place == Place::Annotation => self.builtin_value(Builtin::Lid, integers::INT, span),
            ast::ExprKind::Backslash { word, args } if place == Place::Annotation => {
                self.backslash(word, args, span, lengths)
            }
            ast::ExprKind::Quantifier { .. }
            | ast::ExprKind::Old(_)
            | ast::ExprKind::Perm { .. }
            | ast::ExprKind::Read
            | ast::ExprKind::Write
            | ast::ExprKind::Result
            | ast::ExprKind::Gtid
            | ast::ExprKind::Ltid
            | ast::ExprKind::Backslash { .. } => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::UnexpectedToken,
                        "a specification construct in code",
                        span,
                        "only in annotations",
                    )
                    .with_help("write specifications inside `/*@ ... @*/` or `//@` comments"),
                );
                None
            }
        }
    }

    /// An id or size of the launch, of the C type the language gives it.
    fn builtin_value(&mut self, builtin: Builtin, ty: MachineInt, span: Span) -> Option<Value> {
        if let Some(instance) = &self.thread_instance {
            match builtin {
                Builtin::LocalId(Axis::X) => {
                    let expr = instance.clone();
                    return Some(Value { expr, ty: CType::Int(ty), interval: integers::builtin_interval(builtin) });
                }
                Builtin::LocalId(_) | Builtin::Lid | Builtin::Tid => self.other_axis_in_instance = true,
                _ => {}
            }
        }
        let lowered = self.builtin(builtin, span)?;
        Some(Value { expr: lowered, ty: CType::Int(ty), interval: integers::builtin_interval(builtin) })
    }

    #[allow(clippy::too_many_arguments)]
    fn quantifier(
        &mut self,
        kind: ast::QuantifierKind,
        ty: &ast::TypeSpec,
        var: &surface::Ident,
        range: Option<&ast::Expr>,
        body: &ast::Expr,
        span: Span,
        lengths: &Lengths,
    ) -> Option<surface::Expr> {
        let bound_type = self.c_type(ty)?;
        let name = self.local_name(&var.name);
        // A bound `int` ranges over the mathematical integers, as VerCors reads it, so its
        // interval claims nothing; one of another integer type ranges over its type, which the
        // range below states, so that neither a witness nor an instance lies outside it (the
        // lowering trusts intervals: `j % 4u` is a modulo for `unsigned j`).
        let (interval, in_type) = match bound_type {
            CType::Int(integers::INT) => (CType::Float(64).interval(), None),
            CType::Int(int_type) => {
                (bound_type.interval(), Some(self.checked(integers::in_type(&name, int_type, var.span))?))
            }
            _ => (bound_type.interval(), None),
        };
        let bound = Symbol::Scalar { ty: bound_type, interval, name: name.clone() };
        self.scopes.push(HashMap::from([(var.name.clone(), bound)]));
        self.quantified += 1;
        // VerCors's two-part `(\forall int i; range ==> body)`: the range is the implication's
        // left side.
        let (range, body) = match (range, &body.kind) {
            (Some(range), _) => {
                (self.expr(range, Place::Annotation, lengths), self.expr(body, Place::Annotation, lengths))
            }
            (None, ast::ExprKind::Binary { op: ast::BinaryOp::Implies, lhs, rhs }) => {
                (self.expr(lhs, Place::Annotation, lengths), self.expr(rhs, Place::Annotation, lengths))
            }
            (None, _) => (self.node(surface::ExprKind::Bool(true), span), self.expr(body, Place::Annotation, lengths)),
        };
        self.quantified -= 1;
        self.scopes.pop();
        let range = match (in_type, range) {
            (Some(in_type), Some(range)) => self.binary(surface::BinaryOp::And, in_type, range, span),
            (_, range) => range,
        };
        let kind = match kind {
            ast::QuantifierKind::Forall => surface::QuantifierKind::Forall,
            ast::QuantifierKind::ForallStar => surface::QuantifierKind::ForallStar,
            ast::QuantifierKind::Exists => surface::QuantifierKind::Exists,
        };
        let quantifier = surface::ExprKind::Quantifier {
            kind,
            ty: bound_type.surface(),
            ty_span: ty.span,
            var: surface::Ident { name, span: var.span },
            range: Box::new(range?),
            body: Box::new(body?),
        };
        self.node(quantifier, span)
    }

    /// `\pointer_length(a)`, `\shared_mem_size(s)` and `\pointer_index(a, i, q)`.
    fn backslash(&mut self, word: &surface::Ident, args: &[ast::Expr], span: Span, lengths: &Lengths) -> Option<Value> {
        let array_length = |lowerer: &mut Lowerer, array: &ast::Expr| -> Option<surface::Expr> {
            let ast::ExprKind::Name(name) = &array.kind else {
                lowerer.unsupported(
                    array.span,
                    format!("`{}` of something other than an array", word.name),
                    "name the array itself",
                );
                return None;
            };
            match lengths.get(name) {
                Some(length) => {
                    if let surface::ExprKind::Name(parameter) = &length.kind {
                        lowerer.lengths_spoken.insert(parameter.clone());
                    }
                    Some(surface::Expr { span, ..length.clone() })
                }
                None => {
                    lowerer.diagnostics.push(
                        Diagnostic::error(
                            Code::NotAnArray,
                            format!("`{name}` is not an array of the kernel"),
                            array.span,
                            "no length",
                        )
                        .with_help(
                            "`\\pointer_length` and `\\shared_mem_size` take an array parameter or a local array",
                        ),
                    );
                    None
                }
            }
        };
        match (word.name.as_str(), args) {
            ("\\pointer_length" | "\\shared_mem_size", [array]) => {
                let length = array_length(self, array)?;
                let ty = CType::Int(integers::INT);
                Some(Value { expr: length, ty, interval: ty.interval() })
            }
            ("\\pointer_index", [array, index, amount]) => {
                // `\pointer_index(a, i, q)`: `0 <= i < \pointer_length(a) ** Perm(&a[i], q)`.
                let length = array_length(self, array)?;
                let lowered_index = self.index(index, Place::Annotation, lengths)?;
                let zero = self.int(0, span)?;
                let lower = self.binary(surface::BinaryOp::Le, zero, lowered_index.clone(), span)?;
                let upper = self.binary(surface::BinaryOp::Lt, lowered_index, length, span)?;
                let in_bounds = self.binary(surface::BinaryOp::And, lower, upper, span)?;
                let location = self.location_at(array, &[index], None, span, Place::Annotation, lengths)?;
                let (array, cell, _) = self.memory_location(location, span)?;
                let location = self.node(surface::ExprKind::Index { array, index: Box::new(cell) }, span)?;
                let amount = self.expr(amount, Place::Annotation, lengths)?;
                let perm = self.node(
                    surface::ExprKind::Perm {
                        style: surface::PermStyle::Fraction,
                        location: Box::new(location),
                        amount: Box::new(amount),
                    },
                    span,
                )?;
                let lowered = self.binary(surface::BinaryOp::Star, in_bounds, perm, span)?;
                Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() })
            }
            // Whether the function has returned, for the invariants of the loops a `return` leaves.
            ("\\returned", []) => {
                let flag = self.return_flag(span)?;
                let lowered = self.node(surface::ExprKind::Name(flag), span)?;
                Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() })
            }
            _ => {
                self.unsupported(span, format!("`{}`", word.name), "lockstep reads `\\pointer_length`, `\\pointer_index`, `\\shared_mem_size`, `\\old`, `\\gtid`, `\\ltid`, `\\returned`, `\\forall`, `\\forall*` and `\\exists` in annotations");
                None
            }
        }
    }

    fn unary(
        &mut self,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let integers = self.integers(place);
        match op {
            ast::UnaryOp::Plus => {
                let value = self.typed(operand, place, lengths)?;
                if let CType::Float(_) = value.ty {
                    return Some(value);
                }
                let ty = CType::Int(integers::promoted(value.ty));
                self.convert(value, ty, place, span)
            }
            ast::UnaryOp::Neg => {
                // `-x` is `0 - x` in x's promoted type.
                let value = self.typed(operand, place, lengths)?;
                if let CType::Float(_) = value.ty {
                    return self.arbitrary(value.ty, vec![value], place, span);
                }
                let zero = Value {
                    expr: self.int(0, span)?,
                    ty: CType::Int(integers::promoted(value.ty)),
                    interval: integers::Interval::new(0, 0),
                };
                self.checked(integers::arithmetic(integers::Arithmetic::Sub, zero, value, integers, span))
            }
            ast::UnaryOp::Not => {
                let value = match place {
                    Place::Code => self.condition(operand, lengths)?,
                    Place::Annotation => self.expr(operand, place, lengths)?,
                };
                let lowered =
                    self.node(surface::ExprKind::Unary { op: surface::UnaryOp::Not, operand: Box::new(value) }, span)?;
                Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() })
            }
            ast::UnaryOp::BitNot => {
                // `~x` is `-x - 1` in a signed type and `2^N - 1 - x` in an unsigned one.
                let value = self.typed(operand, place, lengths)?;
                let ty = integers::promoted(value.ty);
                let value = self.convert(value, CType::Int(ty), place, span)?;
                let (least, greatest) = ty.bounds();
                let from = if ty.signed { BigInt::from(-1) } else { greatest.clone() };
                let base = Value {
                    expr: self.int(from.clone(), span)?,
                    ty: CType::Int(ty),
                    interval: integers::Interval::exactly(&from),
                };
                let lowered =
                    self.checked(integers::arithmetic(integers::Arithmetic::Sub, base, value, integers, span))?;
                Some(Value { interval: integers::Interval { least, greatest }, ..lowered })
            }
            ast::UnaryOp::AddressOf => {
                self.unsupported(span, "`&` outside `Perm(&a[i], q)`", "lockstep has no pointers to private variables");
                None
            }
            // `*p` is an array read, lowered with `a[i]` in `typed`.
            ast::UnaryOp::Deref
            | ast::UnaryOp::PreIncrement
            | ast::UnaryOp::PreDecrement
            | ast::UnaryOp::PostIncrement
            | ast::UnaryOp::PostDecrement => {
                self.unsupported(
                    span,
                    "`++` or `--` inside an expression",
                    "increment in a statement of its own: `i++;`",
                );
                None
            }
        }
    }

    fn binary_expr(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        use ast::BinaryOp as C;
        use surface::BinaryOp as S;
        let boolean = |lowered: Option<surface::Expr>| {
            lowered.map(|expr| Value { expr, ty: CType::Bool, interval: CType::Bool.interval() })
        };
        // `p == q`, `a != NULL`: where pointers point.
        if self.is_pointer(lhs) || self.is_pointer(rhs) {
            let order = match op {
                C::Eq | C::Ne => return self.pointer_comparison(op == C::Eq, lhs, rhs, span, lengths),
                C::Lt => S::Lt,
                C::Le => S::Le,
                C::Gt => S::Gt,
                C::Ge => S::Ge,
                _ => S::Add,
            };
            if order != S::Add {
                return self.pointer_order(order, lhs, rhs, span, place, lengths);
            }
        }
        let integers = self.integers(place);
        let arithmetic = match op {
            C::Add => Some(integers::Arithmetic::Add),
            C::Sub => Some(integers::Arithmetic::Sub),
            C::Mul => Some(integers::Arithmetic::Mul),
            C::Div => Some(integers::Arithmetic::Div),
            C::Rem => Some(integers::Arithmetic::Rem),
            _ => None,
        };
        if let Some(arithmetic) = arithmetic {
            let lhs = self.typed(lhs, place, lengths);
            let rhs = self.typed(rhs, place, lengths);
            let (lhs, rhs) = (lhs?, rhs?);
            if let Some(ty) = integers::floating([lhs.ty, rhs.ty]) {
                return self.arbitrary(ty, vec![lhs, rhs], place, span);
            }
            return self.checked(integers::arithmetic(arithmetic, lhs, rhs, integers, span));
        }
        let comparison = match op {
            C::Lt => Some(S::Lt),
            C::Le => Some(S::Le),
            C::Gt => Some(S::Gt),
            C::Ge => Some(S::Ge),
            C::Eq => Some(S::Eq),
            C::Ne => Some(S::Ne),
            _ => None,
        };
        if let Some(comparison) = comparison {
            let lhs = self.typed(lhs, place, lengths);
            let rhs = self.typed(rhs, place, lengths);
            let (lhs, rhs) = (lhs?, rhs?);
            if integers::floating([lhs.ty, rhs.ty]).is_some() {
                return self.float_comparison(comparison, lhs, rhs, span, place);
            }
            // Booleans compare as booleans in annotations; everything else in the operands'
            // common type, as C compares.
            let ty = match (lhs.ty, rhs.ty) {
                (CType::Bool, CType::Bool) if place == Place::Annotation || matches!(op, C::Eq | C::Ne) => CType::Bool,
                (lhs_type, rhs_type) => CType::Int(integers::common(lhs_type, rhs_type)),
            };
            let lhs = self.converted(lhs, ty, place, span);
            let rhs = self.converted(rhs, ty, place, span);
            return boolean(self.binary(comparison, lhs?, rhs?, span));
        }
        match op {
            C::And | C::Or => {
                let surface_op = if op == C::And { S::And } else { S::Or };
                let (lhs, rhs) = match place {
                    Place::Code => {
                        (self.condition(lhs, lengths), self.conditionally(|lowerer| lowerer.condition(rhs, lengths)))
                    }
                    Place::Annotation => (self.expr(lhs, place, lengths), self.expr(rhs, place, lengths)),
                };
                boolean(self.binary(surface_op, lhs?, rhs?, span))
            }
            C::Implies | C::Star | C::Fraction if place == Place::Annotation => {
                let surface_op = match op {
                    C::Implies => S::Implies,
                    C::Star => S::Star,
                    _ => S::Fraction,
                };
                let lhs = self.expr(lhs, place, lengths);
                let rhs = self.expr(rhs, place, lengths);
                let lowered = self.binary(surface_op, lhs?, rhs?, span)?;
                let ty = if op == C::Fraction { CType::Int(integers::INT) } else { CType::Bool };
                Some(Value { expr: lowered, ty, interval: ty.interval() })
            }
            C::Implies | C::Star | C::Fraction => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::UnexpectedToken,
                        format!("`{}` in code", op.symbol()),
                        span,
                        "only in annotations",
                    )
                    .with_help("write specifications inside `/*@ ... @*/` or `//@` comments"),
                );
                None
            }
            C::Shl | C::Shr => self.shift(op == C::Shl, lhs, rhs, span, place, lengths),
            C::BitAnd | C::BitOr | C::BitXor => self.bitwise(op, lhs, rhs, span, place, lengths),
            _ => {
                self.unsupported(span, format!("`{}`", op.symbol()), "lockstep reads `&` with a mask `2^k - 1`, shifts by constants, and C's arithmetic, comparison and logical operators so far");
                None
            }
        }
    }

    /// `x << k` and `x >> k` by a constant `k`: `x * 2^k` and `x / 2^k` (rounded down, as GPUs
    /// shift signed values), in `x`'s promoted type.
    fn shift(
        &mut self,
        left: bool,
        value: &ast::Expr,
        amount: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let integers = self.integers(place);
        let value = self.typed(value, place, lengths)?;
        let ty = integers::promoted(value.ty);
        let value = self.convert(value, CType::Int(ty), place, span)?;
        let shift = match &amount.kind {
            ast::ExprKind::Int { value, .. } => value.to_u32().filter(|&shift| shift < ty.bits),
            _ => None,
        };
        let Some(shift) = shift else {
            // OpenCL shifts by the amount's low log2(N) bits, for an N-bit `x`: never undefined.
            if self.dialect == Dialect::OpenCl && place == Place::Code {
                let amount = self.typed(amount, place, lengths)?;
                let CType::Int(_) = amount.ty else {
                    self.unsupported(amount.expr.span, "a shift by a floating-point amount", "shift by an integer");
                    return None;
                };
                let width = self.int(ty.bits, span)?;
                let amount = self.binary(surface::BinaryOp::Mod, amount.expr, width, span)?;
                return self.checked(integers::variable_shift(left, value, amount, ty, integers, span));
            }
            self.unsupported(
                amount.span,
                "a shift by an amount that is not a constant below the type's width, in CUDA or an annotation",
                "shift by a number: `x << 2`; in CUDA a shift by a negative amount or one of at least the width is undefined",
            );
            return None;
        };
        let power = BigInt::from(1) << shift;
        let factor = Value {
            expr: self.int(power.clone(), span)?,
            ty: CType::Int(ty),
            interval: integers::Interval::exactly(&power),
        };
        if left {
            return self.checked(integers::arithmetic(integers::Arithmetic::Mul, value, factor, integers, span));
        }
        // Rounded down: `(x - x mod 2^k) / 2^k`, which is `x / 2^k` for a non-negative `x`.
        let non_negative = value.interval.least >= BigInt::from(0);
        let dividend = if non_negative {
            value.expr
        } else {
            let remainder = self.binary(surface::BinaryOp::Mod, value.expr.clone(), factor.expr.clone(), span)?;
            self.binary(surface::BinaryOp::Sub, value.expr, remainder, span)?
        };
        let lowered = self.binary(surface::BinaryOp::Div, dividend, factor.expr, span)?;
        let interval = integers::Interval {
            least: (&value.interval.least).min(&BigInt::from(0)).clone() / &power - 1,
            greatest: (&value.interval.greatest).max(&BigInt::from(0)).clone() / &power,
        };
        Some(Value { expr: lowered, ty: CType::Int(ty), interval })
    }

    /// `&`, `|` and `^` where lockstep knows their value: of two operands that are 0 or 1 (the
    /// results of comparisons, as GPUVerify's annotations combine them), and `x & (2^k - 1)`.
    fn bitwise(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let lhs = self.typed(lhs, place, lengths);
        let rhs = self.typed(rhs, place, lengths);
        let (lhs, rhs) = (lhs?, rhs?);
        let bit = integers::Interval::new(0, 1);
        let is_bit = |value: &Value| !matches!(value.ty, CType::Float(_)) && value.interval.within(&bit);
        if is_bit(&lhs) && is_bit(&rhs) {
            return self.bit_operation(op, lhs, rhs, span, place);
        }
        if matches!(lhs.ty, CType::Float(_)) || matches!(rhs.ty, CType::Float(_)) {
            self.unsupported(span, format!("`{}` of floating-point values", op.symbol()), "C has no such operator");
            return None;
        }
        let ty = integers::common(lhs.ty, rhs.ty);
        let lhs = self.convert(lhs, CType::Int(ty), place, span)?;
        let rhs = self.convert(rhs, CType::Int(ty), place, span)?;
        let is_mask = |mask: &Value, value: &Value| {
            let modulus: BigInt = &mask.interval.least + 1;
            mask.interval.least == mask.interval.greatest
                && modulus > BigInt::from(0)
                && (&modulus & (&modulus - 1)) == BigInt::from(0)
                && value.interval.least >= BigInt::from(0)
        };
        match op {
            ast::BinaryOp::BitAnd if is_mask(&rhs, &lhs) => self.mask(lhs, &rhs.interval.least, ty, span),
            ast::BinaryOp::BitAnd if is_mask(&lhs, &rhs) => self.mask(rhs, &lhs.interval.least, ty, span),
            _ => self.bit_by_bit(op, lhs, rhs, ty, span, place),
        }
    }

    /// `x & y`, `x | y` or `x ^ y` of integers of type `ty`, bit by bit
    /// ([`integers::bit_by_bit`]): on the operands as unsigned values of `ty`'s width (two's
    /// complement), and the result back in `ty`. The operands are repeated for each bit, so one
    /// that reads memory is refused; so are operands that may be negative where integers do
    /// not wrap (annotations, `--mathematical-integers`).
    fn bit_by_bit(
        &mut self,
        op: ast::BinaryOp,
        lhs: Value,
        rhs: Value,
        ty: MachineInt,
        span: Span,
        place: Place,
    ) -> Option<Value> {
        let symbol = op.symbol();
        // Each operand is repeated once per bit, so an operand that is itself such a sum would
        // grow the expression exponentially with the nesting (`a ^ b ^ c ^ d`).
        if lhs.expr.depth > MAX_BITWISE_OPERAND_DEPTH || rhs.expr.depth > MAX_BITWISE_OPERAND_DEPTH {
            self.unsupported(
                span,
                format!("`{symbol}` of an operand that is itself a bitwise operation of unknown values"),
                "compute the inner operation into a variable first: `int t = a ^ b; t ^ c`",
            );
            return None;
        }
        if reads_memory(&lhs.expr) || reads_memory(&rhs.expr) {
            self.unsupported(
                span,
                format!("`{symbol}` of a value read from memory"),
                "read the value into a variable first: `int v = a[i]; v ^ k`",
            );
            return None;
        }
        let unsigned = MachineInt { bits: ty.bits, signed: false };
        let integers = self.integers(place);
        let lhs = self.checked(integers::convert(lhs, CType::Int(unsigned), integers, span))?;
        let rhs = self.checked(integers::convert(rhs, CType::Int(unsigned), integers, span))?;
        let (_, greatest) = unsigned.bounds();
        let in_width = |value: &Value| value.interval.within(&integers::Interval::new(0, greatest.clone()));
        if !in_width(&lhs) || !in_width(&rhs) {
            self.unsupported(
                span,
                format!("`{symbol}` of values that may be negative, where integers do not wrap"),
                "keep the operands non-negative, or read the code with machine integers",
            );
            return None;
        }
        let bits_of = |value: &Value| u32::try_from(value.interval.greatest.bits()).unwrap_or(ty.bits);
        let (bitwise, bits) = match op {
            ast::BinaryOp::BitAnd => (integers::Bitwise::And, bits_of(&lhs).min(bits_of(&rhs))),
            ast::BinaryOp::BitOr => (integers::Bitwise::Or, bits_of(&lhs).max(bits_of(&rhs))),
            _ => (integers::Bitwise::Xor, bits_of(&lhs).max(bits_of(&rhs))),
        };
        let result = self.checked(integers::bit_by_bit(bitwise, &lhs.expr, &rhs.expr, bits, span))?;
        let greatest = match bitwise {
            integers::Bitwise::And => (&lhs.interval.greatest).min(&rhs.interval.greatest).clone(),
            _ => (BigInt::from(1) << bits) - 1,
        };
        let value = Value { expr: result, ty: CType::Int(unsigned), interval: integers::Interval::new(0, greatest) };
        // Back to a signed type: the same bits, two's complement.
        self.checked(integers::convert(value, CType::Int(ty), Integers::Machine, span))
    }

    /// `a & b` as `a * b`, `a | b` as `a + b - a * b` and `a ^ b` as `a != b`, for `a` and `b`
    /// that are 0 or 1, in their common type.
    fn bit_operation(&mut self, op: ast::BinaryOp, lhs: Value, rhs: Value, span: Span, place: Place) -> Option<Value> {
        let ty = CType::Int(integers::common(lhs.ty, rhs.ty));
        let lhs = self.converted(lhs, ty, place, span)?;
        let rhs = self.converted(rhs, ty, place, span)?;
        let lowered = match op {
            ast::BinaryOp::BitAnd => self.binary(surface::BinaryOp::Mul, lhs, rhs, span)?,
            ast::BinaryOp::BitOr => {
                let product = self.binary(surface::BinaryOp::Mul, lhs.clone(), rhs.clone(), span)?;
                let sum = self.binary(surface::BinaryOp::Add, lhs, rhs, span)?;
                self.binary(surface::BinaryOp::Sub, sum, product, span)?
            }
            _ => {
                let differ = self.binary(surface::BinaryOp::Ne, lhs, rhs, span)?;
                let differ = Value { expr: differ, ty: CType::Bool, interval: CType::Bool.interval() };
                self.convert(differ, ty, place, span)?.expr
            }
        };
        Some(Value { expr: lowered, ty, interval: integers::Interval::new(0, 1) })
    }

    /// `x & (2^k - 1)`: `x mod 2^k`, in type `ty` (for a non-negative `x` of that type).
    fn mask(&mut self, value: Value, mask: &BigInt, ty: MachineInt, span: Span) -> Option<Value> {
        let modulus: BigInt = mask + 1;
        let divisor = self.int(modulus.clone(), span)?;
        let lowered = self.binary(surface::BinaryOp::Mod, value.expr, divisor, span)?;
        Some(Value {
            expr: lowered,
            ty: CType::Int(ty),
            interval: integers::Interval { least: BigInt::from(0), greatest: modulus - 1 },
        })
    }

    /// A call in an expression: an id or size, or `min`, `max`, `abs`.
    fn call(
        &mut self,
        function: &surface::Ident,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let name = function.name.as_str();
        let by_dimension = match name {
            // The file's own functions first: they may reuse a built-in's name.
            _ if self.helpers.contains_key(name) => {
                return self.call_in_expression(function, args, span, place, lengths)
            }
            _ if self.prototypes.contains_key(name) => {
                if self.prototypes[name].specifiers.ty.base == ast::BaseType::Void {
                    self.no_value(name, span);
                    return None;
                }
                return self.undefined_call(name, args, span, place, lengths);
            }
            "get_local_id" => Some(Builtin::LocalId as fn(Axis) -> Builtin),
            "get_group_id" => Some(Builtin::GroupId as fn(Axis) -> Builtin),
            "get_local_size" => Some(Builtin::GroupSize as fn(Axis) -> Builtin),
            "get_num_groups" => Some(Builtin::Groups as fn(Axis) -> Builtin),
            "get_global_id" | "get_global_size" | "get_global_offset" => None,
            "get_work_dim" if args.is_empty() && self.uses_work_dim => {
                let expr = self.node(surface::ExprKind::Name(WORK_DIM.to_string()), span)?;
                let interval = integers::Interval::new(BigInt::from(1), BigInt::from(3));
                return Some(Value { expr, ty: CType::Int(integers::UINT), interval });
            }
            "min" | "max" | "abs" => return self.min_max_abs(name, args, span, place, lengths),
            "add_sat" | "sub_sat" => {
                let [lhs, rhs] = args else {
                    self.argument_count(name, 2, args.len(), span);
                    return None;
                };
                let (lhs, rhs) = (self.typed(lhs, place, lengths), self.typed(rhs, place, lengths));
                let (lhs, rhs) = (lhs?, rhs?);
                if !matches!((lhs.ty, rhs.ty), (CType::Int(_), CType::Int(_))) {
                    self.unsupported(
                        span,
                        format!("`{name}` of a non-integer value"),
                        "saturating arithmetic is on integers",
                    );
                    return None;
                }
                let op = if name == "add_sat" { integers::Arithmetic::Add } else { integers::Arithmetic::Sub };
                return self.checked(integers::saturated(op, lhs, rhs, self.integers, span));
            }
            _ if name.starts_with("__add_noovfl") => {
                return self.add_without_overflow(name, args, span, place, lengths)
            }
            _ if atomics::is_atomic(name) => return self.atomic_in_expression(name, args, span, place, lengths),
            _ if is_float_function(name) => return self.float_function(name, args, span, place, lengths),
            // GPUVerify's `__implies(a, b)`, and `__enabled()`: the thread runs this code.
            "__implies" if place == Place::Annotation => {
                let [lhs, rhs] = args else {
                    self.argument_count(name, 2, args.len(), span);
                    return None;
                };
                // Its operands hold where they are not 0, as GPUVerify's annotations read ints.
                let lhs = self.gpuverify_formula(lhs, lengths);
                let rhs = self.gpuverify_formula(rhs, lengths);
                let lowered = self.binary(surface::BinaryOp::Implies, lhs?, rhs?, span)?;
                return Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() });
            }
            // GPUVerify's `__ite(c, a, b)` is `c ? a : b`.
            "__ite" if place == Place::Annotation => {
                let [cond, then_value, else_value] = args else {
                    self.argument_count(name, 3, args.len(), span);
                    return None;
                };
                let kind = ast::ExprKind::Cond {
                    cond: Box::new(cond.clone()),
                    then_value: Box::new(then_value.clone()),
                    else_value: Box::new(else_value.clone()),
                };
                let cond = self.checked(ast::Expr::new(kind, span))?;
                return self.typed(&cond, place, lengths);
            }
            // GPUVerify's `__old_int(e)` (of any type) is `\old(e)`, and `__return_val_int()` is
            // `\result`.
            _ if place == Place::Annotation && name.starts_with("__old_") => {
                let [arg] = args else {
                    self.argument_count(name, 1, args.len(), span);
                    return None;
                };
                let old = self.checked(ast::Expr::new(ast::ExprKind::Old(Box::new(arg.clone())), span))?;
                return self.typed(&old, place, lengths);
            }
            _ if place == Place::Annotation && name.starts_with("__return_val_") && args.is_empty() => {
                let result = self.checked(ast::Expr::new(ast::ExprKind::Result, span))?;
                return self.typed(&result, place, lengths);
            }
            _ if logs::LOG_QUERIES.contains(&name) => return self.log_query_value(name, args, place, span, lengths),
            "__enabled" if place == Place::Annotation && args.is_empty() => {
                let lowered = self.node(surface::ExprKind::Bool(true), span)?;
                return Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() });
            }
            _ => {
                self.unsupported(
                    span,
                    format!("a call of `{name}`"),
                    "lockstep knows the ids and sizes of the launch, `min`, `max`, `abs`, and the helper functions the file defines",
                );
                return None;
            }
        };
        let axis = match args {
            [ast::Expr { kind: ast::ExprKind::Int { value, .. }, .. }] => [0, 1, 2]
                .into_iter()
                .find(|dimension| *value == BigInt::from(*dimension))
                .map(|dimension| Axis::ALL[dimension]),
            _ => None,
        };
        let Some(axis) = axis else {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::ArgumentCount,
                    format!("`{name}` takes the dimension 0, 1 or 2"),
                    span,
                    "not a dimension",
                )
                .with_help(format!("write the dimension as a number: `{name}(0)`")),
            );
            return None;
        };
        // OpenCL's ids and sizes are `size_t`.
        let id = |lowerer: &mut Lowerer, builtin: Builtin| lowerer.builtin_value(builtin, integers::SIZE_T, span);
        match by_dimension {
            Some(builtin) => id(self, builtin(axis)),
            // lockstep's launches start at global id 0 on every axis.
            None if name == "get_global_offset" => {
                let zero = self.int(0, span)?;
                Some(Value { expr: zero, ty: CType::Int(integers::SIZE_T), interval: integers::Interval::new(0, 0) })
            }
            None => {
                let (first, second, third) = if name == "get_global_id" {
                    (Builtin::GroupId(axis), Builtin::GroupSize(axis), Some(Builtin::LocalId(axis)))
                } else {
                    (Builtin::GroupSize(axis), Builtin::Groups(axis), None)
                };
                let integers = self.integers(place);
                let (first, second) = (id(self, first)?, id(self, second)?);
                let mut value =
                    self.checked(integers::arithmetic(integers::Arithmetic::Mul, first, second, integers, span))?;
                if let Some(third) = third {
                    let third = id(self, third)?;
                    value =
                        self.checked(integers::arithmetic(integers::Arithmetic::Add, value, third, integers, span))?;
                }
                Some(value)
            }
        }
    }

    fn argument_count(&mut self, name: &str, wanted: usize, given: usize, span: Span) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::ArgumentCount,
                format!("`{name}` takes {wanted} argument(s)"),
                span,
                format!("{given} given"),
            )
            .with_help(format!("call `{name}` with {wanted} argument(s)")),
        );
    }

    /// Leaves out a GPUVerify proof hint, with a `warning::left-out` saying why.
    fn left_out(&mut self, span: Span, what: String, why: impl Into<String>) {
        self.diagnostics.push(
            Diagnostic::warning(Code::LeftOut, format!("{what} is left out"), span, "neither assumed nor checked")
                .with_help(why),
        );
    }

    /// Leaves out (with a warning) a hint that speaks of GPUVerify's two-thread encoding, or of
    /// its access logs unless `logs_kept`, and says whether it did: see [`TWO_THREAD_PREDICATES`].
    fn hint_left_out(&mut self, formula: &ast::Expr, span: Span, what: &str, logs_kept: bool) -> bool {
        let Some(predicate) = two_thread_predicate(formula, logs_kept) else { return false };
        let why = if logs::LOG_QUERIES.contains(&predicate) {
            "GPUVerify's access logs serve its race check, where lockstep's permissions say what a thread may access; lockstep keeps them for `__assert` and helpers' contracts only"
        } else {
            "it speaks of the other thread of GPUVerify's pair; lockstep checks each thread on its own"
        };
        self.left_out(span, format!("{what}, over GPUVerify's two-thread encoding (`{predicate}`),"), why);
        true
    }

    /// The formula of a GPUVerify annotation (`__assert(e)`, ...): a specification, whose integer
    /// holds where it is not 0, as a C condition does.
    fn gpuverify_formula(&mut self, formula: &ast::Expr, lengths: &Lengths) -> Option<surface::Expr> {
        let value = self.typed(formula, Place::Annotation, lengths)?;
        self.converted(value, CType::Bool, Place::Annotation, formula.span)
    }

    /// GPUVerify's loop invariants, `__invariant(e)` written before a loop's condition (and its
    /// function-wide ones, [`Lowerer::function_wide_invariants`]); a candidate's clause is a
    /// [`surface::ClauseKind::CandidateInvariant`].
    fn gpuverify_invariants(&mut self, invariants: &[&ast::Expr], lengths: &Lengths) -> Option<Vec<surface::Clause>> {
        let mut clauses = Vec::new();
        let mut ok = true;
        for invariant in invariants {
            let ast::ExprKind::Call { function, args } = &invariant.kind else { continue };
            let [formula] = args.as_slice() else {
                self.argument_count(&function.name, 1, args.len(), invariant.span);
                ok = false;
                continue;
            };
            if self.hint_left_out(formula, invariant.span, "this loop invariant", false) {
                continue;
            }
            let kind =
                if function.name.starts_with("__candidate") || function.name == "__function_wide_candidate_invariant" {
                    surface::ClauseKind::CandidateInvariant
                } else {
                    surface::ClauseKind::Invariant
                };
            match self.gpuverify_formula(formula, lengths) {
                Some(formula) => {
                    clauses.push(surface::Clause { level: surface::Level::Thread, kind, formula, span: invariant.span })
                }
                None => ok = false,
            }
        }
        ok.then_some(clauses)
    }

    /// A comparison with a floating-point operand. In code its result is arbitrary (NaN compares
    /// unequal even to itself). In annotations two floating-point values compare as the values
    /// they are, so that `out[i] == in[i]` says that a value was copied; nothing else about
    /// them can be said.
    fn float_comparison(
        &mut self,
        comparison: surface::BinaryOp,
        lhs: Value,
        rhs: Value,
        span: Span,
        place: Place,
    ) -> Option<Value> {
        if place == Place::Code {
            return self.arbitrary(CType::Bool, vec![lhs, rhs], place, span);
        }
        let (CType::Float(_), CType::Float(_)) = (lhs.ty, rhs.ty) else {
            self.unsupported(
                span,
                "comparing a floating-point value with another type in an annotation",
                "annotations compare floating-point values only with each other, as they are copied: `out[i] == in[i]`",
            );
            return None;
        };
        if !matches!(comparison, surface::BinaryOp::Eq | surface::BinaryOp::Ne) {
            self.unsupported(
                span,
                "ordering floating-point values in an annotation",
                "annotations compare floating-point values only with `==` and `!=`, as they are copied",
            );
            return None;
        }
        let lowered = self.binary(comparison, lhs.expr, rhs.expr, span)?;
        Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() })
    }

    /// A call of a floating-point function of OpenCL or CUDA (`sqrt`, `fabs`, `native_exp`,
    /// ...): an arbitrary value of the widest floating-point type among its arguments (`float`
    /// where none is one), or an arbitrary `int` for a classification (`isnan`, ...).
    fn float_function(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let values = self.operands(args, place, lengths)?;
        let ty = if FLOAT_CLASSIFICATIONS.contains(&name) {
            CType::Int(integers::INT)
        } else {
            integers::floating(values.iter().map(|value| value.ty)).unwrap_or(integers::FLOAT)
        };
        self.arbitrary(ty, values, place, span)
    }

    /// The values of a call's arguments.
    fn arguments(&mut self, args: &[ast::Expr], place: Place, lengths: &Lengths) -> Option<Vec<Value>> {
        args.iter().map(|arg| self.typed(arg, place, lengths)).collect()
    }

    /// GPUVerify's additions that do not overflow. `__add_noovfl_T(a, b)` (`T` is `int`,
    /// `unsigned_int`, `char`, ...) is `a + b` in the type `T`, assuming, as GPUVerify does, that
    /// the sum lies in `T`: the assumption stands right before the statement, so that it may not
    /// be where the call may not run (after `&&`, `||` or `?`) nor in a loop's condition.
    /// `__add_noovfl(a, b, ...)` is whether the sum of its operands lies in their common type.
    fn add_without_overflow(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let suffix = name.strip_prefix("__add_noovfl").unwrap_or_default();
        let result_type = match suffix.strip_prefix('_') {
            None if suffix.is_empty() => None,
            Some(word) => Some(noovfl_type(word)),
            None => Some(None),
        };
        if args.len() < 2 || result_type == Some(None) {
            self.unsupported(span, format!("a call of `{name}`"), "GPUVerify's `__add_noovfl_T(a, b)` adds two integers of a type `T` such as `int` or `unsigned_int`; `__add_noovfl(a, b, ...)` tells whether integers add without overflow");
            return None;
        }
        let mut operands = Vec::new();
        for arg in args {
            let value = self.typed(arg, place, lengths)?;
            let CType::Int(_) = value.ty else {
                self.unsupported(arg.span, format!("`{name}` of a non-integer value"), "it adds integers");
                return None;
            };
            operands.push(value);
        }
        let ty = match result_type.flatten() {
            Some(ty) => ty,
            None => operands
                .iter()
                .fold(integers::promoted(operands[0].ty), |ty, value| integers::common(CType::Int(ty), value.ty)),
        };
        let mut sum: Option<surface::Expr> = None;
        for value in operands {
            let value = self.checked(integers::convert(value, CType::Int(ty), self.integers, span))?;
            sum = Some(match sum {
                None => value.expr,
                Some(sum) => self.binary(surface::BinaryOp::Add, sum, value.expr, span)?,
            });
        }
        let sum = sum?;
        let (least, greatest) = ty.bounds();
        let (least, greatest) = (self.int(least, span)?, self.int(greatest, span)?);
        let above = self.binary(surface::BinaryOp::Le, least, sum.clone(), span)?;
        let below = self.binary(surface::BinaryOp::Le, sum.clone(), greatest, span)?;
        let within = self.binary(surface::BinaryOp::And, above, below, span)?;
        if result_type.is_none() {
            return Some(Value { expr: within, ty: CType::Bool, interval: CType::Bool.interval() });
        }
        if place == Place::Annotation
            || !self.noovfl_statement
            || self.conditional
            || self.before.is_none()
            || args.iter().any(has_effect)
        {
            self.unsupported(
                span,
                format!("`{name}` other than as the value of `x = {name}(a, b);` with operands without effects"),
                "compute the sum into a variable in a statement of its own",
            );
            return None;
        }
        let assume = self.surface_stmt(surface::StmtKind::Assume(within), span)?;
        self.before.get_or_insert_with(Vec::new).push(assume);
        Some(Value { expr: sum, ty: CType::Int(ty), interval: CType::Int(ty).interval() })
    }

    fn min_max_abs(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let wanted = if name == "abs" { 1 } else { 2 };
        if args.len() != wanted {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::ArgumentCount,
                    format!("`{name}` takes {wanted} argument(s)"),
                    span,
                    format!("{} given", args.len()),
                )
                .with_help(format!("call it as `{name}({})`", if wanted == 1 { "x" } else { "a, b" })),
            );
            return None;
        }
        let integers = self.integers(place);
        let mut values = self.arguments(args, place, lengths)?;
        if let Some(ty) = integers::floating(values.iter().map(|value| value.ty)) {
            return self.arbitrary(ty, values, place, span);
        }
        if name == "abs" {
            // `abs(x)` is `x < 0 ? -x : x`, in x's promoted type (`abs(INT_MIN)` overflows).
            let value = values.remove(0);
            let ty = CType::Int(integers::promoted(value.ty));
            let zero = Value { expr: self.int(0, span)?, ty, interval: integers::Interval::new(0, 0) };
            let negated =
                self.checked(integers::arithmetic(integers::Arithmetic::Sub, zero, value.clone(), integers, span))?;
            let value = self.convert(value, ty, place, span)?;
            let zero = self.int(0, span)?;
            let test = self.binary(surface::BinaryOp::Lt, value.expr.clone(), zero, span)?;
            let interval = integers::Interval {
                least: BigInt::from(0),
                greatest: value.interval.least.clone().abs().max(value.interval.greatest.clone().abs()),
            };
            let kind = surface::ExprKind::Cond {
                cond: Box::new(test),
                then_value: Box::new(negated.expr),
                else_value: Box::new(value.expr),
            };
            return Some(Value { expr: self.node(kind, span)?, ty, interval });
        }
        let second = values.pop()?;
        let first = values.pop()?;
        let ty = CType::Int(integers::common(first.ty, second.ty));
        let interval = integers::either(&first.interval, &second.interval);
        let first = self.convert(first, ty, place, span)?.expr;
        let second = self.convert(second, ty, place, span)?.expr;
        let op = if name == "min" { surface::BinaryOp::Le } else { surface::BinaryOp::Ge };
        let test = self.binary(op, first.clone(), second.clone(), span)?;
        let kind =
            surface::ExprKind::Cond { cond: Box::new(test), then_value: Box::new(first), else_value: Box::new(second) };
        Some(Value { expr: self.node(kind, span)?, ty, interval })
    }
}

/// OpenCL's and CUDA's floating-point functions, all of which lockstep reads as giving an
/// arbitrary value (with the `f` forms of CUDA and the `native_`, `half_` and `__` forms).
const FLOAT_FUNCTIONS: &[&str] = &[
    "sqrt",
    "rsqrt",
    "cbrt",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "pown",
    "powr",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "sinpi",
    "cospi",
    "fabs",
    "fmin",
    "fmax",
    "fmod",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "mad",
    "fma",
    "hypot",
    "copysign",
    "fdim",
    "recip",
    "divide",
    "mix",
    "step",
    "smoothstep",
    "sign",
    "degrees",
    "radians",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "ldexp",
    "fdividef",
    "saturate",
    "rcp",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frcp",
    "fsqrt",
    // Geometric functions, over vectors.
    "dot",
    "cross",
    "length",
    "distance",
    "normalize",
    "fast_length",
    "fast_distance",
    "fast_normalize",
];

/// The floating-point functions that classify a value, giving an `int`.
const FLOAT_CLASSIFICATIONS: &[&str] = &["isnan", "isinf", "isfinite", "isnormal", "signbit"];

/// Whether `name` is a floating-point function, in any of its spellings.
fn is_float_function(name: &str) -> bool {
    let base = name.trim_start_matches("native_").trim_start_matches("half_").trim_start_matches("__");
    let base = base.strip_suffix("f").filter(|base| FLOAT_FUNCTIONS.contains(base)).unwrap_or(base);
    let base = base.strip_suffix("_rn").unwrap_or(base);
    FLOAT_FUNCTIONS.contains(&base) || FLOAT_CLASSIFICATIONS.contains(&base)
}

/// What a barrier call fences.
#[derive(Clone, Copy)]
enum Fences<'e> {
    /// `__syncthreads()`: local and global memory.
    Both,
    /// `barrier(flags)`.
    Flags(&'e ast::Expr),
}

/// The fences of a barrier call statement, if the expression is one.
fn barrier_fences(expr: &ast::Expr) -> Option<Fences<'_>> {
    let ast::ExprKind::Call { function, args } = &expr.kind else { return None };
    match (function.name.as_str(), args.as_slice()) {
        ("__syncthreads", []) => Some(Fences::Both),
        ("barrier" | "work_group_barrier", [flags]) => Some(Fences::Flags(flags)),
        _ => None,
    }
}

/// Whether a statement is a barrier that fences local memory.
fn fences_local(stmt: &ast::Stmt) -> bool {
    let ast::StmtKind::Expr(expr) = &stmt.kind else { return false };
    match barrier_fences(expr) {
        Some(Fences::Both) => true,
        Some(Fences::Flags(flags)) => {
            flags_of(flags).iter().any(|flag| fence_bits(flag).is_some_and(|bits| bits & 1 != 0))
        }
        None => false,
    }
}

/// The flags of `a | b | c`.
fn flags_of(expr: &ast::Expr) -> Vec<&ast::Expr> {
    match &expr.kind {
        ast::ExprKind::Binary { op: ast::BinaryOp::BitOr, lhs, rhs } => {
            let mut flags = flags_of(lhs);
            flags.extend(flags_of(rhs));
            flags
        }
        _ => vec![expr],
    }
}

/// GPUVerify's loop invariants: `__invariant(e)` and `__global_invariant(e)` (which holds for every
/// thread, so for this one) are checked invariants; `__candidate_invariant(e)` and
/// `__candidate_global_invariant(e)` are guesses that GPUVerify keeps only where they hold, as
/// lockstep's Houdini does where it infers permissions (and leaves them out elsewhere).
const GPUVERIFY_INVARIANTS: &[&str] =
    &["__invariant", "__global_invariant", "__candidate_invariant", "__candidate_global_invariant"];

/// OpenCL's memory fences, which order one work-item's own accesses to memory: lockstep's
/// semantics runs each thread's accesses in order already, so they change nothing.
const MEMORY_FENCES: &[&str] = &["mem_fence", "read_mem_fence", "write_mem_fence"];

/// GPUVerify's predicates over the other thread of its two-thread encoding (`__other_int(x)`:
/// `x` there; `__uniform_int(x)`: `x` is the same in both), which lockstep, checking one thread
/// at a time, does not have. A hint that uses them and only helps a proof (a loop invariant, a
/// precondition, an `__assume`) is left out, neither assumed nor checked, which loses no check;
/// a claim (`__assert`, `__ensures`) that uses them is refused. So are the hints over the access
/// logs ([`crate::c::lower::logs`]) where lockstep does not use them: loop invariants, assumptions and a
/// kernel's preconditions.
const TWO_THREAD_PREDICATES: &[&str] = &[
    "__other_int",
    "__other_bool",
    "__uniform_int",
    "__uniform_bool",
    "__distinct_int",
    "__distinct_bool",
    "__exclusive",
    "__reads_from",
    "__writes_to",
];

/// The deepest operand `&`, `|` or `^` expands bit by bit ([`Lowerer::bit_by_bit`]): deep enough
/// for arithmetic on variables, too shallow for another bit-by-bit sum.
const MAX_BITWISE_OPERAND_DEPTH: u32 = 12;

/// The memories a fence flag names, as the bits of `cl_mem_fence_flags` (1 local, 2 global): a
/// flag's name, or its value where a macro of the file's own spelled it (Clang expands macros).
fn fence_bits(flag: &ast::Expr) -> Option<u32> {
    match &flag.kind {
        ast::ExprKind::Name(word) => fence_flag_value(word),
        ast::ExprKind::Int { value, .. } => value.to_u32().filter(|bits| bits & !3 == 0),
        _ => None,
    }
}

/// The value of an OpenCL fence flag (`cl_mem_fence_flags`), as OpenCL's headers define it.
fn fence_flag_value(name: &str) -> Option<u32> {
    match name {
        "CLK_LOCAL_MEM_FENCE" => Some(1),
        "CLK_GLOBAL_MEM_FENCE" => Some(2),
        _ => None,
    }
}

/// Whether a lowered expression reads memory.
fn reads_memory(expr: &surface::Expr) -> bool {
    matches!(expr.kind, surface::ExprKind::Index { .. }) || expr.kind.children().into_iter().any(reads_memory)
}

/// The first use of one of GPUVerify's [`TWO_THREAD_PREDICATES`] in an expression, or of
/// `__same_group` (the pair's threads are in one group), or of the access logs unless
/// `logs_kept`.
fn two_thread_predicate(expr: &ast::Expr, logs_kept: bool) -> Option<&str> {
    match &expr.kind {
        ast::ExprKind::Call { function, .. }
            if TWO_THREAD_PREDICATES.contains(&function.name.as_str())
                || (!logs_kept && logs::LOG_QUERIES.contains(&function.name.as_str())) =>
        {
            Some(&function.name)
        }
        ast::ExprKind::Name(name) if name == "__same_group" => Some(name),
        kind => kind.children().into_iter().find_map(|child| two_thread_predicate(child, logs_kept)),
    }
}

/// GPUVerify's binary barrier invariants (`__barrier_invariant_binary_N`, over pairs of threads): a
/// hint to GPUVerify's encoding that lockstep leaves out. Its unary barrier invariants are read
/// ([`crate::c::lower::barrier_invariants`]).
fn is_proof_hint(name: &str) -> bool {
    barrier_invariants::is_binary_barrier_invariant(name)
}

/// GPUVerify's function-wide invariants: `__function_wide_invariant(e)` is an invariant of every
/// loop of the function, `__function_wide_candidate_invariant(e)` a candidate of each.
const FUNCTION_WIDE_INVARIANTS: &[&str] = &["__function_wide_invariant", "__function_wide_candidate_invariant"];

/// GPUVerify writes loop invariants into the loop's condition: `__invariant(a), __invariant(b), c`.
/// The invariants, and the condition.
/// Anything else before a comma stays, and is refused with the comma.
fn split_invariants(cond: &ast::Expr) -> (Vec<&ast::Expr>, &ast::Expr) {
    let is_invariant = |expr: &ast::Expr| matches!(&expr.kind, ast::ExprKind::Call { function, .. } if GPUVERIFY_INVARIANTS.contains(&function.name.as_str()));
    let mut parts = Vec::new();
    let mut rest = cond;
    while let ast::ExprKind::Comma(first, last) = &rest.kind {
        parts.push(&**last);
        rest = first;
    }
    parts.push(rest);
    parts.reverse();
    let Some((condition, invariants)) = parts.split_last() else { return (Vec::new(), cond) };
    if invariants.iter().all(|part| is_invariant(part)) {
        (invariants.to_vec(), condition)
    } else {
        (Vec::new(), cond)
    }
}

/// GPUVerify's `__requires(e);` or `__ensures(e);`: the clause, its formula, and its name.
fn gpuverify_clause(stmt: &ast::Stmt) -> Option<(surface::ClauseKind, &ast::Expr, &str)> {
    let ast::StmtKind::Expr(ast::Expr { kind: ast::ExprKind::Call { function, args }, .. }) = &stmt.kind else {
        return None;
    };
    let kind = match function.name.as_str() {
        // A `__global_` clause holds in every thread, so in this one.
        "__requires" | "__global_requires" => surface::ClauseKind::Requires,
        "__ensures" | "__global_ensures" => surface::ClauseKind::Ensures,
        _ => return None,
    };
    match args.as_slice() {
        [formula] => Some((kind, formula, &function.name)),
        _ => None,
    }
}

fn is_barrier(stmt: &ast::Stmt) -> bool {
    matches!(&stmt.kind, ast::StmtKind::Expr(expr) if barrier_fences(expr).is_some())
}

fn is_loop(stmt: &ast::Stmt) -> bool {
    matches!(stmt.kind, ast::StmtKind::While { .. } | ast::StmtKind::For { .. } | ast::StmtKind::DoWhile { .. })
}

fn is_local_memory(specifiers: &ast::Specifiers) -> bool {
    specifiers.has(ast::Qualifier::Shared) || specifiers.has(ast::Qualifier::Local)
}

/// Whether a statement ends with `return;` on every path that reaches its end... as written: a
/// `return` statement, or a block whose last statement is one.
fn ends_in_return(stmt: &ast::Stmt) -> bool {
    match &stmt.kind {
        ast::StmtKind::Return(_) => true,
        ast::StmtKind::Block(block) => block.stmts.last().is_some_and(ends_in_return),
        _ => false,
    }
}

/// The statements of a branch: those of its block, or the statement itself.
fn flatten(stmt: &ast::Stmt) -> Vec<ast::Stmt> {
    match &stmt.kind {
        ast::StmtKind::Block(block) => block.stmts.clone(),
        _ => vec![stmt.clone()],
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

fn axis_named(name: &str) -> Option<Axis> {
    match name {
        "x" => Some(Axis::X),
        "y" => Some(Axis::Y),
        "z" => Some(Axis::Z),
        _ => None,
    }
}

/// The `\pointer_length(a) == e` and `\shared_mem_size(a) == e` conjuncts of a formula.
fn collect_lengths<'e>(formula: &'e ast::Expr, found: &mut Vec<(String, &'e ast::Expr)>) {
    match &formula.kind {
        ast::ExprKind::Binary { op: ast::BinaryOp::And | ast::BinaryOp::Star, lhs, rhs } => {
            collect_lengths(lhs, found);
            collect_lengths(rhs, found);
        }
        ast::ExprKind::Binary { op: ast::BinaryOp::Eq, lhs, rhs } => {
            for (side, other) in [(lhs, rhs), (rhs, lhs)] {
                if let ast::ExprKind::Backslash { word, args } = &side.kind {
                    if let ("\\pointer_length" | "\\shared_mem_size", [array]) = (word.name.as_str(), args.as_slice()) {
                        if let ast::ExprKind::Name(name) = &array.kind {
                            found.push((name.clone(), other));
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether an expression is a call of GPUVerify's `__add_noovfl_T`.
fn is_noovfl_call(expr: &ast::Expr) -> bool {
    matches!(&expr.kind, ast::ExprKind::Call { function, .. } if function.name.starts_with("__add_noovfl_"))
}

/// `x = __add_noovfl_T(...)`, of a variable.
fn is_noovfl_assignment(expr: &ast::Expr) -> bool {
    matches!(&expr.kind, ast::ExprKind::Assign { op: None, target, value }
        if matches!(target.kind, ast::ExprKind::Name(_)) && is_noovfl_call(value))
}

/// Whether evaluating an expression may change a variable or memory: an assignment, `++`,
/// `--`, or a call of anything but an id or size.
fn has_effect(expr: &ast::Expr) -> bool {
    let own = match &expr.kind {
        ast::ExprKind::Assign { .. } => true,
        ast::ExprKind::Unary { op, .. } => matches!(
            op,
            ast::UnaryOp::PreIncrement
                | ast::UnaryOp::PreDecrement
                | ast::UnaryOp::PostIncrement
                | ast::UnaryOp::PostDecrement
        ),
        ast::ExprKind::Call { function, .. } => !function.name.starts_with("get_"),
        _ => false,
    };
    own || expr.kind.children().into_iter().any(has_effect)
}

/// The integer type a suffix of GPUVerify's `__add_noovfl_` names: `int`, `unsigned_char`, ...
fn noovfl_type(suffix: &str) -> Option<MachineInt> {
    let (signed, base) = match suffix.strip_prefix("unsigned_") {
        Some(base) => (false, base),
        None => (true, suffix),
    };
    let bits = match base {
        "char" => 8,
        "short" => 16,
        "int" => 32,
        "long" => 64,
        _ => return None,
    };
    Some(MachineInt { bits, signed })
}

#[cfg(test)]
mod tests {
    use crate::c::{check, integers::Integers, Dialect};
    use crate::diagnostics::Code;

    /// The first diagnostic of a kernel body, as `(code, message)`.
    fn refusal(body: &str) -> (Code, String) {
        let text = format!("__kernel void k(global int* a) {{ {body} }}");
        let (_, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
        let first = diagnostics.first().unwrap_or_else(|| panic!("`{body}` is accepted"));
        (first.code, first.message.clone())
    }

    /// C that Clang refuses never reaches the lowering: the error is Clang's, at its place.
    #[test]
    fn invalid_c_is_refused_by_clang() {
        for (body, message) in [
            ("int2 v = (int2){1};", "too few elements in vector initialization"),
            ("int z = __add_noovfl_float(1, 2);", "implicit declaration of function '__add_noovfl_float'"),
            ("int n = a[0]; int b[n];", "variable length arrays are not supported in OpenCL"),
            ("int b[2] = {1, 2, 3};", "excess elements in array initializer"),
            ("int b[2][2] = {{1, 2, 3}};", "excess elements in array initializer"),
            ("int t[2] = {{1, 2}};", "excess elements in scalar initializer"),
            ("int b[2] = a[0];", "array initializer must be an initializer list"),
            ("int x = 0; atomic_inc(&x);", "no matching function for call to 'atomic_inc'"),
            (
                "local int s[2]; global int* p = a; if (a[0] > 0) { p = s; } atomic_inc(p);",
                "assigning '__local int *' to '__global int *__private' changes address space of pointer",
            ),
            (
                "global int* p = a; p[0] = 1; local int s[2]; p = s;",
                "assigning '__local int *' to '__global int *__private' changes address space of pointer",
            ),
            ("float f = 1.0f; int x = 1 & f;", "invalid operands to binary expression"),
            ("void v;", "variable has incomplete type 'void'"),
            ("if (a[0] > 0) break;", "'break' statement not in loop or switch statement"),
            ("a[0] = foo(1);", "implicit declaration of function 'foo' is invalid in OpenCL"),
            ("int x = 0; __assert(!__read(x));", "no matching function for call to '__read'"),
            ("__ensures(\\returned); a[0] = 1;", "expected expression"),
        ] {
            let (code, found) = refusal(body);
            assert_eq!(code, Code::Clang, "{body}: {found}");
            assert!(found.starts_with(message), "{body}: {found}");
        }
    }

    /// A `return;` that ends the kernel: the code after it becomes the `if`'s other branch.
    #[test]
    fn a_return_that_ends_the_kernel_guards_the_code_after_it() {
        for body in [
            "if (get_global_id(0) >= 4) return; a[get_global_id(0)] = 1;",
            "if (a[0] > 0) { if (a[1] > 0) return; a[2] = 1; }",
            "a[0] = 1; return;",
        ] {
            let text = format!("__kernel void k(global int* a) {{ {body} }}");
            let (program, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
            assert!(diagnostics.is_empty(), "{body}: {diagnostics:#?}");
            assert!(program.is_some());
        }
        // The write after the guard is the else branch of the guard.
        let text = "__kernel void k(global int* a) { if (a[0] > 0) return; a[1] = 1; }";
        let program = check(text, Dialect::OpenCl, Integers::Machine, &Default::default()).0.expect("accepted");
        let body = &program.kernels[0].body.stmts;
        assert_eq!(body.len(), 1, "{body:#?}");
        let lockstep_logic::StmtKind::If { else_branch: Some(rest), then_branch, .. } = &body[0].kind else {
            panic!("an if: {body:#?}")
        };
        assert!(then_branch.stmts.iter().all(|stmt| !matches!(stmt.kind, lockstep_logic::StmtKind::Write { .. })));
        assert!(format!("{rest:?}").contains("Write"), "{rest:#?}");
    }

    /// Any other `return` sets the function's return flag, which guards the code after it: the
    /// kernel's body starts by declaring it.
    #[test]
    fn a_return_inside_a_loop_or_before_code_sets_the_return_flag() {
        for body in [
            "if (a[0] > 0) { if (a[1] > 0) return; a[2] = 1; } a[3] = 1;",
            "for (int i = 0; i < 4; i++) { if (i == 2) return; } a[0] = 1;",
            "int i = 0; do { if (a[i] > 0) return; i++; } while (i < 4); a[1] = 1;",
        ] {
            let text = format!("__kernel void k(global int* a) {{ {body} }}");
            let (program, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
            assert!(diagnostics.is_empty(), "{body}: {diagnostics:#?}");
            let kernel = &program.expect("accepted").kernels[0];
            let lockstep_logic::StmtKind::Declare { var, .. } = &kernel.body.stmts[0].kind else {
                panic!("{body}: {:#?}", kernel.body.stmts[0])
            };
            assert!(kernel.vars[var.0 as usize].name.starts_with("\\return@"), "{body}");
        }
    }

    /// A clause that cannot be read is an error, never left out: `Perm(&n, q)` of a scalar once
    /// dropped the whole `ensures` around it without a word, so that the kernel below verified
    /// with `a[0] == 5` unchecked.
    #[test]
    fn a_clause_that_cannot_be_read_is_an_error_not_dropped() {
        let text = "/*@ requires \\pointer_length(a) == 1 ** Perm(&a[0], write); ensures Perm(&n, write) ** a[0] == 5; @*/ __kernel void k(global int* a, int n) { a[0] = n; }";
        let (program, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
        assert!(program.is_none());
        assert_eq!(
            diagnostics.first().map(|diagnostic| diagnostic.code),
            Some(Code::PermissionLocation),
            "{diagnostics:#?}"
        );
    }

    /// In annotations, floating-point values compare only with each other, by `==` and `!=`: a
    /// property of their order or of their relation to an integer would claim more than the
    /// arbitrary values of the floating-point operations support.
    #[test]
    fn annotations_compare_floating_point_values_as_copies_only() {
        let kernel = |formula: &str| {
            let text = format!(
                "/*@ requires \\pointer_length(f) == 2; requires Perm(&f[0], read) ** Perm(&f[1], read); requires {formula}; @*/ __kernel void k(global float* f) {{ }}"
            );
            check(&text, Dialect::OpenCl, Integers::Machine, &Default::default()).1
        };
        assert!(kernel("f[0] == f[1]").is_empty(), "{:#?}", kernel("f[0] == f[1]"));
        assert!(kernel("f[0] != f[1]").is_empty());
        for (formula, construct) in [
            ("f[0] < f[1]", "ordering floating-point values in an annotation"),
            ("f[0] == 1", "comparing a floating-point value with another type in an annotation"),
            ("f[0] == 1.0f", "floating-point arithmetic or a floating-point constant in an annotation"),
            ("f[0] + f[1] == f[0]", "floating-point arithmetic or a floating-point constant in an annotation"),
        ] {
            let diagnostics = kernel(formula);
            assert_eq!(diagnostics.first().map(|diagnostic| diagnostic.code), Some(Code::Unsupported), "{formula}");
            assert_eq!(diagnostics[0].message, format!("{construct} is not supported"), "{formula}");
        }
    }

    #[test]
    fn constant_memory_is_read_only() {
        let text = "__constant int c[2] = {1, 2};\n__kernel void k() { int x = c[1]; c[0] = x; }";
        let (_, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
        let messages: Vec<_> =
            diagnostics.iter().map(|diagnostic| (diagnostic.code, diagnostic.message.as_str())).collect();
        assert_eq!(messages, [(Code::Clang, "read-only variable is not assignable")]);
        // A variable of the same name declared inside the kernel is its own.
        let text = "__constant int c = 1;\n__kernel void k() { { int c = 2; c = 3; } }";
        let (program, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
        assert!(program.is_some() && diagnostics.is_empty(), "{diagnostics:?}");
    }

    #[test]
    fn a_permission_on_private_memory_is_an_error() {
        let (code, message) = refusal("int t[2]; /*@ assert Perm(&t[0], read); @*/");
        assert_eq!(
            (code, message.as_str()),
            (Code::PermissionLocation, "a cell of a private array is not a cell of memory")
        );
    }

    #[test]
    fn constructs_outside_the_subset_are_named() {
        for (body, construct) in [
            ("local int L[4]; ((local char*)L)[0] = 1;", "a pointer cast"),
            (
                "int z = a[0] > 0 && __add_noovfl_int(a[0], 1) > 0;",
                "`__add_noovfl_int` other than as the value of `x = __add_noovfl_int(a, b);` with operands without effects",
            ),
            (
                "int x = 0; int y; x = 0, y = __add_noovfl_int(x, 1);",
                "`__add_noovfl_int` other than as the value of `x = __add_noovfl_int(a, b);` with operands without effects",
            ),
            ("int b[65];", "a private array of 65 cells (lockstep keeps 1 to 64 cells in private variables)"),
            (
                "int b[][2] = {1, 2, 3, 4, 5}; int c[2] = {1}; int d[3][32] = {1};",
                "a private array of 96 cells (lockstep keeps 1 to 64 cells in private variables)",
            ),
            (
                "int x = 1; int y = x ^ 2 ^ 3 ^ 4;",
                "`^` of an operand that is itself a bitwise operation of unknown values",
            ),
            ("global int* p[2];", "a private array of pointers or a pointer to pointers"),
            ("int t[2]; __assert(__read(t));", "`__read` of private memory"),
            ("global int* p = a; /*@ assert p < a; @*/", "`<` of pointers in an annotation"),
            ("global int* p; p[0] = 1;", "the pointer `p` before it points into an array"),
            ("global int* p = a; int x = p;", "the pointer `p` as a value"),
            ("int x = a[0] | 1;", "`|` of a value read from memory"),
            ("float f = 0.5f; while (f < 1.0f) { f = f * 2.0f; }", "a floating-point operation in a loop's condition"),
            ("/*@ assert 1.0f == 1.0f; @*/", "floating-point arithmetic or a floating-point constant in an annotation"),
            // GPUVerify's access logs are this thread's, in its code.
            ("__global_assert(!__write(a));", "`__global_assert` over the access logs (`__write`)"),
            ("__ensures(!__write(a)); a[0] = 1;", "`__write` in a kernel's contract"),
            ("int x = __read(a);", "`__read` in code"),
            (
                "int i = 0; while (a[i] > 0) { i = i + 1; } __assert(!__read(a));",
                "a read of `a` in a loop's condition, in a kernel that asks about its access logs",
            ),
            ("int x = 1; int y = x++;", "`++` or `--` inside an expression"),
            ("int x = 1, y = (x, x);", "the comma operator in an expression"),
            ("/*@ assert \\returned(1); @*/", "`\\returned`"),
        ] {
            assert_eq!(refusal(body), (Code::Unsupported, format!("{construct} is not supported")), "{body}");
        }
    }
}
