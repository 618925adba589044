//! Name resolution and type checking: the syntax tree becomes the kernel IR of `lockstep_logic`.
//!
//! Decisions written down here (and in the README's language reference):
//! - Names: a kernel's parameters, arrays and private variables share one namespace, and a name may
//!   not be declared twice in it (no shadowing, as in Java and PVL). Pure functions have their own
//!   namespace. The reserved names `tid`, `gid`, `lid`, `tcount`, `gsize` cannot be declared or
//!   assigned; kernel parameters are read-only.
//! - Levels: a kernel contract may use `tcount`, `gsize`, parameters and global arrays; a group
//!   contract also `gid`; thread and barrier contracts, invariants and code everything. Local
//!   arrays never appear at the kernel or group level: the group owns all of its local memory.
//!   Pure functions see only their parameters and read no memory.
//! - Resources: a permission, `**`/separating `*` and `\forall*` may stand at the top of a
//!   `requires`/`ensures`/`invariant`/`assert`, as an operand of a separating conjunction, right of
//!   `->`, in the branches of `? :` and in the body of `\forall*`. Anywhere else (arithmetic,
//!   comparisons, `&&`, conditions, code) a permission is an error.
//! - Amounts: `perm(x, N)` takes an integer literal `N` in `1..=100` and means `N/100`;
//!   `Perm(x, q)` takes `write`, `read` or a constant fraction in `(0, 1]` such as `1`, `1/2` or
//!   `1\2`, computed exactly; `q \ d` and `n / d` with `d` an integer expression of `tcount`,
//!   `gsize`, kernel parameters and literals divide such an amount by a value of the launch (the
//!   same in every thread; exact, `proofs/kernel.md` E16).
//! - `\old(e)` (the value of `e` when the kernel started) may appear in `ensures` clauses of the
//!   kernel, group and thread contracts, in barrier contracts and in loop invariants;
//!   `\result` in the `ensures` of a pure function.
//!
//! Errors are collected, not thrown: each sub-expression is checked even when a sibling failed,
//! and a failed part yields `None` so that one mistake is reported once.

use crate::c::{self, integers::Integers};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast;
use lockstep_logic::{
    Amount, Array, ArrayId, Assertion, AssertionKind, Barrier, BarrierId, BinaryOp, Block, Builtin, Clause, Contract,
    Expr, ExprKind, Fences, Function, FunctionId, Kernel, MachineInt, Memory, PermAtom, Program, Quantifier, Span,
    Stmt, StmtKind, Type, UnaryOp, Var, VarId, VarKind,
};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use std::collections::HashMap;

/// Resolves and type-checks a parsed file.
pub fn resolve(file: &ast::File, integers: Integers) -> (Program, Vec<Diagnostic>) {
    let mut resolver = Resolver {
        diagnostics: Vec::new(),
        signatures: Vec::new(),
        function_ids: HashMap::new(),
        dimensions: 1,
        reserved_names: file.reserved_names,
        machine: (integers == Integers::Machine).then_some(c::integers::INT),
    };
    let program = resolver.program(file);
    (program, resolver.diagnostics)
}

fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Int => "int",
        Type::Bool => "bool",
    }
}

struct Signature {
    name: String,
    params: Vec<Type>,
    result: Type,
}

struct Resolver {
    diagnostics: Vec<Diagnostic>,
    signatures: Vec<Signature>,
    function_ids: HashMap<String, FunctionId>,
    /// The dimensions of the kernel being resolved, as far as its text has named axes.
    dimensions: usize,
    /// Whether `tid`, `lid_x`, ... are reserved names ([`ast::File::reserved_names`]).
    reserved_names: bool,
    /// The machine type of `int` in code, with `--int32`.
    machine: Option<MachineInt>,
}

/// Where an expression stands: decides which reserved names and which memory it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Function,
    ArraySize,
    Kernel,
    Group,
    Thread,
}

#[derive(Clone, Copy, Debug)]
struct Context {
    place: Place,
    /// `\old` is allowed (an `ensures` of the kernel, group or thread).
    old: bool,
    /// `\result` is allowed, with this type.
    result: Option<Type>,
    /// Code whose `int` is this machine type (`--int32`): arithmetic must stay in its range.
    machine: Option<MachineInt>,
}

impl Context {
    fn at(place: Place) -> Context {
        Context { place, old: false, result: None, machine: None }
    }
}

/// The names visible in one kernel or function.
#[derive(Default)]
struct Names {
    vars: Vec<Var>,
    /// Nested scopes of variables, innermost last.
    scopes: Vec<Vec<VarId>>,
    arrays: Vec<Array>,
}

impl Names {
    fn lookup_var(&self, name: &str) -> Option<VarId> {
        self.scopes.iter().rev().flatten().copied().find(|id| self.vars[id.index()].name == name)
    }

    fn lookup_array(&self, name: &str) -> Option<ArrayId> {
        self.arrays.iter().position(|array| array.name == name).map(|index| ArrayId(index as u32))
    }

    /// The span of an earlier declaration of `name` visible here, if any.
    fn declared(&self, name: &str) -> Option<Span> {
        self.lookup_var(name)
            .map(|id| self.vars[id.index()].span)
            .or_else(|| self.lookup_array(name).map(|id| self.arrays[id.index()].span))
    }

    fn all_names(&self) -> Vec<&str> {
        let vars = self.scopes.iter().flatten().map(|id| self.vars[id.index()].name.as_str());
        let arrays = self.arrays.iter().map(|array| array.name.as_str());
        vars.chain(arrays).collect()
    }
}

fn builtin_named(name: &str) -> Option<Builtin> {
    Builtin::ALL.into_iter().find(|builtin| builtin.name() == name)
}

impl Resolver {
    /// The reserved name `name` is, in a language that reserves them.
    fn reserved(&self, name: &str) -> Option<Builtin> {
        builtin_named(name).filter(|_| self.reserved_names)
    }
}

/// The closest of `candidates` to `name`, if it is close enough to be a likely typo.
fn suggestion<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, candidate)| {
            *distance <= 2.max(name.len() / 3) && *distance < candidate.len().max(name.len())
        })
        .min()
        .map(|(_, candidate)| candidate)
}

