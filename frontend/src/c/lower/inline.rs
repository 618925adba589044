//! Helper functions (`__device__` functions in CUDA, plain functions in OpenCL C), inlined where
//! they are called, as GPUVerify inlines them by default.
//!
//! A call `f(e1, ..., en)` becomes a block run where the call is: the scalar parameters are
//! variables that receive the arguments, converted to their types as C passes them; a pointer
//! parameter is the array the argument points into (`a`, `a + k` or `&a[k]`), its cells counted
//! from `k`; the body follows, its `return e;` assigning a variable that stands for the call's
//! value in the expression that made it. Each call's variables carry its own suffix (`x@f1`), so
//! that they meet neither the caller's nor another call's. The helper's contract, written in an
//! annotation before it or as GPUVerify's `__requires`/`__ensures` at the start of its body, is
//! checked at each call: its `requires` before the body and its `ensures` after it, as
//! assertions, never assumed unchecked.
//!
//! A call runs where the statement that makes it runs, once, before it: so a call in a loop's
//! condition, or after `&&`, `||` or `?` (where C may not evaluate it), is refused, as is a
//! recursive one. A helper no kernel calls is never read.

use super::contracts::{gpuverify_clause, two_thread_predicate};
use super::pointers::Pointer;
use super::specs;
use super::vectors::{self, VectorType};
use super::{assigned_names, Helper, Inlined, Lengths, Lowerer, Place, Symbol};
use crate::c::ast;
use crate::c::integers::{CType, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;
use std::collections::HashSet;

/// How deep calls may nest inside inlined helpers.
const MAX_INLINING: usize = 16;

/// What a parameter stands for in one call.
enum Argument {
    Scalar(CType, Value),
    /// A vector's components, converted to the parameter's component type.
    Vector(VectorType, Vec<surface::Expr>),
    /// The array the pointer points into, where it points (a variable holding the offset), and
    /// the cells from there on.
    Array {
        symbol: Box<Symbol>,
        offset: Option<(String, surface::Expr)>,
        length: Option<surface::Expr>,
    },
}

impl<'f> Lowerer<'f> {
    /// Records a helper function the kernels may call.
    pub(super) fn helper(&mut self, function: &'f ast::Function, contract: Option<&'f ast::Annotation>) {
        let name = function.name.name.as_str();
        if self.helpers.contains_key(name) {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("the function `{name}` is defined twice"),
                    function.name.span,
                    "defined again",
                )
                .with_help("give each function one definition"),
            );
            return;
        }
        self.helpers.insert(name, Helper { function, contract });
    }

    /// A call of a helper inside an expression: its code runs before the statement, and its
    /// value is the variable that receives its result.
    pub(super) fn call_in_expression(
        &mut self,
        callee: &surface::Ident,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        if place == Place::Annotation {
            self.unsupported(
                span,
                format!("a call of the helper function `{}` in an annotation", callee.name),
                "lockstep inlines helper functions into the code; a specification cannot call one",
            );
            return None;
        }
        if !self.runs_once_before(span, format!("a call of the helper function `{}` here", callee.name)) {
            return None;
        }
        if self.returns_pointer(&callee.name) {
            self.unsupported(
                span,
                format!("the pointer `{}` returns, as a value", callee.name),
                "index the pointer, or assign it to a pointer variable",
            );
            return None;
        }
        let (stmts, value) = self.inline(callee, args, span, lengths)?;
        let Some(value) = value else {
            self.no_value(&callee.name, span);
            return None;
        };
        self.before.get_or_insert_with(Vec::new).extend(stmts);
        Some(value)
    }

    /// Whether the helper `name` returns a pointer.
    fn returns_pointer(&self, name: &str) -> bool {
        self.helpers.get(name).is_some_and(|helper| helper.function.pointers > 0)
    }

    /// A call of a helper that returns a pointer, as a pointer value: its code runs before the
    /// statement, and the pointer is the variable that receives its result, declared in the
    /// caller's scope under that variable's name. `None` (without a diagnostic) if `expr` is no
    /// such call.
    pub(super) fn returned_pointer(&mut self, expr: &ast::Expr, lengths: &Lengths) -> Option<Option<String>> {
        let ast::ExprKind::Call { function: callee, args } = &expr.kind else { return Some(None) };
        if !self.returns_pointer(&callee.name) {
            return Some(None);
        }
        if !self.runs_once_before(expr.span, format!("a call of the helper function `{}` here", callee.name)) {
            return None;
        }
        let (stmts, value) = self.inline(callee, args, expr.span, lengths)?;
        self.before.get_or_insert_with(Vec::new).extend(stmts);
        match value.map(|value| value.expr.kind) {
            Some(surface::ExprKind::Name(result)) if matches!(self.lookup(&result), Some(Symbol::Pointer { targets, .. }) if !targets.is_empty()) => {
                Some(Some(result))
            }
            _ => {
                // The body never returns a pointer.
                self.unsupported(
                    expr.span,
                    format!("the pointer `{}` returns without a `return` of a pointer", callee.name),
                    "return a pointer on every path",
                );
                None
            }
        }
    }

    /// A `void` function's call used as a value.
    pub(super) fn no_value(&mut self, name: &str, span: Span) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::TypeMismatch,
                format!("`{name}` returns no value"),
                span,
                "a `void` function used as a value",
            )
            .with_help("call it as a statement of its own"),
        );
    }

    /// The code of a call of a helper, and the value it returns (`None` for `void`).
    pub(super) fn inline(
        &mut self,
        callee: &surface::Ident,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<(Vec<surface::Stmt>, Option<Value>)> {
        let Helper { function, contract } = *self.helpers.get(callee.name.as_str())?;
        if self.inlining.iter().any(|inlined| inlined.name == callee.name) {
            self.unsupported(
                span,
                format!("the recursive call of `{}`", callee.name),
                "lockstep inlines helper functions, so they may not call themselves; write the recursion as a loop",
            );
            return None;
        }
        if self.inlining.len() >= MAX_INLINING {
            self.unsupported(
                span,
                format!("helper calls nested more than {MAX_INLINING} deep"),
                "call fewer helpers from helpers",
            );
            return None;
        }
        let params: Vec<&ast::Param> = function.params.iter().filter(|param| !is_void(param)).collect();
        if params.len() != args.len() {
            self.argument_count(&callee.name, params.len(), args.len(), span);
            return None;
        }
        let body = function.body.as_ref()?;
        if function.pointers > 1 {
            self.unsupported(
                function.name.span,
                format!("the helper function `{}` that returns a pointer to pointers", callee.name),
                "return a pointer into an array of values",
            );
            return None;
        }
        let returns_pointer = function.pointers == 1;
        let result = match function.specifiers.ty.base {
            ast::BaseType::Void if !returns_pointer => None,
            _ => Some(self.c_type(&function.specifiers.ty)?),
        };
        // The arguments, in the caller's scope.
        let mut arguments = Vec::new();
        for (param, arg) in params.iter().zip(args) {
            arguments.push(self.argument(param, arg, lengths)?);
        }
        self.fresh += 1;
        let suffix = format!("@{}{}", callee.name, self.fresh);
        let result = result.map(|ty| (format!("\\result{suffix}"), ty));
        let mut stmts = Vec::new();
        // A pointer result is a pointer variable, with its tag ([`crate::c::lower::pointers`]).
        let tag = result.as_ref().filter(|_| returns_pointer).map(|(name, _)| format!("{name}.target"));
        if let Some((name, ty)) = &result {
            let ty = if returns_pointer { surface::TypeName::Int } else { ty.surface() };
            for variable in std::iter::once(name).chain(&tag) {
                let kind = surface::StmtKind::Declare {
                    ty,
                    ty_span: function.specifiers.ty.span,
                    name: surface::Ident { name: variable.clone(), span },
                    init: None,
                };
                stmts.push(self.surface_stmt(kind, span)?);
            }
        }
        // The body sees its parameters only, as in C.
        let caller_scopes = std::mem::replace(&mut self.scopes, vec![self.constant_symbols.clone()]);
        let pointer_result = |name: &str, element| Symbol::Pointer {
            element,
            vector: None,
            name: name.to_string(),
            targets: Vec::new(),
            tag: tag.clone(),
            used: false,
        };
        if let (Some((name, element)), true) = (&result, returns_pointer) {
            self.declare(RESULT_POINTER, pointer_result(name, *element));
        }
        let mut assigned = HashSet::new();
        assigned_names(&body.stmts, &mut assigned);
        let caller_assigned = std::mem::replace(&mut self.assigned, assigned);
        self.inlining.push(Inlined { name: callee.name.clone(), suffix, result: result.clone() });
        let block = self.inlined_body(function, contract, &params, arguments, span);
        self.inlining.pop();
        // What the body returned, for the caller to point with ([`Lowerer::returned_pointer`]).
        let returned = self.lookup(RESULT_POINTER).cloned();
        self.assigned = caller_assigned;
        self.scopes = caller_scopes;
        if let (Some((name, _)), Some(returned)) = (&result, returned) {
            self.declare(name, returned);
        }
        stmts.push(self.block_of(block?, span)?);
        let value = match result {
            Some((name, ty)) => {
                let expr = self.node(surface::ExprKind::Name(name), span)?;
                Some(Value { expr, ty, interval: ty.interval() })
            }
            None => None,
        };
        Some((stmts, value))
    }

    /// The block a call runs: the parameters receive the arguments, the contract's `requires` is
    /// checked, the body runs, and its `ensures` is checked.
    fn inlined_body(
        &mut self,
        function: &ast::Function,
        contract: Option<&ast::Annotation>,
        params: &[&ast::Param],
        arguments: Vec<Argument>,
        span: Span,
    ) -> Option<Vec<surface::Stmt>> {
        let body = function.body.as_ref()?;
        let mut stmts = Vec::new();
        let mut lengths = Lengths::new();
        for (param, argument) in params.iter().zip(arguments) {
            let c_name = &param.declarator.name.name;
            let name = self.local_name(c_name);
            match argument {
                Argument::Scalar(ty, value) => {
                    // A parameter the body never assigns keeps the interval of its argument.
                    let interval = if self.assigned.contains(c_name) { ty.interval() } else { value.interval.clone() };
                    self.declare(c_name, Symbol::Scalar { ty, interval, name: name.clone() });
                    let kind = surface::StmtKind::Declare {
                        ty: ty.surface(),
                        ty_span: param.specifiers.ty.span,
                        name: surface::Ident { name, span: param.declarator.name.span },
                        init: Some(value.expr),
                    };
                    stmts.push(self.surface_stmt(kind, param.declarator.name.span)?);
                }
                Argument::Vector(ty, values) => {
                    let mut names = Vec::new();
                    for (k, value) in values.into_iter().enumerate() {
                        let component = vectors::component_name(&name, k as u32);
                        let kind = surface::StmtKind::Declare {
                            ty: ty.element.surface(),
                            ty_span: param.specifiers.ty.span,
                            name: surface::Ident { name: component.clone(), span: param.declarator.name.span },
                            init: Some(value),
                        };
                        stmts.push(self.surface_stmt(kind, param.declarator.name.span)?);
                        names.push(component);
                    }
                    self.declare(c_name, Symbol::Vector { ty, names });
                }
                Argument::Array { symbol, offset, length } => {
                    let symbol = match (*symbol, offset) {
                        (
                            Symbol::Array { element, inner_dimensions, storage, vector, .. },
                            Some((offset_name, value)),
                        ) => {
                            let offset_name = self.local_name(&offset_name);
                            let kind = surface::StmtKind::Declare {
                                ty: surface::TypeName::Int,
                                ty_span: param.specifiers.ty.span,
                                name: surface::Ident { name: offset_name.clone(), span: param.declarator.name.span },
                                init: Some(value),
                            };
                            stmts.push(self.surface_stmt(kind, param.declarator.name.span)?);
                            let offset = self.node(surface::ExprKind::Name(offset_name), span)?;
                            Symbol::Array { element, inner_dimensions, storage, offset: Some(offset), vector }
                        }
                        (symbol, _) => symbol,
                    };
                    if let Some(length) = length {
                        let length = match &symbol {
                            Symbol::Array { offset: Some(offset), .. } => {
                                surface::Expr::binary(surface::BinaryOp::Sub, length, offset.clone())
                            }
                            _ => Ok(length),
                        };
                        lengths.insert(c_name.clone(), self.checked(length)?);
                    }
                    self.declare(c_name, symbol);
                }
            }
        }
        // `\old(e)` in the contract or the body is `e` where the call starts.
        let outer_old_values = self.old_values.replace(Vec::new());
        // The helper's contract is outside its body and the caller's: no return flag there.
        let caller_flag = self.return_flag.take();
        let contract = self.helper_contract(contract, &body.stmts, &lengths);
        self.return_flag = caller_flag;
        let leading = body.stmts.iter().take_while(|stmt| gpuverify_clause(stmt).is_some()).count();
        // A `break` in the helper's body is not one of the caller's loop.
        let exits = std::mem::take(&mut self.exits);
        let code = self.function_body(&body.stmts[leading..], &lengths, body.span);
        self.exits = exits;
        let old_values = std::mem::replace(&mut self.old_values, outer_old_values).unwrap_or_default();
        let ((requires, ensures), code) = (contract?, code?);
        stmts.extend(old_values);
        stmts.extend(requires);
        stmts.push(self.block_of(code, body.span)?);
        stmts.extend(ensures);
        Some(stmts)
    }

    /// `\old(e)` in an inlined helper: a variable that receives `e`'s value where the call starts.
    pub(super) fn old_value(&mut self, inner: &ast::Expr, span: Span, lengths: &Lengths) -> Option<Value> {
        if self.quantified > 0 {
            self.unsupported(
                span,
                "`\\old` under a quantifier in a helper function",
                "state the values the helper starts from in its `requires` clauses",
            );
            return None;
        }
        let value = self.typed(inner, Place::Annotation, lengths)?;
        self.fresh += 1;
        let name = format!("\\old@{}", self.fresh);
        let kind = surface::StmtKind::Declare {
            ty: value.ty.surface(),
            ty_span: span,
            name: surface::Ident { name: name.clone(), span },
            init: Some(value.expr),
        };
        let declare = self.surface_stmt(kind, span)?;
        self.old_values.get_or_insert_with(Vec::new).push(declare);
        let expr = self.node(surface::ExprKind::Name(name), span)?;
        Some(Value { expr, ..value })
    }

    /// A helper's contract as the assertions checked before and after its body.
    fn helper_contract(
        &mut self,
        contract: Option<&ast::Annotation>,
        body: &[ast::Stmt],
        lengths: &Lengths,
    ) -> Option<(Vec<surface::Stmt>, Vec<surface::Stmt>)> {
        // Each formula, and whether it is checked before the body (else after it).
        let mut formulas = Vec::new();
        let mut ok = true;
        for clause in contract.map(|contract| contract.clauses.as_slice()).unwrap_or_default() {
            match clause {
                ast::SpecClause::Clause { kind, formula, span } => {
                    let sides: &[bool] = match kind {
                        ast::SpecKind::Requires => &[true],
                        ast::SpecKind::Ensures => &[false],
                        ast::SpecKind::Context => &[true, false],
                        other => {
                            self.misplaced_clause(*other, *span, "a helper function's contract");
                            ok = false;
                            continue;
                        }
                    };
                    for before in sides {
                        formulas.push((*before, self.expr(formula, Place::Annotation, lengths), *span));
                    }
                }
                ast::SpecClause::Unknown { keyword, span } => {
                    self.unknown_clause(keyword, *span);
                    ok = false;
                }
            }
        }
        // GPUVerify's `__requires(e);` and `__ensures(e);` at the start of the body.
        let mut unstated = Vec::new();
        for stmt in body {
            let Some((kind, formula, name)) = gpuverify_clause(stmt) else { break };
            let before = kind == surface::ClauseKind::Requires;
            // The logs are kept where a helper is called: a precondition over them is checked.
            if before && self.hint_left_out(formula, stmt.span, "this precondition", true) {
                continue;
            }
            if self.global_over_logs(name, formula, stmt.span) {
                ok = false;
                continue;
            }
            if let Some(predicate) = two_thread_predicate(formula, true).map(str::to_string) {
                match self.unstated_claim(&predicate, "this postcondition", stmt.span) {
                    Some(claim) => unstated.push(claim),
                    None => ok = false,
                }
                continue;
            }
            formulas.push((before, self.gpuverify_formula(formula, lengths), stmt.span));
        }
        let (mut requires, mut ensures) = (Vec::new(), unstated);
        // A specification function's postcondition is assumed: it has no code to check it on.
        let specified = self.inlining.last().is_some_and(|inlined| specs::is_spec_function(&inlined.name));
        for (before, formula, span) in formulas {
            let kind = |formula| match before || !specified {
                true => surface::StmtKind::Assert(formula),
                false => surface::StmtKind::Assume(formula),
            };
            match formula.and_then(|formula| self.surface_stmt(kind(formula), span)) {
                Some(stmt) if before => requires.push(stmt),
                Some(stmt) => ensures.push(stmt),
                None => ok = false,
            }
        }
        ok.then_some((requires, ensures))
    }

    /// What an argument gives its parameter: a value converted to the parameter's type, or the
    /// array a pointer parameter points into.
    fn argument(&mut self, param: &ast::Param, arg: &ast::Expr, lengths: &Lengths) -> Option<Argument> {
        let declarator = &param.declarator;
        if declarator.pointers == 0 && declarator.dimensions.is_empty() {
            if let Some(ty) = self.vector_type(&param.specifiers.ty)? {
                let mut values = Vec::new();
                for component in self.components(arg, ty, lengths)? {
                    values.push(self.value(&component, ty.element, lengths)?);
                }
                return Some(Argument::Vector(ty, values));
            }
            let ty = self.c_type(&param.specifiers.ty)?;
            let value = self.typed(arg, Place::Code, lengths)?;
            let value = self.convert(value, ty, Place::Code, arg.span)?;
            return Some(Argument::Scalar(ty, value));
        }
        let wanted = self.c_type(&param.specifiers.ty)?;
        if declarator.pointers + declarator.dimensions.len() > 1 {
            self.unsupported(
                param.span,
                "a pointer to pointers, or an array parameter of several dimensions",
                "pass a flat array and compute its index",
            );
            return None;
        }
        let pointer = self.points_into(arg, "this pointer argument", lengths)?;
        if !self.points_to(&pointer, wanted, "the parameter", arg.span) {
            return None;
        }
        let length = lengths.get(pointer.array).cloned();
        let Pointer { element, storage, base, index, .. } = pointer;
        let Some(index) = index else {
            let symbol = Symbol::Array { element, inner_dimensions: Vec::new(), storage, offset: base, vector: None };
            return Some(Argument::Array { symbol: Box::new(symbol), offset: None, length });
        };
        // A pointer into a pointer parameter: the offsets add up, and the length counts from
        // the array's start.
        let (offset, length) = match base {
            Some(base) => {
                let total = self.binary(surface::BinaryOp::Add, base.clone(), index, arg.span)?;
                let length = match length {
                    Some(length) => Some(self.binary(surface::BinaryOp::Add, length, base, arg.span)?),
                    None => None,
                };
                (total, length)
            }
            None => (index, length),
        };
        let symbol = Symbol::Array { element, inner_dimensions: Vec::new(), storage, offset: None, vector: None };
        let offset_name = format!("{}.offset", param.declarator.name.name);
        Some(Argument::Array { symbol: Box::new(symbol), offset: Some((offset_name, offset)), length })
    }

    /// A `return` that ends a kernel or an inlined helper: the helper's result receives its value.
    pub(super) fn returned(
        &mut self,
        value: Option<&ast::Expr>,
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let result = self.inlining.last().map(|inlined| inlined.result.clone());
        match (result, value) {
            (None | Some(None), None) => Some(Vec::new()),
            (Some(Some(_)), Some(value)) if self.lookup(RESULT_POINTER).is_some() => {
                let assignment = self.pointer_assignment(RESULT_POINTER, value, lengths)?;
                Some(vec![self.surface_stmt(assignment, span)?])
            }
            (Some(Some((name, ty))), Some(value)) => {
                let value = self.value(value, ty, lengths)?;
                let kind = surface::StmtKind::Assign { target: surface::Ident { name, span }, value };
                Some(vec![self.surface_stmt(kind, span)?])
            }
            (None, Some(value)) => {
                self.diagnostics.push(
                    Diagnostic::error(Code::MainSignature, "a kernel returns no value", value.span, "a value")
                        .with_help("write `return;`; a kernel's results go into arrays"),
                );
                None
            }
            (Some(None), Some(value)) => {
                self.diagnostics.push(
                    Diagnostic::error(Code::TypeMismatch, "a `void` function returns no value", value.span, "a value")
                        .with_help("write `return;`, or give the function a result type"),
                );
                None
            }
            (Some(Some(_)), None) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        "`return;` in a function that returns a value",
                        span,
                        "no value",
                    )
                    .with_help("return a value of the function's type"),
                );
                None
            }
        }
    }
}

