//! Statements: lists of them, with the annotation before a barrier or a loop; blocks; `if`s, with
//! the rewrite of a `return` that ends the function; declarations; and expression statements
//! (assignments, `++` and `--`, calls). What must run before a statement (the inlined code of its
//! helper calls, the declarations of its arbitrary floating-point values) is placed there.

use super::async_copies;
use super::atomics;
use super::barrier_invariants;
use super::barriers::{barrier_fences, is_barrier, MEMORY_FENCES};
use super::contracts::{is_proof_hint, two_thread_predicate, FUNCTION_WIDE_INVARIANTS};
use super::images;
use super::kernel::is_local_memory;
use super::loops::Loop;
use super::specs;
use super::vectors::{self, VectorType};
use super::{Lengths, Lowerer, Place, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;
use std::collections::HashMap;

impl Lowerer<'_> {
    /// Lowers a list of statements. An annotation goes with the barrier or loop after it. Where
    /// the list `ends_function` (nothing runs after it but the end of the kernel or of the
    /// inlined helper: the body, and the tail of an `if` or block that ends such a list, outside
    /// loops), a `return` guards the statements after it; anywhere else it is refused.
    pub(super) fn statements(
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
    pub(super) fn before_then(
        &mut self,
        lower: impl FnOnce(&mut Self) -> Option<Vec<surface::Stmt>>,
    ) -> Option<Vec<surface::Stmt>> {
        let (mut stmts, lowered) = self.with_before(lower)?;
        stmts.extend(lowered);
        Some(stmts)
    }

    /// Lowers with `lower` an expression that may run more than once in its statement (a loop's
    /// condition): nothing can be placed before it.
    pub(super) fn repeated<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.before.take();
        let lowered = lower(self);
        self.before = outer;
        lowered
    }

    /// Lowers with `lower` an expression that may not run when its statement does (after `&&`,
    /// `||` or `?`): no helper call in it can be inlined before the statement.
    pub(super) fn conditionally<T>(&mut self, lower: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.conditional, true);
        let lowered = lower(self);
        self.conditional = outer;
        lowered
    }

    /// Whether code can run before the statement being lowered, once, where the expression at
    /// `span` would (an inlined call, an atomic operation); if not, `what` is refused.
    pub(super) fn runs_once_before(&mut self, span: Span, what: String) -> bool {
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

    /// A call that changes memory inside an expression (an atomic operation, an asynchronous
    /// copy): its code, from `lower`, runs before the statement, once, so not in an annotation
    /// nor where the expression may not run or may run again; its value is `lower`'s.
    pub(super) fn effect_in_expression(
        &mut self,
        name: &str,
        span: Span,
        place: Place,
        lower: impl FnOnce(&mut Self) -> Option<(Vec<surface::Stmt>, Option<Value>)>,
    ) -> Option<Option<Value>> {
        if place == Place::Annotation {
            self.unsupported(span, format!("`{name}` in an annotation"), "an annotation cannot change memory");
            return None;
        }
        if !self.runs_once_before(span, format!("`{name}` here")) {
            return None;
        }
        let (stmts, value) = lower(self)?;
        self.before.get_or_insert_with(Vec::new).extend(stmts);
        Some(value)
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

    /// Lowers one statement (into none, one or several), with the annotation written before it;
    /// `ends_function` when nothing runs after it but the kernel's end ([`Lowerer::statements`]).
    pub(super) fn stmt_with_annotation(
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
                    let mut stmts = self.no_copy_in_flight(span)?;
                    stmts.extend(one(self, barrier)?);
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

    pub(super) fn declaration(
        &mut self,
        declaration: &ast::Declaration,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
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
                match self.pointer_variable(declarator, ty, None, init.as_ref(), lengths) {
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
            self.declare(&declarator.name.name, Symbol::Scalar { ty, interval, name: name.clone() });
            let ty_span = declaration.specifiers.ty.span;
            match self.declared(name, ty, ty_span, declarator.name.span, declarator.span, init) {
                Some(stmts) => lowered.extend(stmts),
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
            if declarator.pointers == 1 && declarator.dimensions.is_empty() {
                match self.pointer_variable(declarator, vector.element, Some(vector), init.as_ref(), lengths) {
                    Some(stmts) => lowered.extend(stmts),
                    None => ok = false,
                }
                continue;
            }
            if declarator.pointers > 0 || !declarator.dimensions.is_empty() {
                self.unsupported(
                    declarator.span,
                    "a private array of vectors, or a pointer to pointers to vectors",
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

    /// A value computed for its reads' and checks' sake, into a variable nothing reads.
    pub(super) fn unused(&mut self, value: Value, span: Span) -> Option<surface::Stmt> {
        self.fresh += 1;
        let kind = surface::StmtKind::Declare {
            ty: value.ty.surface(),
            ty_span: span,
            name: surface::Ident { name: format!("\\unused@{}", self.fresh), span },
            init: Some(value.expr),
        };
        self.surface_stmt(kind, span)
    }

    /// An expression statement: an assignment, `++`/`--`, or a call.
    pub(super) fn expression_statement(&mut self, expr: &ast::Expr, lengths: &Lengths) -> Option<Vec<surface::Stmt>> {
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
                if function.name != "__assume" {
                    if let Some(predicate) = two_thread_predicate(formula, true).map(str::to_string) {
                        return self.unstated_claim(&predicate, "this assertion", span).map(|stmt| vec![stmt]);
                    }
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
            ast::ExprKind::Call { function, args } if images::is_image_write(&function.name) => {
                return self.image_write(&function.name, args, span, lengths);
            }
            ast::ExprKind::Call { function, args } if specs::is_spec_access(&function.name) => {
                return self.spec_access(&function.name, args, span, lengths);
            }
            ast::ExprKind::Call { function, args } if async_copies::is_async_copy(&function.name) => {
                return self.async_copy(&function.name, args, span, lengths).map(|(stmts, _)| stmts);
            }
            ast::ExprKind::Call { function, args } if self.prototypes.contains_key(function.name.as_str()) => {
                // Evaluated for its arguments' sake.
                let value = self.undefined_call(&function.name, args, span, Place::Code, lengths)?;
                return self.unused(value, span).map(|stmt| vec![stmt]);
            }
            // OpenCL's `sincos(x, c)` returns the sine and stores the cosine at `c`; CUDA's
            // `sincosf(x, s, c)` stores both: `*c = cos(x);` (and `*s = sin(x);`), the result
            // of a statement dropped.
            ast::ExprKind::Call { function, args }
                if matches!(
                    (function.name.as_str(), args.len()),
                    ("sincos", 2) | ("sincos" | "sincosf" | "__sincosf", 3)
                ) =>
            {
                let (x, stores) = args.split_first().expect("two or three arguments");
                let functions: &[&str] = if stores.len() == 1 { &["cos"] } else { &["sin", "cos"] };
                let mut lowered = Vec::new();
                for (number, (pointer, name)) in stores.iter().zip(functions).enumerate() {
                    // `x` is evaluated once, in the last store; the others' values are of a
                    // constant, any float all the same.
                    let operand = match number + 1 == stores.len() {
                        true => x.clone(),
                        false => self.checked(ast::Expr::new(ast::ExprKind::Float("0.0f".into()), x.span))?,
                    };
                    let function = ast::Ident { name: name.to_string(), span: function.span };
                    let value = ast::ExprKind::Call { function, args: vec![operand] };
                    // The cell: `e` of `&e`, `a[k]` of `a + k`, `p[0]` of a pointer `p`.
                    let target = match &pointer.kind {
                        ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => (**operand).clone(),
                        ast::ExprKind::Binary { op: ast::BinaryOp::Add, lhs, rhs } => {
                            let cell = ast::ExprKind::Index { base: lhs.clone(), index: rhs.clone() };
                            self.checked(ast::Expr::new(cell, pointer.span))?
                        }
                        _ => {
                            let zero = Box::new(ast::Expr::int(0, pointer.span));
                            let cell = ast::ExprKind::Index { base: Box::new(pointer.clone()), index: zero };
                            self.checked(ast::Expr::new(cell, pointer.span))?
                        }
                    };
                    let store = ast::ExprKind::Assign {
                        op: None,
                        target: Box::new(target),
                        value: Box::new(self.checked(ast::Expr::new(value, span))?),
                    };
                    let store = self.checked(ast::Expr::new(store, span))?;
                    lowered.extend(self.expression_statement(&store, lengths)?);
                }
                return Some(lowered);
            }
            // GPUVerify's `__read_permission(T, x)` (which lockstep's header makes
            // `__read_permission(&(x))`): the thread may read `x`, so it is read, as GPUVerify
            // logs it, and its value dropped.
            ast::ExprKind::Call { function, args } if function.name == "__read_permission" => {
                let [ast::Expr { kind: ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand }, .. }] =
                    args.as_slice()
                else {
                    self.unsupported(
                        span,
                        "`__read_permission` of other than a place",
                        "write `__read_permission(int, a[i])`",
                    );
                    return None;
                };
                let value = self.typed(operand, Place::Code, lengths)?;
                return self.unused(value, span).map(|stmt| vec![stmt]);
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
}

fn is_loop(stmt: &ast::Stmt) -> bool {
    matches!(stmt.kind, ast::StmtKind::While { .. } | ast::StmtKind::For { .. } | ast::StmtKind::DoWhile { .. })
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

/// Whether an expression is a call of GPUVerify's `__add_noovfl_T`.
fn is_noovfl_call(expr: &ast::Expr) -> bool {
    matches!(&expr.kind, ast::ExprKind::Call { function, .. } if function.name.starts_with("__add_noovfl_"))
}

/// `x = __add_noovfl_T(...)`, of a variable.
fn is_noovfl_assignment(expr: &ast::Expr) -> bool {
    matches!(&expr.kind, ast::ExprKind::Assign { op: None, target, value }
        if matches!(target.kind, ast::ExprKind::Name(_)) && is_noovfl_call(value))
}