impl Resolver {
    fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn program(&mut self, file: &ast::File) -> Program {
        let declared_functions: Vec<&ast::FunctionDecl> = file
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Function(function) => Some(function),
                _ => None,
            })
            .collect();
        let mut first_span: HashMap<String, Span> = HashMap::new();
        for function in &declared_functions {
            if self.reserved(&function.name.name).is_some() {
                self.report(
                    Diagnostic::error(
                        Code::ReservedName,
                        format!("`{}` is a reserved name", function.name.name),
                        function.name.span,
                        "cannot name a function",
                    )
                    .with_help("pick another name"),
                );
            }
            if let Some(previous) = first_span.get(&function.name.name) {
                let diagnostic = duplicate(&function.name, *previous, "function");
                self.report(diagnostic);
                continue;
            }
            first_span.insert(function.name.name.clone(), function.name.span);
            let params = function.params.iter().map(|param| self.value_type(param.ty, param.ty_span)).collect();
            let result = self.value_type(function.result, function.result_span);
            self.function_ids.insert(function.name.name.clone(), FunctionId(self.signatures.len() as u32));
            self.signatures.push(Signature { name: function.name.name.clone(), params, result });
        }
        // Each function is resolved once, in the order of its id; a duplicate was reported above.
        let functions = declared_functions
            .iter()
            .filter(|function| first_span.get(&function.name.name) == Some(&function.name.span))
            .map(|function| self.function(function))
            .collect();

        let mut kernels: Vec<Kernel> = Vec::new();
        let mut kernel_spans: HashMap<&str, Span> = HashMap::new();
        for item in &file.items {
            if let ast::Item::Kernel(declaration) = item {
                if let Some(previous) = kernel_spans.insert(&declaration.name.name, declaration.name.span) {
                    let diagnostic = duplicate(&declaration.name, previous, "kernel");
                    self.report(diagnostic);
                }
                kernels.push(self.kernel(declaration));
            }
        }
        Program { functions, kernels }
    }

    /// The type of a parameter or result; `void` is only for `main`.
    fn value_type(&mut self, ty: ast::TypeName, span: Span) -> Type {
        match ty {
            ast::TypeName::Int => Type::Int,
            ast::TypeName::Bool => Type::Bool,
            ast::TypeName::Void => {
                self.report(
                    Diagnostic::error(Code::TypeMismatch, "`void` is not a type of values", span, "not allowed here")
                        .with_help("use `int` or `bool`"),
                );
                Type::Int
            }
        }
    }

    fn function(&mut self, declaration: &ast::FunctionDecl) -> Function {
        let id = self.function_ids[&declaration.name.name];
        let result = self.signatures[id.index()].result;
        let mut names = Names { scopes: vec![Vec::new()], ..Names::default() };
        let params = declaration
            .params
            .iter()
            .zip(self.signatures[id.index()].params.clone())
            .filter_map(|(param, ty)| self.declare(&mut names, &param.name, ty, VarKind::FunctionParam))
            .collect();
        let mut requires = Vec::new();
        let mut ensures = Vec::new();
        for clause in &declaration.clauses {
            let context = match clause.kind {
                ast::ClauseKind::Ensures => Context { result: Some(result), ..Context::at(Place::Function) },
                _ => Context::at(Place::Function),
            };
            let checked = self.expr(&mut names, context, &clause.formula, Some(Type::Bool));
            match clause.kind {
                ast::ClauseKind::Ensures => ensures.extend(checked),
                ast::ClauseKind::Context => {
                    ensures.extend(checked.clone());
                    requires.extend(checked);
                }
                _ => requires.extend(checked),
            }
        }
        if let [first, second, ..] = declaration.decreases.as_slice() {
            self.report(
                Diagnostic::error(
                    Code::DuplicateDecreases,
                    format!("`{}` has more than one `decreases` clause", declaration.name.name),
                    second.span,
                    "a second measure",
                )
                .with_secondary(first.span, "the first measure")
                .with_help("a function has one measure: combine them into one int expression"),
            );
        }
        let decreases = declaration.decreases.first().and_then(|decreases| {
            self.expr(&mut names, Context::at(Place::Function), &decreases.measure, Some(Type::Int))
        });
        let body = self.expr(&mut names, Context::at(Place::Function), &declaration.body, Some(result));
        Function {
            name: declaration.name.name.clone(),
            span: declaration.span,
            params,
            vars: names.vars,
            result,
            requires,
            ensures,
            decreases,
            body: body.unwrap_or(Expr { kind: ExprKind::Bool(false), ty: result, span: declaration.body.span }),
        }
    }

    /// Whether `name` may be declared here: it is not reserved (unless `reserved_ok`, for a bound
    /// variable named after a reserved name that has no meaning at this level) and not taken.
    fn claim(&mut self, names: &Names, name: &ast::Ident, reserved_ok: bool) -> bool {
        if self.reserved(&name.name).is_some() && !reserved_ok {
            self.report(
                Diagnostic::error(
                    Code::ReservedName,
                    format!("`{}` is a reserved name", name.name),
                    name.span,
                    "cannot be declared",
                )
                .with_help(
                    "`tid`, `gid`, `lid`, `tcount` and `gsize` are given by the kernel launch; pick another name",
                ),
            );
            return false;
        }
        if let Some(previous) = names.declared(&name.name) {
            self.report(duplicate(name, previous, "name"));
            return false;
        }
        true
    }

    /// Declares a variable in the innermost scope, unless the name is taken.
    fn declare(&mut self, names: &mut Names, name: &ast::Ident, ty: Type, kind: VarKind) -> Option<VarId> {
        self.claim(names, name, false).then(|| Self::bind(names, name, ty, kind))
    }

    fn bind(names: &mut Names, name: &ast::Ident, ty: Type, kind: VarKind) -> VarId {
        let id = VarId(names.vars.len() as u32);
        names.vars.push(Var { name: name.name.clone(), ty, kind, span: name.span });
        names.scopes.last_mut().expect("a scope is always open").push(id);
        id
    }

    fn kernel(&mut self, declaration: &ast::KernelDecl) -> Kernel {
        self.dimensions = 1;
        let mut names = Names { scopes: vec![Vec::new()], ..Names::default() };
        let mut params = Vec::new();
        for param in &declaration.params {
            let ty = self.value_type(param.ty, param.ty_span);
            params.extend(self.declare(&mut names, &param.name, ty, VarKind::KernelParam));
        }
        for member in &declaration.members {
            if let ast::Member::Arrays { memory, element, element_span, size, names: array_names, bounded, .. } = member
            {
                self.arrays(&mut names, *memory, (*element, *element_span), size, array_names, *bounded);
            }
        }

        let mut main: Option<(&ast::Block, Span)> = None;
        let mut kernel_contract: Option<Contract> = None;
        let mut group_contract: Option<Contract> = None;
        let mut thread_contract = Contract::default();
        for member in &declaration.members {
            match member {
                ast::Member::Clause(clause) => {
                    let (place, contract) = match clause.level {
                        ast::Level::Kernel => (Place::Kernel, kernel_contract.get_or_insert_with(Contract::default)),
                        ast::Level::Group => (Place::Group, group_contract.get_or_insert_with(Contract::default)),
                        ast::Level::Thread => (Place::Thread, &mut thread_contract),
                    };
                    let context = Context { old: clause.kind == ast::ClauseKind::Ensures, ..Context::at(place) };
                    if let Some(checked) = self.clause(&mut names, context, clause) {
                        add_clause(contract, clause.kind, checked);
                    }
                }
                ast::Member::Main { result, result_span, name, params, body, span } => {
                    if let Some((_, previous)) = main {
                        self.report(
                            Diagnostic::error(Code::DuplicateMain, "a kernel has one body", *span, "a second body")
                                .with_secondary(previous, "the first body"),
                        );
                        continue;
                    }
                    if *result != ast::TypeName::Void || name.name != "main" || !params.is_empty() {
                        self.report(
                            Diagnostic::error(
                                Code::MainSignature,
                                "the kernel body must be `void main()`",
                                result_span.to(name.span),
                                "expected `void main()`",
                            )
                            .with_help("a kernel has exactly one body, `void main() { ... }`, without parameters; put scalar parameters on the kernel: `kernel k(int n) { ... }`"),
                        );
                    }
                    main = Some((body, *span));
                }
                ast::Member::Arrays { .. } | ast::Member::Error => {}
            }
        }

        let mut barriers = Vec::new();
        let mut candidate_invariants = Vec::new();
        let body = match main {
            Some((body, _)) => {
                let mut labels = HashMap::new();
                let mut walker = BodyResolver {
                    resolver: self,
                    names: &mut names,
                    barriers: &mut barriers,
                    labels: &mut labels,
                    candidate_invariants: Vec::new(),
                };
                let body = walker.block(body);
                candidate_invariants = walker.candidate_invariants;
                body
            }
            None => {
                self.report(
                    Diagnostic::error(
                        Code::MissingMain,
                        format!("kernel `{}` has no body", declaration.name.name),
                        declaration.name.span,
                        "this kernel has no `void main()`",
                    )
                    .with_help("add the code every thread runs: `void main() { ... }`"),
                );
                Block { stmts: Vec::new(), span: declaration.span }
            }
        };
        let mut kernel = Kernel {
            name: declaration.name.name.clone(),
            span: declaration.span,
            params,
            vars: names.vars,
            arrays: names.arrays,
            kernel_contract,
            group_contract,
            thread_contract,
            barriers,
            body,
            dimensions: self.dimensions,
            candidate_invariants,
            unstated_claims: Vec::new(),
            collectives: Vec::new(),
        };
        if let Some(int) = self.machine {
            kernel.assume(machine_facts(&kernel, int, declaration.name.span));
        }
        kernel
    }

    fn arrays(
        &mut self,
        names: &mut Names,
        memory: ast::MemorySpace,
        (element, element_span): (ast::TypeName, Span),
        size: &ast::Expr,
        array_names: &[ast::Ident],
        bounded: bool,
    ) {
        if element != ast::TypeName::Int {
            self.report(
                Diagnostic::error(
                    Code::Unsupported,
                    "arrays hold `int` elements",
                    element_span,
                    "unsupported element type",
                )
                .with_help("declare the array as `int[...]`; store booleans as 0 and 1"),
            );
        }
        let Some(size) = self.expr(names, Context::at(Place::ArraySize), size, Some(Type::Int)) else {
            return;
        };
        for name in array_names {
            if !self.claim(names, name, false) {
                continue;
            }
            let memory = match memory {
                ast::MemorySpace::Global => Memory::Global,
                ast::MemorySpace::Local => Memory::Local,
            };
            names.arrays.push(Array { name: name.name.clone(), memory, size: size.clone(), bounded, span: name.span });
        }
    }

    fn clause(&mut self, names: &mut Names, context: Context, clause: &ast::Clause) -> Option<Clause> {
        let assertion = self.assertion(names, context, &clause.formula)?;
        Some(Clause { assertion, span: clause.span })
    }

    /// Checks a formula where a resource may stand.
    fn assertion(&mut self, names: &mut Names, context: Context, formula: &ast::Expr) -> Option<Assertion> {
        let span = formula.span;
        let kind = match &formula.kind {
            ast::ExprKind::Binary { op: ast::BinaryOp::Star, lhs, rhs } => {
                let lhs = self.assertion(names, context, lhs);
                let rhs = self.assertion(names, context, rhs);
                AssertionKind::Star(Box::new(lhs?), Box::new(rhs?))
            }
            ast::ExprKind::Binary { op: ast::BinaryOp::Implies, lhs, rhs } => {
                let cond = self.expr(names, context, lhs, Some(Type::Bool));
                let body = self.assertion(names, context, rhs);
                match body? {
                    Assertion { kind: AssertionKind::Pure(body), .. } => AssertionKind::Pure(Expr {
                        kind: ExprKind::Binary { op: BinaryOp::Implies, lhs: Box::new(cond?), rhs: Box::new(body) },
                        ty: Type::Bool,
                        span,
                    }),
                    body => AssertionKind::Implies(cond?, Box::new(body)),
                }
            }
            ast::ExprKind::Cond { cond, then_value, else_value } => {
                let cond = self.expr(names, context, cond, Some(Type::Bool));
                let then_value = self.assertion(names, context, then_value);
                let else_value = self.assertion(names, context, else_value);
                match (then_value?, else_value?) {
                    (
                        Assertion { kind: AssertionKind::Pure(then_value), .. },
                        Assertion { kind: AssertionKind::Pure(else_value), .. },
                    ) => AssertionKind::Pure(Expr {
                        kind: ExprKind::Cond {
                            cond: Box::new(cond?),
                            then_value: Box::new(then_value),
                            else_value: Box::new(else_value),
                        },
                        ty: Type::Bool,
                        span,
                    }),
                    (then_value, else_value) => AssertionKind::Cond(cond?, Box::new(then_value), Box::new(else_value)),
                }
            }
            ast::ExprKind::Perm { style, location, amount } => {
                let atom = self.perm(names, context, *style, location, amount);
                AssertionKind::Perm(atom?)
            }
            ast::ExprKind::Quantifier { kind: ast::QuantifierKind::ForallStar, ty, ty_span, var, range, body } => {
                names.scopes.push(Vec::new());
                let result = self.bound_variable(names, context, var, *ty, *ty_span).and_then(|var| {
                    let range = self.expr(names, context, range, Some(Type::Bool));
                    let body = self.assertion(names, context, body);
                    Some(AssertionKind::ForallStar { var, range: range?, body: Box::new(body?) })
                });
                names.scopes.pop();
                result?
            }
            _ => AssertionKind::Pure(self.expr(names, context, formula, Some(Type::Bool))?),
        };
        Some(Assertion { kind, span })
    }

    fn bound_variable(
        &mut self,
        names: &mut Names,
        context: Context,
        var: &ast::Ident,
        ty: ast::TypeName,
        ty_span: Span,
    ) -> Option<VarId> {
        if ty != ast::TypeName::Int {
            self.report(
                Diagnostic::error(Code::Unsupported, "quantifiers range over `int`", ty_span, "unsupported type")
                    .with_help("quantify over `int`, e.g. `(\\forall int i; 0 <= i && i < n; ...)`"),
            );
            return None;
        }
        // `(\forall* int tid; ...)` in a kernel contract is natural: there `tid` means nothing else.
        let reserved_ok = self.reserved(&var.name).is_some_and(|builtin| !builtin_in_scope(context.place, builtin));
        self.claim(names, var, reserved_ok).then(|| Self::bind(names, var, Type::Int, VarKind::Bound))
    }

    fn perm(
        &mut self,
        names: &mut Names,
        context: Context,
        style: ast::PermStyle,
        location: &ast::Expr,
        amount: &ast::Expr,
    ) -> Option<PermAtom> {
        let place = match &location.kind {
            ast::ExprKind::Index { array, index } => {
                let array = self.array_access(names, context, array);
                let index = self.expr(names, context, index, Some(Type::Int));
                Some((array, index))
            }
            ast::ExprKind::Name(name) if names.lookup_var(name).is_some() || self.reserved(name).is_some() => {
                self.report(
                    Diagnostic::error(
                        Code::PermissionLocation,
                        format!("`{name}` needs no permission"),
                        location.span,
                        "not a memory location",
                    )
                    .with_help("a thread always owns its private variables and the parameters; permissions are for array elements such as `a[i]`"),
                );
                None
            }
            _ => {
                self.report(
                    Diagnostic::error(
                        Code::PermissionLocation,
                        "a permission is held on an array element",
                        location.span,
                        "not an array element",
                    )
                    .with_help("write the location as `a[i]`, for an array `a` declared in the kernel"),
                );
                None
            }
        };
        let amount = self.amount(names, context, style, amount);
        let (array, index) = place?;
        Some(PermAtom { array: array?, index: index?, amount: amount? })
    }

    fn amount(
        &mut self,
        names: &mut Names,
        context: Context,
        style: ast::PermStyle,
        amount: &ast::Expr,
    ) -> Option<Amount> {
        // `q \ e` and `n / e` with `e` not a literal: a fraction divided by a value of the launch.
        if let (
            ast::ExprKind::Binary { op: op @ (ast::BinaryOp::Div | ast::BinaryOp::Fraction), lhs, rhs },
            ast::PermStyle::Fraction,
        ) = (&amount.kind, style)
        {
            let literals = matches!(lhs.kind, ast::ExprKind::Int(_)) && matches!(rhs.kind, ast::ExprKind::Int(_));
            let constant_numerator = matches!(lhs.kind, ast::ExprKind::Int(_)) || *op == ast::BinaryOp::Fraction;
            if !literals && constant_numerator {
                return self.divided(names, context, lhs, rhs);
            }
        }
        let exact = match (&amount.kind, style) {
            (ast::ExprKind::Write, _) => BigRational::one(),
            (ast::ExprKind::Read, _) => return Some(Amount::Read),
            (ast::ExprKind::Int(percent), ast::PermStyle::Percent) => {
                BigRational::new(percent.clone(), BigInt::from(100))
            }
            (ast::ExprKind::Int(value), ast::PermStyle::Fraction) => BigRational::from_integer(value.clone()),
            (
                ast::ExprKind::Binary { op: ast::BinaryOp::Div | ast::BinaryOp::Fraction, lhs, rhs },
                ast::PermStyle::Fraction,
            ) => match (&lhs.kind, &rhs.kind) {
                (ast::ExprKind::Int(numerator), ast::ExprKind::Int(denominator)) => {
                    if denominator.is_zero() {
                        self.report(Diagnostic::error(
                            Code::PermissionAmount,
                            "the fraction divides by zero",
                            rhs.span,
                            "this denominator is 0",
                        ));
                        return None;
                    }
                    BigRational::new(numerator.clone(), denominator.clone())
                }
                _ => return self.non_constant_amount(style, amount.span),
            },
            (ast::ExprKind::Unary { op: ast::UnaryOp::Neg, .. }, _) => {
                self.report(
                    Diagnostic::error(
                        Code::PermissionAmount,
                        "a permission amount must be positive",
                        amount.span,
                        "negative",
                    )
                    .with_help("a permission is a positive fraction of a location, at most 1 (100 in `perm`)"),
                );
                return None;
            }
            _ => return self.non_constant_amount(style, amount.span),
        };
        if !exact.is_positive() || exact > BigRational::one() {
            let (shown, range) = match style {
                ast::PermStyle::Percent => {
                    (format!("{}", exact.clone() * BigRational::from_integer(100.into())), "1 to 100")
                }
                ast::PermStyle::Fraction => (format!("{exact}"), "greater than 0 and at most 1"),
            };
            self.report(
                Diagnostic::error(
                    Code::PermissionAmount,
                    format!("permission amount {shown} is out of range"),
                    amount.span,
                    format!("must be {range}"),
                )
                .with_help(if style == ast::PermStyle::Fraction && exact > BigRational::one() {
                    "`Perm(x, q)` takes a fraction of 1; for a percentage write `perm(x, N)`, for write permission `Perm(x, write)`"
                } else {
                    "a location's permissions add up to at most 1 (100 in `perm`), and a permission must be positive"
                }),
            );
            return None;
        }
        Some(Amount::Exact(exact))
    }

    /// `q \ e`: a constant amount `q` divided by `e`, an integer expression of the launch sizes
    /// and parameters (E16).
    fn divided(
        &mut self,
        names: &mut Names,
        context: Context,
        numerator: &ast::Expr,
        divisor: &ast::Expr,
    ) -> Option<Amount> {
        let fraction = match self.amount(names, context, ast::PermStyle::Fraction, numerator) {
            Some(Amount::Exact(fraction)) => Some(fraction),
            Some(_) => {
                self.report(
                    Diagnostic::error(
                        Code::PermissionAmount,
                        "only a constant amount can be divided",
                        numerator.span,
                        "not a constant amount",
                    )
                    .with_help("divide `write` or a constant fraction, as in `write \\ gsize` or `1\\2 \\ tcount`"),
                );
                None
            }
            None => None,
        };
        if let ast::ExprKind::Int(literal) = &divisor.kind {
            // `write \ 4` is the constant 1/4.
            if !literal.is_positive() {
                let message = "a permission amount must be positive";
                self.report(Diagnostic::error(Code::PermissionAmount, message, divisor.span, "divides by this"));
                return None;
            }
            return Some(Amount::Exact(fraction? / BigRational::from_integer(literal.clone())));
        }
        let divisor = self.expr(names, context, divisor, Some(Type::Int))?;
        let launch_value = !divisor.any(|expr| match &expr.kind {
            ExprKind::Builtin(builtin) => !builtin.is_launch_size(),
            ExprKind::Var(var) => names.vars[var.index()].kind != VarKind::KernelParam,
            ExprKind::Read { .. } | ExprKind::Old(_) | ExprKind::Call { .. } | ExprKind::Quantifier { .. } => true,
            _ => false,
        });
        if !launch_value {
            self.report(
                Diagnostic::error(
                    Code::PermissionAmount,
                    "a permission amount may divide only by a value of the launch",
                    divisor.span,
                    "not the same in every thread",
                )
                .with_help("divide by an expression of `tcount`, `gsize`, kernel parameters and integer literals, such as `write \\ gsize` or `1 \\ (tcount + 2)`"),
            );
            return None;
        }
        Some(Amount::Divided { fraction: fraction?, divisor })
    }

    fn non_constant_amount(&mut self, style: ast::PermStyle, span: Span) -> Option<Amount> {
        let help = match style {
            ast::PermStyle::Percent => {
                "`perm(x, N)` takes a whole percentage such as `100` (write) or `10`; for fractions use `Perm(x, 1/2)`"
            }
            ast::PermStyle::Fraction => {
                "`Perm(x, q)` takes `write`, `read`, `1`, a fraction of two integers such as `1/2` or `1\\3`, or one divided by a value of the launch such as `write \\ gsize`"
            }
        };
        self.report(
            Diagnostic::error(
                Code::PermissionAmount,
                "a permission amount must be a constant",
                span,
                "not a constant amount",
            )
            .with_help(help),
        );
        None
    }

    /// Resolves the array of an access or permission, checking that the context may touch it.
    fn array_access(&mut self, names: &Names, context: Context, array: &ast::Ident) -> Option<ArrayId> {
        if context.place == Place::Function {
            self.report(
                Diagnostic::error(
                    Code::MemoryInFunction,
                    "a pure function cannot read memory",
                    array.span,
                    "read here",
                )
                .with_help("a pure function sees only its parameters; pass the value as an argument instead"),
            );
            return None;
        }
        let Some(id) = names.lookup_array(&array.name) else {
            let diagnostic = if names.lookup_var(&array.name).is_some() || self.reserved(&array.name).is_some() {
                Diagnostic::error(
                    Code::NotAnArray,
                    format!("`{}` is not an array", array.name),
                    array.span,
                    "indexed here",
                )
                .with_help("only arrays declared with `global` or `local` can be indexed")
            } else {
                let array_names = names.arrays.iter().map(|array| array.name.as_str());
                let diagnostic = Diagnostic::error(
                    Code::UnknownArray,
                    format!("unknown array `{}`", array.name),
                    array.span,
                    "no array of this name",
                );
                match suggestion(&array.name, array_names) {
                    Some(close) => diagnostic.with_help(format!("did you mean `{close}`?")),
                    None => diagnostic.with_help("declare it in the kernel, e.g. `global int[gsize] name;`"),
                }
            };
            self.report(diagnostic);
            return None;
        };
        let memory = names.arrays[id.index()].memory;
        let refusal = match (context.place, memory) {
            (Place::ArraySize, _) => Some((
                Code::OutOfScope,
                "an array size cannot read memory".to_string(),
                "sizes may use `gsize`, `tcount`, kernel parameters and constants",
            )),
            (Place::Kernel | Place::Group, Memory::Local) => Some((
                Code::OutOfScope,
                format!("local array `{}` has no meaning at the {} level", array.name, level_name(context.place)),
                "local memory belongs to one work group, which always owns all of it; speak about it in thread and barrier contracts",
            )),
            _ => None,
        };
        if let Some((code, message, help)) = refusal {
            self.report(Diagnostic::error(code, message, array.span, "read here").with_help(help));
            return None;
        }
        Some(id)
    }

    /// Checks a value expression, and that it has the `expected` type if one is given.
    fn expr(&mut self, names: &mut Names, context: Context, expr: &ast::Expr, expected: Option<Type>) -> Option<Expr> {
        let checked = self.expr_inner(names, context, expr, expected)?;
        if let Some(expected) = expected {
            if checked.ty != expected {
                let mut diagnostic = Diagnostic::error(
                    Code::TypeMismatch,
                    format!("expected `{}`, found `{}`", type_name(expected), type_name(checked.ty)),
                    expr.span,
                    format!("this is of type `{}`", type_name(checked.ty)),
                );
                if expected == Type::Bool && checked.ty == Type::Int {
                    diagnostic = diagnostic.with_help("compare the value to get a `bool`, e.g. `x != 0`");
                }
                self.report(diagnostic);
                return None;
            }
        }
        Some(checked)
    }

    fn expr_inner(
        &mut self,
        names: &mut Names,
        context: Context,
        expr: &ast::Expr,
        expected: Option<Type>,
    ) -> Option<Expr> {
        let span = expr.span;
        let typed = |kind: ExprKind, ty: Type| Some(Expr { kind, ty, span });
        match &expr.kind {
            ast::ExprKind::Int(value) => typed(ExprKind::Int(value.clone()), Type::Int),
            ast::ExprKind::Bool(value) => typed(ExprKind::Bool(*value), Type::Bool),
            ast::ExprKind::Read | ast::ExprKind::Write => {
                self.report(
                    Diagnostic::error(
                        Code::PermissionAmount,
                        "`read` and `write` are permission amounts",
                        span,
                        "not a value",
                    )
                    .with_help("use them as the amount of a permission: `Perm(a[i], read)`"),
                );
                None
            }
            ast::ExprKind::Result => match context.result {
                Some(ty) => typed(ExprKind::Result, ty),
                None => {
                    self.report(
                        Diagnostic::error(
                            Code::MisplacedResult,
                            "`\\result` outside a function postcondition",
                            span,
                            "no result here",
                        )
                        .with_help("`\\result` names a pure function's value in its `ensures` clauses"),
                    );
                    None
                }
            },
            ast::ExprKind::Name(name) => self.name(names, context, name, span),
            ast::ExprKind::Builtin(builtin) => self.builtin(context, *builtin, span),
            ast::ExprKind::InRange { value, int } => self.in_range(names, context, value, *int, span),
            ast::ExprKind::PrivateIndex { index, length } => {
                let index = self.expr(names, context, index, Some(Type::Int))?;
                typed(ExprKind::PrivateIndex { index: Box::new(index), length: *length }, Type::Int)
            }
            ast::ExprKind::Ticket { counter, cell, site, int } => {
                self.ticket(names, context, counter, cell, (*site, *int), span)
            }
            ast::ExprKind::Index { array, index } => {
                let array = self.array_access(names, context, array);
                let index = self.expr(names, context, index, Some(Type::Int));
                typed(ExprKind::Read { array: array?, index: Box::new(index?) }, Type::Int)
            }
            ast::ExprKind::Call { function, args } => self.call(names, context, function, args, span),
            ast::ExprKind::Unary { op, operand } => self.unary(names, context, *op, operand, span),
            ast::ExprKind::Binary { op, lhs, rhs } => self.binary(names, context, *op, lhs, rhs, span),
            ast::ExprKind::Cond { cond, then_value, else_value } => {
                let cond = self.expr(names, context, cond, Some(Type::Bool));
                let then_value = self.expr(names, context, then_value, expected);
                let expected = expected.or(then_value.as_ref().map(|value| value.ty));
                let else_value = self.expr(names, context, else_value, expected);
                let then_value = then_value?;
                let ty = then_value.ty;
                typed(
                    ExprKind::Cond {
                        cond: Box::new(cond?),
                        then_value: Box::new(then_value),
                        else_value: Box::new(else_value?),
                    },
                    ty,
                )
            }
            ast::ExprKind::Quantifier { kind: ast::QuantifierKind::ForallStar, .. } => {
                self.resource_in_expression(span, "`\\forall*` joins resources");
                None
            }
            ast::ExprKind::Quantifier { kind, ty, ty_span, var, range, body } => {
                typed(self.quantifier(names, context, *kind, (*ty, *ty_span), var, range, body)?, Type::Bool)
            }
            ast::ExprKind::Sum { ty, var, range, body } => {
                typed(self.sum(names, context, *ty, var, range, body)?, Type::Int)
            }
            ast::ExprKind::Old(value) => {
                if !context.old {
                    self.misplaced_old(context, span);
                    return None;
                }
                let value = self.expr(names, context, value, expected)?;
                let ty = value.ty;
                typed(ExprKind::Old(Box::new(value)), ty)
            }
            ast::ExprKind::Perm { .. } => {
                self.resource_in_expression(span, "this is a permission");
                None
            }
        }
    }

    /// `!e` and `-e`, in a function of its own (see [`Resolver::sum`]).
    fn unary(
        &mut self,
        names: &mut Names,
        context: Context,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        let (op, ty) = match op {
            ast::UnaryOp::Not => (UnaryOp::Not, Type::Bool),
            ast::UnaryOp::Neg => (UnaryOp::Neg, Type::Int),
        };
        let operand = self.expr(names, context, operand, Some(ty))?;
        let negated = Expr { kind: ExprKind::Unary { op, operand: Box::new(operand) }, ty, span };
        Some(in_machine(context, negated))
    }

    /// The value of an increment of a counter, in a function of its own (see [`Resolver::sum`]).
    fn ticket(
        &mut self,
        names: &mut Names,
        context: Context,
        counter: &ast::Ident,
        cell: &ast::Expr,
        (site, int): (u32, MachineInt),
        span: Span,
    ) -> Option<Expr> {
        let counter = self.array_access(names, context, counter);
        let cell = self.expr(names, context, cell, Some(Type::Int));
        let kind = ExprKind::Ticket { counter: counter?, cell: Box::new(cell?), site, int };
        Some(Expr { kind, ty: Type::Int, span })
    }

    /// A machine result that must stay in its type, in a function of its own (see
    /// [`Resolver::sum`]).
    fn in_range(
        &mut self,
        names: &mut Names,
        context: Context,
        value: &ast::Expr,
        int: MachineInt,
        span: Span,
    ) -> Option<Expr> {
        let value = self.expr(names, context, value, Some(Type::Int))?;
        Some(Expr { kind: ExprKind::InRange { value: Box::new(value), int }, ty: Type::Int, span })
    }

    /// `(\forall int i; range; body)` or `(\exists ...)`, in a function of its own (see
    /// [`Resolver::sum`]).
    #[allow(clippy::too_many_arguments)]
    fn quantifier(
        &mut self,
        names: &mut Names,
        context: Context,
        kind: ast::QuantifierKind,
        (ty, ty_span): (ast::TypeName, Span),
        var: &ast::Ident,
        range: &ast::Expr,
        body: &ast::Expr,
    ) -> Option<ExprKind> {
        let quantifier = match kind {
            ast::QuantifierKind::Exists => Quantifier::Exists,
            _ => Quantifier::Forall,
        };
        names.scopes.push(Vec::new());
        let result = self.bound_variable(names, context, var, ty, ty_span).and_then(|var| {
            let range = self.expr(names, context, range, Some(Type::Bool));
            let body = self.expr(names, context, body, Some(Type::Bool));
            Some(ExprKind::Quantifier { quantifier, var, range: Box::new(range?), body: Box::new(body?) })
        });
        names.scopes.pop();
        result
    }

    fn misplaced_old(&mut self, context: Context, span: Span) {
        let message = if context.place == Place::Function {
            "`\\old` has no meaning in a pure function, which reads no memory"
        } else {
            "`\\old` outside a postcondition, a barrier contract or a loop invariant"
        };
        self.report(
            Diagnostic::error(Code::MisplacedOld, message, span, "not allowed here")
                .with_help("`\\old(e)` means the value of `e` when the kernel started; it may appear in the `ensures` clauses of the kernel, group and thread contracts, in barrier contracts and in loop invariants"),
        );
    }

    /// `\sum(int j; range; body)`, in a function of its own: the frame of the recursive
    /// `expr_inner` stays small, so that the deepest nesting the parser accepts fits a test thread's
    /// stack (`tests/fuzz.rs`).
    fn sum(
        &mut self,
        names: &mut Names,
        context: Context,
        ty: Option<(ast::TypeName, Span)>,
        var: &ast::Ident,
        range: &ast::Expr,
        body: &ast::Expr,
    ) -> Option<ExprKind> {
        let (ty, ty_span) = ty.unwrap_or((ast::TypeName::Int, var.span));
        names.scopes.push(Vec::new());
        let result = self.bound_variable(names, context, var, ty, ty_span).and_then(|var| {
            let range = self.expr(names, context, range, Some(Type::Bool));
            let body = self.expr(names, context, body, Some(Type::Int));
            let (lower, upper) = self.sum_bounds(var, range?)?;
            Some(ExprKind::Sum { var, lower: Box::new(lower), upper: Box::new(upper), body: Box::new(body?) })
        });
        names.scopes.pop();
        result
    }

    /// The half-open bounds `[lower, upper)` of a `\sum` over `var` from its range: a conjunction of
    /// one lower bound (`lo <= j`, `lo < j`, `j >= lo`, `j > lo`) and one upper bound (`j < hi`,
    /// `j <= hi`, ...), neither mentioning `j`, as `lo <= j < hi` reads.
    fn sum_bounds(&mut self, var: VarId, range: Expr) -> Option<(Expr, Expr)> {
        let span = range.span;
        let mut conjuncts = vec![range];
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        let plus_one = |bound: Expr| {
            let one = Expr { kind: ExprKind::Int(BigInt::one()), ty: Type::Int, span: bound.span };
            let span = bound.span;
            Expr {
                kind: ExprKind::Binary { op: BinaryOp::Add, lhs: Box::new(bound), rhs: Box::new(one) },
                ty: Type::Int,
                span,
            }
        };
        let mut well_formed = true;
        while let Some(conjunct) = conjuncts.pop() {
            let ExprKind::Binary { op, lhs, rhs } = conjunct.kind else {
                well_formed = false;
                break;
            };
            if op == BinaryOp::And {
                conjuncts.extend([*rhs, *lhs]);
                continue;
            }
            let is_var = |side: &Expr| matches!(side.kind, ExprKind::Var(found) if found == var);
            // As `var op bound`.
            let (op, bound) = match (is_var(&lhs), is_var(&rhs), op) {
                (true, false, _) => (op, *rhs),
                (false, true, BinaryOp::Le) => (BinaryOp::Ge, *lhs),
                (false, true, BinaryOp::Lt) => (BinaryOp::Gt, *lhs),
                (false, true, BinaryOp::Ge) => (BinaryOp::Le, *lhs),
                (false, true, BinaryOp::Gt) => (BinaryOp::Lt, *lhs),
                _ => {
                    well_formed = false;
                    break;
                }
            };
            if bound.mentions(var) {
                well_formed = false;
                break;
            }
            match op {
                BinaryOp::Ge => lower.push(bound),
                BinaryOp::Gt => lower.push(plus_one(bound)),
                BinaryOp::Lt => upper.push(bound),
                BinaryOp::Le => upper.push(plus_one(bound)),
                _ => {
                    well_formed = false;
                    break;
                }
            }
        }
        if well_formed && lower.len() == 1 && upper.len() == 1 {
            return Some((lower.remove(0), upper.remove(0)));
        }
        self.report(
            Diagnostic::error(Code::SumRange, "a `\\sum` ranges over the integers between two bounds", span, "not of the form `lo <= j < hi`")
                .with_help("write the range as one lower and one upper bound of the summed variable, such as `0 <= j < n`, `lo <= j && j <= hi` or `0 < j && j < n`; neither bound may mention the variable"),
        );
        None
    }

    fn resource_in_expression(&mut self, span: Span, label: &str) {
        self.report(
            Diagnostic::error(Code::ResourceInExpression, "a resource cannot be used as a value", span, label)
                .with_help("permissions stand at the top of a contract clause, joined by `*` or `**`, right of `->`, in the branches of `? :`, or in the body of `\\forall*`"),
        );
    }

    fn name(&mut self, names: &Names, context: Context, name: &str, span: Span) -> Option<Expr> {
        if let Some(var) = names.lookup_var(name) {
            let ty = names.vars[var.index()].ty;
            return Some(Expr { kind: ExprKind::Var(var), ty, span });
        }
        if let Some(builtin) = self.reserved(name) {
            return self.builtin(context, builtin, span);
        }
        let diagnostic = if names.lookup_array(name).is_some() {
            Diagnostic::error(
                Code::ArrayAsValue,
                format!("array `{name}` used as a value"),
                span,
                "an array, not a value",
            )
            .with_help(format!("read one element: `{name}[i]`"))
        } else if self.function_ids.contains_key(name) {
            Diagnostic::error(
                Code::ArrayAsValue,
                format!("function `{name}` used as a value"),
                span,
                "a function, not a value",
            )
            .with_help(format!("call it: `{name}(...)`"))
        } else {
            let mut candidates = names.all_names();
            if context.place != Place::Function {
                candidates.extend(Builtin::ALL.iter().map(|builtin| builtin.name()));
            }
            let diagnostic =
                Diagnostic::error(Code::UnknownName, format!("unknown name `{name}`"), span, "not declared");
            match suggestion(name, candidates) {
                Some(close) => diagnostic.with_help(format!("did you mean `{close}`?")),
                None => diagnostic
                    .with_help("declare private variables in `main`, e.g. `int x := 0;`, or add a kernel parameter"),
            }
        };
        self.report(diagnostic);
        None
    }

    fn builtin(&mut self, context: Context, builtin: Builtin, span: Span) -> Option<Expr> {
        if builtin_in_scope(context.place, builtin) {
            if let Some(axis) = builtin.axis() {
                self.dimensions = self.dimensions.max(axis.dimensions());
            }
            return Some(Expr { kind: ExprKind::Builtin(builtin), ty: Type::Int, span });
        }
        let name = builtin.name();
        let (message, help) = match context.place {
            Place::Function => (
                format!("`{name}` is not visible in a pure function"),
                "a pure function sees only its parameters; pass the value as an argument".to_string(),
            ),
            Place::ArraySize => (
                format!("an array size cannot depend on `{name}`"),
                "an array has one size for all threads: use `gsize`, `tcount`, kernel parameters and constants".to_string(),
            ),
            Place::Kernel => (
                format!("`{name}` has no meaning in a kernel contract"),
                "a kernel contract speaks for all threads at once; quantify over them, e.g. `(\\forall* int t; 0 <= t && t < tcount; Perm(a[t], write))`".to_string(),
            ),
            _ => (
                format!("`{name}` has no meaning in a group contract"),
                "a group contract speaks for all threads of the group; quantify over them, e.g. `(\\forall* int t; gid * gsize <= t && t < (gid + 1) * gsize; Perm(a[t], write))`".to_string(),
            ),
        };
        self.report(Diagnostic::error(Code::OutOfScope, message, span, "not available here").with_help(help));
        None
    }

    fn call(
        &mut self,
        names: &mut Names,
        context: Context,
        function: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let Some(&id) = self.function_ids.get(&function.name) else {
            let diagnostic = Diagnostic::error(
                Code::UnknownFunction,
                format!("unknown function `{}`", function.name),
                function.span,
                "no pure function of this name",
            );
            let candidates: Vec<String> = self.signatures.iter().map(|signature| signature.name.clone()).collect();
            let diagnostic = if names.lookup_array(&function.name).is_some() {
                diagnostic.with_help(format!("`{0}` is an array: index it with `{0}[i]`", function.name))
            } else {
                match suggestion(&function.name, candidates.iter().map(String::as_str)) {
                    Some(close) => diagnostic.with_help(format!("did you mean `{close}`?")),
                    None => diagnostic.with_help("declare it before the kernel: `pure int f(int x) = ...;`"),
                }
            };
            self.report(diagnostic);
            for arg in args {
                self.expr(names, context, arg, None);
            }
            return None;
        };
        let params = self.signatures[id.index()].params.clone();
        let result = self.signatures[id.index()].result;
        if params.len() != args.len() {
            self.report(Diagnostic::error(
                Code::ArgumentCount,
                format!(
                    "`{}` takes {} argument{}, but {} were given",
                    function.name,
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
                "wrong number of arguments",
            ));
            for arg in args {
                self.expr(names, context, arg, None);
            }
            return None;
        }
        let checked: Vec<Option<Expr>> =
            args.iter().zip(params).map(|(arg, ty)| self.expr(names, context, arg, Some(ty))).collect();
        let args = checked.into_iter().collect::<Option<Vec<Expr>>>()?;
        Some(Expr { kind: ExprKind::Call { function: id, args }, ty: result, span })
    }

    fn binary(
        &mut self,
        names: &mut Names,
        context: Context,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        use ast::BinaryOp as Syntax;
        let (op, operand, result) = match op {
            Syntax::Star => {
                self.report(
                    Diagnostic::error(
                        Code::ResourceInExpression,
                        "a separating conjunction cannot be used as a value",
                        span,
                        "joins resources",
                    )
                    .with_help(
                        "join booleans with `&&`; `*` next to a permission and `**` join resources in contracts",
                    ),
                );
                return None;
            }
            Syntax::Fraction => {
                self.report(
                    Diagnostic::error(
                        Code::PermissionAmount,
                        "`\\` writes a permission fraction",
                        span,
                        "not an integer",
                    )
                    .with_help(
                        "use `/` for integer division; `\\` belongs in a permission amount such as `Perm(a[i], 1\\2)`",
                    ),
                );
                return None;
            }
            // Equality compares two values of the same type, whichever it is.
            Syntax::Eq => (BinaryOp::Eq, None, Type::Bool),
            Syntax::Ne => (BinaryOp::Ne, None, Type::Bool),
            Syntax::Implies => (BinaryOp::Implies, Some(Type::Bool), Type::Bool),
            Syntax::Or => (BinaryOp::Or, Some(Type::Bool), Type::Bool),
            Syntax::And => (BinaryOp::And, Some(Type::Bool), Type::Bool),
            Syntax::Lt => (BinaryOp::Lt, Some(Type::Int), Type::Bool),
            Syntax::Le => (BinaryOp::Le, Some(Type::Int), Type::Bool),
            Syntax::Gt => (BinaryOp::Gt, Some(Type::Int), Type::Bool),
            Syntax::Ge => (BinaryOp::Ge, Some(Type::Int), Type::Bool),
            Syntax::Add => (BinaryOp::Add, Some(Type::Int), Type::Int),
            Syntax::Sub => (BinaryOp::Sub, Some(Type::Int), Type::Int),
            Syntax::Mul => (BinaryOp::Mul, Some(Type::Int), Type::Int),
            Syntax::Div => (BinaryOp::Div, Some(Type::Int), Type::Int),
            Syntax::Rem => (BinaryOp::Rem, Some(Type::Int), Type::Int),
            Syntax::Mod => (BinaryOp::Mod, Some(Type::Int), Type::Int),
        };
        let lhs = self.expr(names, context, lhs, operand);
        let operand = operand.or(lhs.as_ref().map(|lhs| lhs.ty));
        let rhs = self.expr(names, context, rhs, operand);
        let computed =
            Expr { kind: ExprKind::Binary { op, lhs: Box::new(lhs?), rhs: Box::new(rhs?) }, ty: result, span };
        Some(in_machine(context, computed))
    }
}