/// The C name under which an inlined helper's body sees the pointer variable that receives its
/// result; no C name can be it.
const RESULT_POINTER: &str = "\\result";

impl Lowerer<'_> {
    /// A call of a function the file declares without a body (`int bar(int);`). Nothing says
    /// what it computes, so its result is an arbitrary value of its type, after its arguments are
    /// evaluated where C evaluates them (their reads and overflows checked); a `void` one gives
    /// an `int` that nothing reads. One with a pointer parameter could write through it, and is
    /// refused.
    pub(super) fn undefined_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let function = self.prototypes[name];
        let refuse = |lowerer: &mut Self, what: &str, help: &str| {
            lowerer.unsupported(span, format!("a call of `{name}`, declared without a body, {what}"), help);
            None
        };
        let give_a_body = "give the function a body, which lockstep inlines";
        if place == Place::Annotation {
            return refuse(self, "in an annotation", "a specification speaks of values the kernel computes");
        }
        if self.before.is_none() {
            return refuse(
                self,
                "in a loop's condition",
                "call it in a statement before the loop and at the end of its body",
            );
        }
        let params: Vec<&ast::Param> = function.params.iter().filter(|param| !is_void(param)).collect();
        if params.len() != args.len() {
            self.argument_count(name, params.len(), args.len(), span);
            return None;
        }
        if function.pointers > 0
            || params.iter().any(|param| param.declarator.pointers > 0 || !param.declarator.dimensions.is_empty())
        {
            return refuse(self, "with a pointer", give_a_body);
        }
        let values = self.operands(args, place, lengths)?;
        let ty = match function.specifiers.ty.base {
            ast::BaseType::Void => CType::Int(crate::c::integers::INT),
            _ => self.c_type(&function.specifiers.ty)?,
        };
        self.arbitrary(ty, values, place, span)
    }
}