/// What `--int32` assumes: the launch fits C's `int` (`tcount <= 2147483647`), and so does every
/// `int` parameter.
fn machine_facts(kernel: &Kernel, int: MachineInt, span: Span) -> Vec<Expr> {
    let (least, greatest) = int.bounds();
    let value = |kind| Expr { kind, ty: Type::Int, span };
    let compare = |op, lhs: Expr, rhs: Expr| Expr {
        kind: ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) },
        ty: Type::Bool,
        span,
    };
    let limit = value(ExprKind::Int(BigInt::from(c::integers::LAUNCH_LIMIT)));
    let mut facts = vec![compare(BinaryOp::Le, value(ExprKind::Builtin(Builtin::Tcount)), limit)];
    for &param in &kernel.params {
        if kernel.var(param).ty == Type::Int {
            let var = || value(ExprKind::Var(param));
            facts.push(compare(BinaryOp::Le, value(ExprKind::Int(least.clone())), var()));
            facts.push(compare(BinaryOp::Le, var(), value(ExprKind::Int(greatest.clone()))));
        }
    }
    facts
}

/// An arithmetic result of code with machine integers (`--int32`), which must stay in the type's
/// range; any other expression as it is.
fn in_machine(context: Context, expr: Expr) -> Expr {
    let arithmetic = matches!(
        expr.kind,
        ExprKind::Binary { op: BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div, .. }
            | ExprKind::Unary { op: UnaryOp::Neg, .. }
    );
    match context.machine {
        Some(int) if arithmetic => {
            let span = expr.span;
            Expr { kind: ExprKind::InRange { value: Box::new(expr), int }, ty: Type::Int, span }
        }
        _ => expr,
    }
}

/// Whether a reserved name has a meaning at this place.
fn builtin_in_scope(place: Place, builtin: Builtin) -> bool {
    match place {
        Place::Function => false,
        Place::ArraySize | Place::Kernel => builtin.is_launch_size(),
        Place::Group => !builtin.is_thread_specific(),
        Place::Thread => true,
    }
}

fn level_name(place: Place) -> &'static str {
    match place {
        Place::Kernel => "kernel",
        Place::Group => "group",
        _ => "thread",
    }
}

fn duplicate(name: &ast::Ident, previous: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::DuplicateName,
        format!("the {what} `{}` is declared twice", name.name),
        name.span,
        "declared again here",
    )
    .with_secondary(previous, "first declared here")
    .with_help("names cannot be redeclared or shadowed; rename one of them")
}

/// Resolves the statements of `main`, collecting its barriers.
struct BodyResolver<'r> {
    resolver: &'r mut Resolver,
    names: &'r mut Names,
    barriers: &'r mut Vec<Barrier>,
    labels: &'r mut HashMap<BigInt, Span>,
    candidate_invariants: Vec<Span>,
}

impl BodyResolver<'_> {
    fn code_context(&self) -> Context {
        Context { machine: self.resolver.machine, ..Context::at(Place::Thread) }
    }

    /// Barrier contracts and loop invariants, where `\old` reads the memory of the launch.
    fn contract_context() -> Context {
        Context { old: true, ..Context::at(Place::Thread) }
    }

    fn block(&mut self, block: &ast::Block) -> Block {
        self.statements(&block.stmts, block.span)
    }

    /// Statements in a scope of their own.
    fn statements(&mut self, statements: &[ast::Stmt], span: Span) -> Block {
        self.names.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        let mut previous: Option<&ast::Stmt> = None;
        for stmt in statements {
            if let ast::StmtKind::StrayClause(clause) = &stmt.kind {
                self.stray_clause(clause, previous);
            } else if let Some(checked) = self.stmt(stmt) {
                stmts.push(checked);
            }
            previous = Some(stmt);
        }
        self.names.scopes.pop();
        Block { stmts, span }
    }

    /// A statement as a block: a branch or loop body.
    fn branch(&mut self, stmt: &ast::Stmt) -> Block {
        match &stmt.kind {
            ast::StmtKind::Block(block) => self.block(block),
            _ => self.statements(std::slice::from_ref(stmt), stmt.span),
        }
    }

    fn stray_clause(&mut self, clause: &ast::Clause, previous: Option<&ast::Stmt>) {
        let keyword = clause.kind.keyword();
        let diagnostic = Diagnostic::error(
            Code::StrayClause,
            format!("`{keyword}` cannot stand between statements"),
            clause.span,
            "a contract clause, not a statement",
        );
        let diagnostic = match previous {
            Some(barrier @ ast::Stmt { kind: ast::StmtKind::Barrier { .. }, .. }) => diagnostic
                .with_secondary(barrier.span, "the barrier before it")
                .with_help("barrier clauses go inside the barrier's braces: `barrier(F) { ensures ...; }`"),
            _ => diagnostic.with_help(
                "thread contracts go before `void main()`, barrier contracts inside `barrier(F) { ... }`, loop invariants right before `while`; inside code use `assert`",
            ),
        };
        self.resolver.report(diagnostic);
    }

    fn expr(&mut self, expr: &ast::Expr, expected: Type) -> Option<Expr> {
        self.resolver.expr(self.names, self.code_context(), expr, Some(expected))
    }

    fn clauses(&mut self, clauses: &[ast::Clause]) -> Vec<Clause> {
        clauses.iter().filter_map(|clause| self.resolver.clause(self.names, Self::contract_context(), clause)).collect()
    }

    fn stmt(&mut self, stmt: &ast::Stmt) -> Option<Stmt> {
        let kind = match &stmt.kind {
            ast::StmtKind::Declare { ty, ty_span, name, init } => {
                let ty = self.resolver.value_type(*ty, *ty_span);
                // The initial value is checked before the name is in scope: `int x := x;` is an error.
                let init = init.as_ref().map(|init| self.expr(init, ty));
                let var = self.resolver.declare(self.names, name, ty, VarKind::Private)?;
                let init = match init {
                    Some(value) => Some(value?),
                    None => None,
                };
                StmtKind::Declare { var, init }
            }
            ast::StmtKind::Assign { target, value } => {
                let var = self.assignable(target);
                let ty = var.map(|var| self.names.vars[var.index()].ty);
                let value = self.resolver.expr(self.names, self.code_context(), value, ty);
                StmtKind::Assign { var: var?, value: value? }
            }
            ast::StmtKind::Write { target, index, value } => {
                let array = self.resolver.array_access(self.names, self.code_context(), target);
                let index = self.expr(index, Type::Int);
                let value = self.expr(value, Type::Int);
                StmtKind::Write { array: array?, index: index?, value: value? }
            }
            ast::StmtKind::If { cond, then_branch, else_branch } => {
                let cond = self.expr(cond, Type::Bool);
                let then_branch = self.branch(then_branch);
                let else_branch = else_branch.as_deref().map(|stmt| self.branch(stmt));
                StmtKind::If { cond: cond?, then_branch, else_branch }
            }
            ast::StmtKind::While { invariants, cond, body } => {
                let candidates = invariants.iter().filter(|clause| clause.kind == ast::ClauseKind::CandidateInvariant);
                self.candidate_invariants.extend(candidates.map(|clause| clause.span));
                let invariants = self.clauses(invariants);
                let cond = self.expr(cond, Type::Bool);
                let body = self.branch(body);
                StmtKind::While { invariants, cond: cond?, body }
            }
            ast::StmtKind::Barrier { label, fences, clauses } => self.barrier(stmt.span, label, fences, clauses)?,
            ast::StmtKind::Assert(formula) => {
                StmtKind::Assert(self.resolver.assertion(self.names, Context::at(Place::Thread), formula)?)
            }
            ast::StmtKind::Assume(formula) => {
                self.resolver.report(
                    Diagnostic::warning(Code::UncheckedAssume, "`assume` is not checked", stmt.span, "taken on trust")
                        .with_help(
                        "a wrong assumption makes every later verdict meaningless; prefer `assert`, or a precondition",
                    ),
                );
                StmtKind::Assume(self.expr(formula, Type::Bool)?)
            }
            ast::StmtKind::Block(block) => StmtKind::Block(self.block(block)),
            ast::StmtKind::StrayClause(_) | ast::StmtKind::Error => return None,
        };
        Some(Stmt { kind, span: stmt.span })
    }

    /// The private variable an assignment writes, or a diagnostic saying why it cannot be written.
    fn assignable(&mut self, target: &ast::Ident) -> Option<VarId> {
        let name = &target.name;
        let diagnostic = match self.names.lookup_var(name) {
            Some(var) if self.names.vars[var.index()].kind == VarKind::Private => return Some(var),
            Some(_) => Diagnostic::error(
                Code::AssignToParameter,
                format!("kernel parameter `{name}` cannot be assigned"),
                target.span,
                "assigned here",
            )
            .with_help(format!(
                "parameters are the same for all threads and read-only; copy it: `int my_{name} := {name};`"
            )),
            None if self.resolver.reserved(name).is_some() => Diagnostic::error(
                Code::ReservedName,
                format!("`{name}` cannot be assigned"),
                target.span,
                "fixed by the kernel launch",
            )
            .with_help("`tid`, `gid`, `lid`, `tcount` and `gsize` are constant within a thread"),
            None if self.names.lookup_array(name).is_some() => Diagnostic::error(
                Code::ArrayAsValue,
                format!("array `{name}` cannot be assigned as a whole"),
                target.span,
                "an array",
            )
            .with_help(format!("write one element: `{name}[i] := e;`")),
            None => {
                let diagnostic =
                    Diagnostic::error(Code::UnknownName, format!("unknown name `{name}`"), target.span, "not declared");
                match suggestion(name, self.names.all_names()) {
                    Some(close) => diagnostic.with_help(format!("did you mean `{close}`?")),
                    None => diagnostic.with_help(format!("declare it first: `int {name} := ...;`")),
                }
            }
        };
        self.resolver.report(diagnostic);
        None
    }

    fn barrier(
        &mut self,
        span: Span,
        label: &Option<(BigInt, Span)>,
        fence_names: &Option<Vec<ast::FenceName>>,
        clauses: &[ast::Clause],
    ) -> Option<StmtKind> {
        let mut fences = Fences::default();
        let mut ok = true;
        if let (Some((value, label_span)), None) = (label, fence_names) {
            self.resolver.report(
                Diagnostic::error(
                    Code::AmbiguousBarrier,
                    format!("`barrier({value})` is ambiguous"),
                    *label_span,
                    "a label without fences",
                )
                .with_help(format!(
                    "write `barrier({value}, {{local}})` for label {value} with its fences, or `barrier({value},)` for none; OpenCL's `barrier(CLK_LOCAL_MEM_FENCE)` is `barrier(local)`"
                )),
            );
            ok = false;
        }
        for fence in fence_names.iter().flatten() {
            match fence.name.as_str() {
                "local" => fences.local = true,
                "global" => fences.global = true,
                other => {
                    let help = match other {
                        "CLK_LOCAL_MEM_FENCE" => "write OpenCL's `CLK_LOCAL_MEM_FENCE` as `local`".to_string(),
                        "CLK_GLOBAL_MEM_FENCE" => "write OpenCL's `CLK_GLOBAL_MEM_FENCE` as `global`".to_string(),
                        _ => match suggestion(other, ["local", "global"]) {
                            Some(close) => format!("did you mean `{close}`? A barrier fences `local`, `global`, `{{local, global}}` or nothing (`{{}}`)"),
                            None => "a barrier fences `local`, `global`, `{local, global}` or nothing (`{}`)".to_string(),
                        },
                    };
                    self.resolver.report(
                        Diagnostic::error(
                            Code::UnknownFence,
                            format!("unknown fence `{other}`"),
                            fence.span,
                            "not a memory a barrier can fence",
                        )
                        .with_help(help),
                    );
                    ok = false;
                }
            }
        }
        if let Some((value, label_span)) = label {
            if let Some(previous) = self.labels.insert(value.clone(), *label_span) {
                self.resolver.report(
                    Diagnostic::error(
                        Code::DuplicateLabel,
                        format!("barrier label {value} is used twice"),
                        *label_span,
                        "used again here",
                    )
                    .with_secondary(previous, "first used here")
                    .with_help("give every labelled barrier its own number"),
                );
                ok = false;
            }
        }
        let mut contract = Contract::default();
        for clause in clauses {
            if let Some(checked) = self.resolver.clause(self.names, Self::contract_context(), clause) {
                add_clause(&mut contract, clause.kind, checked);
            } else {
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let id = BarrierId(self.barriers.len() as u32);
        self.barriers.push(Barrier { label: label.as_ref().map(|(value, _)| value.clone()), fences, contract, span });
        Some(StmtKind::Barrier(id))
    }
}

/// Adds a clause to a contract: `context R` is both a precondition and a postcondition.
fn add_clause(contract: &mut Contract, kind: ast::ClauseKind, clause: Clause) {
    match kind {
        ast::ClauseKind::Ensures => contract.ensures.push(clause),
        ast::ClauseKind::Context => {
            contract.ensures.push(clause.clone());
            contract.requires.push(clause);
        }
        ast::ClauseKind::Requires | ast::ClauseKind::Invariant | ast::ClauseKind::CandidateInvariant => {
            contract.requires.push(clause)
        }
    }
}