/// `void` in `f(void)`: no parameter at all.
fn is_void(param: &ast::Param) -> bool {
    param.specifiers.ty.base == ast::BaseType::Void
        && param.declarator.pointers == 0
        && param.declarator.name.name.is_empty()
}

#[cfg(test)]
mod tests {
    use crate::c::{check, integers::Integers, Dialect};
    use crate::diagnostics::Code;

    /// The first diagnostic of a file of helpers and a kernel `k(global int* a)` with `body`.
    fn first_diagnostic(helpers: &str, body: &str) -> (Code, String) {
        let text = format!("{helpers}\n__kernel void k(global int* a) {{ {body} }}");
        let (_, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
        let first = diagnostics.first().unwrap_or_else(|| panic!("`{helpers}` `{body}` is accepted"));
        (first.code, first.message.clone())
    }

    #[test]
    fn calls_that_cannot_be_inlined_are_named() {
        let one = "int one(void) { return 1; }";
        for (helpers, body, code, message) in [
            ("int f(int x) { return f(x); }", "a[0] = f(1);", Code::Unsupported, "the recursive call of `f`"),
            (
                "int f(int x); int g(int x) { return f(x); } int f(int x) { return g(x); }",
                "a[0] = f(1);",
                Code::Unsupported,
                "the recursive call of `f`",
            ),
            (
                one,
                "if (a[0] > 0 && one() > 0) a[1] = 1;",
                Code::Unsupported,
                "a call of the helper function `one` here",
            ),
            (one, "a[0] = a[1] > 0 ? one() : 0;", Code::Unsupported, "a call of the helper function `one` here"),
            (one, "while (one() > a[0]) a[0] = 1;", Code::Unsupported, "a call of the helper function `one` here"),
            (
                one,
                "/*@ assert one() == 1; @*/",
                Code::Unsupported,
                "a call of the helper function `one` in an annotation",
            ),
            (
                "global int* at(global int* p) { return p; }",
                "a[0] = at(a);",
                Code::Unsupported,
                "the pointer `at` returns, as a value",
            ),
            (
                "global int** at(global int* p) { return 0; }",
                "at(a);",
                Code::Unsupported,
                "the helper function `at` that returns a pointer to pointers",
            ),
            (
                "global int* none(global int* p) { p[0] = 1; }",
                "global int* q = none(a);",
                Code::Unsupported,
                "the pointer `none` returns without a `return` of a pointer",
            ),
            ("void set(global int* p) { p[0] = 1; }", "set(a[0]);", Code::Unsupported, "this pointer argument"),
            (
                "void nothing(void) { }",
                "a[0] = nothing();",
                Code::Clang,
                "assigning to '__global int' from incompatible type 'void'",
            ),
            // `\old(e)` is read where the call starts, where a quantifier's variable is not.
            (
                "/*@ ensures (\\forall int j; 0 <= j && j < 2; p[j] == \\old(p[j])); @*/ void f(global int* p) { }",
                "f(a);",
                Code::Unsupported,
                "`\\old` under a quantifier in a helper function",
            ),
            // Functions declared without a body.
            (
                "void f(global int* p);",
                "f(a);",
                Code::Unsupported,
                "a call of `f`, declared without a body, with a pointer",
            ),
            (
                "int f(int x);",
                "/*@ assert f(1) == 1; @*/",
                Code::Unsupported,
                "a call of `f`, declared without a body, in an annotation",
            ),
            (
                "int f(int x);",
                "while (f(a[0]) > 0) a[0] = 1;",
                Code::Unsupported,
                "a call of `f`, declared without a body, in a loop's condition",
            ),
            (
                "void f(int x);",
                "a[0] = f(1);",
                Code::Clang,
                "assigning to '__global int' from incompatible type 'void'",
            ),
            ("int f(int x);", "a[0] = f();", Code::Clang, "too few arguments to function call"),
            (
                "int f(int x) { return; }",
                "a[0] = f(1);",
                Code::TypeMismatch,
                "`return;` in a function that returns a value",
            ),
            ("void f(int x) { return x; }", "f(1);", Code::TypeMismatch, "a `void` function returns no value"),
            ("int f(int x) { return x; }", "a[0] = f(1, 2);", Code::Clang, "too many arguments to function call"),
            ("void f(void) { } void f(void) { }", "f();", Code::Clang, "redefinition of 'f'"),
            (
                "void f(global uint* p) { p[0] = 1; }",
                "f(a);",
                Code::TypeMismatch,
                "`a` holds `int`, and the parameter points to `unsigned int`",
            ),
        ] {
            let (found_code, found_message) = first_diagnostic(helpers, body);
            assert_eq!(found_code, code, "{helpers} {body}: {found_message}");
            assert!(found_message.starts_with(message), "{helpers} {body}: {found_message}");
        }
    }
}
