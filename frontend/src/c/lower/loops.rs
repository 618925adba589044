//! C's loops as the surface language's one loop, `while (c) { body }` with its invariants.
//!
//! - `for (init; c; step) body` is `init; while (c) { body step }`.
//! - `do body while (c);` is `body; while (c) { body }`: the body's code twice, so that the loop's
//!   invariants hold where its condition is evaluated, as in the other loops (after each run of the
//!   body), and nothing is assumed of the first run.
//! - `break` and `continue` set a flag of their loop (`\break@n`, `\continue@n`, declared before
//!   the loop and at the start of each iteration). The loop's condition is `!\break@n && c`, and
//!   the statements after one that may have set a flag run under `if (!flags)`, so that they are
//!   skipped exactly where C skips them. An iteration left by `break` ends like any other, so the
//!   loop's invariants must hold there too (the one thing lockstep asks beyond C's meaning).
//! - A `return` that ends the function (at the end of its code, or in an `if` whose code after it
//!   becomes the other branch: [`Lowerer::statements`]) needs nothing more. Any other `return`
//!   (inside a loop, or in an `if` with code after it that does not end the function) sets the
//!   function's flag `\return@n`, declared at the start of its body: every loop around it has
//!   `!\return@n` in its condition and skips its step, and the statements after one that may have
//!   set it run under `if (!\return@n)`, as after `break`. The iteration it leaves ends like one
//!   left by `break`, where the loop's invariants must hold; they may say what holds there by
//!   `\returned`, the flag (in a helper, with `\result`: `loop_invariant \returned ==>
//!   \result == i;`), since the loop forgets the values its body assigns.

use super::contracts::{split_invariants, unstated_at_loop_head, FUNCTION_WIDE_INVARIANTS};
use super::{assigned_names, Lengths, Lowerer, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType, Integers};
use crate::pvl::ast as surface;
use lockstep_logic::Span;
use std::collections::{BTreeMap, HashSet};

/// The flags of a loop whose body has `break` or `continue` (outside loops nested in it).
#[derive(Default)]
pub(super) struct Exits {
    break_flag: Option<String>,
    continue_flag: Option<String>,
}

/// A C loop, in the parts `for` has.
pub(super) struct Loop<'a> {
    pub(super) init: Option<&'a ast::Stmt>,
    pub(super) cond: Option<&'a ast::Expr>,
    pub(super) step: Option<&'a ast::Expr>,
    pub(super) body: &'a ast::Stmt,
    /// `do ... while`: the body runs once before the condition is first evaluated.
    pub(super) body_first: bool,
}

impl Lowerer<'_> {
    /// Lowers a loop, with the annotation written before it (its `loop_invariant`s).
    pub(super) fn c_loop(
        &mut self,
        stmt: &ast::Stmt,
        annotation: Option<&ast::Annotation>,
        parts: Loop<'_>,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let mut lowered = match parts.init {
            Some(init) => self.stmt_with_annotation(init, None, lengths, false)?,
            None => Vec::new(),
        };
        let (written, cond) = match parts.cond {
            Some(cond) => {
                let (written, cond) = split_invariants(cond);
                (written, Some(cond))
            }
            None => (Vec::new(), None),
        };
        let invariants = self.contract_clauses(annotation, lengths, true);
        // A claim over GPUVerify's pair of threads at the head: undecided where the head is
        // first reached.
        let (unstated, written): (Vec<&ast::Expr>, Vec<&ast::Expr>) =
            written.into_iter().partition(|invariant| unstated_at_loop_head(invariant).is_some());
        for claim in unstated {
            let predicate = unstated_at_loop_head(claim).expect("partitioned").to_string();
            lowered.push(self.unstated_claim(&predicate, "this assertion at a loop's head", claim.span)?);
        }
        let written = self.gpuverify_invariants(&written, lengths);
        let written = written.map(|mut written| {
            written.extend(self.function_wide_invariants(lengths));
            written
        });
        let cond = match cond {
            Some(cond) => self.repeated(|lowerer| lowerer.condition(cond, lengths)),
            None => self.node(surface::ExprKind::Bool(true), stmt.span),
        };
        let mut exits = Exits::default();
        let (breaks, continues) = jumps_in(parts.body);
        if breaks {
            self.fresh += 1;
            exits.break_flag = Some(format!("\\break@{}", self.fresh));
        }
        if continues {
            self.fresh += 1;
            exits.continue_flag = Some(format!("\\continue@{}", self.fresh));
        }
        if let Some(flag) = &exits.break_flag {
            lowered.push(self.flag_declaration(flag, stmt.span)?);
        }
        self.exits.push(exits);
        self.loops_around += 1;
        let returns_before = self.flagged_returns;
        let first_run = parts.body_first.then(|| self.iteration(parts.body, None, lengths));
        let body = self.iteration(parts.body, parts.step, lengths);
        let exits = self.exits.pop().expect("pushed above");
        self.loops_around -= 1;
        let mut cond = cond?;
        let returned = self.return_flag.clone().flatten().filter(|_| self.flagged_returns > returns_before);
        let flags: Vec<&String> = exits.break_flag.iter().chain(&returned).collect();
        if !flags.is_empty() {
            let not_left = self.not_set(&flags, stmt.span)?;
            cond = self.binary(surface::BinaryOp::And, not_left, cond, stmt.span)?;
        }
        let in_types = self.type_invariant(&parts, stmt);
        let invariants = invariants.zip(written).zip(in_types).map(|((mut invariants, written), in_types)| {
            invariants.extend(written);
            invariants.extend(in_types);
            invariants
        });
        if let Some(first_run) = first_run {
            lowered.push(first_run?);
        }
        let kind = surface::StmtKind::While { invariants: invariants?, cond, body: Box::new(body?) };
        lowered.push(self.surface_stmt(kind, stmt.span)?);
        Some(lowered)
    }

    /// What C's types say of the integer variables the loop assigns: each lies in its type (a
    /// signed result is checked to, an unsigned one wraps), but the loop forgets their values, so
    /// it keeps this as one more invariant, proved like the others (at the loop's keyword). Without
    /// it a counterexample could show an `int` beyond 2^31. The cells of every private array in
    /// scope count as assigned (a helper may write them through a pointer). A variable declared
    /// without a value is left out (though it holds one of its type, [`Lowerer::declared`]).
    fn type_invariant(&mut self, parts: &Loop<'_>, stmt: &ast::Stmt) -> Option<Option<surface::Clause>> {
        if self.integers == Integers::Mathematical {
            return Some(None);
        }
        let mut assigned = HashSet::new();
        assigned_names(std::slice::from_ref(parts.body), &mut assigned);
        if let Some(step) = parts.step {
            let step = self.checked(ast::Stmt::new(ast::StmtKind::Expr(step.clone()), step.span))?;
            assigned_names(std::slice::from_ref(&step), &mut assigned);
        }
        let private_cells = self.scopes.iter().flat_map(|scope| scope.values()).flat_map(|symbol| match symbol {
            Symbol::Array { element: CType::Int(int), storage: Storage::Private(cells), .. } => {
                cells.iter().map(|cell| (cell.clone(), *int)).collect()
            }
            _ => Vec::new(),
        });
        let variables: BTreeMap<String, lockstep_logic::MachineInt> = assigned
            .iter()
            .filter_map(|name| match self.lookup(name) {
                Some(Symbol::Scalar { ty: CType::Int(int), name, .. }) => Some((name.clone(), *int)),
                _ => None,
            })
            .chain(private_cells)
            .filter(|(name, _)| !self.uninitialized.contains(name))
            .collect();
        let keyword = match stmt.kind {
            ast::StmtKind::For { .. } => "for",
            ast::StmtKind::DoWhile { .. } => "do",
            _ => "while",
        };
        let span = Span::new(stmt.span.start, stmt.span.start + keyword.len());
        let mut formula: Option<surface::Expr> = None;
        for (name, int) in variables {
            let in_type = self.checked(integers::in_type(&name, int, span))?;
            formula = Some(match formula {
                Some(formula) => self.binary(surface::BinaryOp::And, formula, in_type, span)?,
                None => in_type,
            });
        }
        Some(formula.map(|formula| surface::Clause {
            level: surface::Level::Thread,
            kind: surface::ClauseKind::Invariant,
            formula,
            span,
        }))
    }

    /// One iteration's code: the body (with the `continue` flag cleared first) and the step.
    fn iteration(&mut self, body: &ast::Stmt, step: Option<&ast::Expr>, lengths: &Lengths) -> Option<surface::Stmt> {
        let mut stmts = Vec::new();
        let continue_flag = self.exits.last().and_then(|exits| exits.continue_flag.clone());
        if let Some(flag) = continue_flag {
            stmts.push(self.flag_declaration(&flag, body.span)?);
        }
        let returns_before = self.flagged_returns;
        let lowered = self.statements(std::slice::from_ref(body), lengths, false);
        let returned = self.flagged_returns > returns_before;
        // The step runs after `continue`, and not after `break` or `return`.
        let step = step.map(|step| self.step(step, returned, lengths));
        stmts.extend(lowered?);
        if let Some(step) = step {
            stmts.push(step?);
        }
        self.block_of(stmts, body.span)
    }

    /// A `for` loop's step, skipped when the iteration was left by `break`, or by `return` if the
    /// body `returned`.
    fn step(&mut self, step: &ast::Expr, returned: bool, lengths: &Lengths) -> Option<surface::Stmt> {
        let lowered = self.before_then(|lowerer| lowerer.expression_statement(step, lengths))?;
        let lowered = self.block_of(lowered, step.span)?;
        let break_flag = self.exits.last().and_then(|exits| exits.break_flag.clone());
        let return_flag = self.return_flag.clone().flatten().filter(|_| returned);
        let flags: Vec<&String> = break_flag.iter().chain(&return_flag).collect();
        if flags.is_empty() {
            return Some(lowered);
        }
        let cond = self.not_set(&flags, step.span)?;
        let kind = surface::StmtKind::If { cond, then_branch: Box::new(lowered), else_branch: None };
        self.surface_stmt(kind, step.span)
    }

    /// `break;` or `continue;`: sets its loop's flag.
    pub(super) fn jump(&mut self, stmt: &ast::Stmt) -> Option<Vec<surface::Stmt>> {
        let breaks = matches!(stmt.kind, ast::StmtKind::Break);
        let flag =
            self.exits
                .last()
                .and_then(|exits| if breaks { exits.break_flag.clone() } else { exits.continue_flag.clone() });
        let Some(flag) = flag else {
            let word = if breaks { "break" } else { "continue" };
            self.unsupported(
                stmt.span,
                format!("`{word}` outside a loop"),
                "`break` and `continue` leave the loop they are in",
            );
            return None;
        };
        let value = self.node(surface::ExprKind::Bool(true), stmt.span)?;
        let assign = surface::StmtKind::Assign { target: surface::Ident { name: flag, span: stmt.span }, value };
        self.surface_stmt(assign, stmt.span).map(|stmt| vec![stmt])
    }

    /// Whether the statements after `stmt` in its list must run only if it did not `break` or
    /// `continue` its loop, nor `return` (if it `returned` by the function's flag); if so, the
    /// condition they run under.
    pub(super) fn guard_after(&mut self, stmt: &ast::Stmt, returned: bool) -> Option<Option<surface::Expr>> {
        let (breaks, continues) = jumps_in(stmt);
        let (break_flag, continue_flag) = match self.exits.last() {
            Some(exits) => (exits.break_flag.clone(), exits.continue_flag.clone()),
            None => (None, None),
        };
        let flags: Vec<String> =
            [(breaks, break_flag), (continues, continue_flag), (returned, self.return_flag.clone().flatten())]
                .into_iter()
                .filter_map(|(jumps, flag)| flag.filter(|_| jumps))
                .collect();
        if flags.is_empty() {
            return Some(None);
        }
        let flags: Vec<&String> = flags.iter().collect();
        self.not_set(&flags, stmt.span).map(Some)
    }

    /// A `return` that does not end its function: the helper's result receives its value, and
    /// the function's return flag is set (declared by [`Lowerer::function_body`]).
    pub(super) fn flagged_return(
        &mut self,
        value: Option<&ast::Expr>,
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let mut stmts = self.before_then(|lowerer| lowerer.returned(value, span, lengths))?;
        let flag = self.return_flag(span)?;
        let value = self.node(surface::ExprKind::Bool(true), span)?;
        let assign = surface::StmtKind::Assign { target: surface::Ident { name: flag, span }, value };
        stmts.push(self.surface_stmt(assign, span)?);
        self.flagged_returns += 1;
        Some(stmts)
    }

    /// The return flag of the function whose body is being lowered, made up where first needed:
    /// by a `return` that sets it, or by `\returned` in a loop invariant, which reads it. Outside
    /// a body (a kernel's or helper's contract) there is none, and `\returned` is refused.
    pub(super) fn return_flag(&mut self, span: Span) -> Option<String> {
        match &self.return_flag {
            Some(Some(flag)) => Some(flag.clone()),
            Some(None) => {
                self.fresh += 1;
                let flag = format!("\\return@{}", self.fresh);
                self.return_flag = Some(Some(flag.clone()));
                Some(flag)
            }
            None => {
                self.unsupported(
                    span,
                    "`\\returned` outside a function's body",
                    "read it in the body: in a loop invariant or an assertion",
                );
                None
            }
        }
    }

    /// The code of a function's body (a kernel's, or a helper's where it is inlined), with the
    /// declaration of its return flag first if a `return` sets it.
    pub(super) fn function_body(
        &mut self,
        stmts: &[ast::Stmt],
        lengths: &Lengths,
        span: Span,
    ) -> Option<Vec<surface::Stmt>> {
        let outer_flag = self.return_flag.replace(None);
        let outer_count = self.flagged_returns;
        let mut function_wide = Vec::new();
        function_wide_in(stmts, &mut function_wide);
        let outer_function_wide = std::mem::replace(&mut self.function_wide, function_wide);
        let lowered = self.statements(stmts, lengths, true);
        self.function_wide = outer_function_wide;
        let flag = std::mem::replace(&mut self.return_flag, outer_flag).flatten();
        // The caller's statements do not hold the callee's returns.
        self.flagged_returns = outer_count;
        let mut lowered = lowered?;
        if let Some(flag) = flag {
            lowered.insert(0, self.flag_declaration(&flag, span)?);
        }
        Some(lowered)
    }

    /// The function-wide invariants of the function, as clauses of the loop being lowered: each
    /// read where the loop stands, and left out of a loop where it names what is not in scope
    /// there (GPUVerify applies it to every loop it can).
    fn function_wide_invariants(&mut self, lengths: &Lengths) -> Vec<surface::Clause> {
        let mut clauses = Vec::new();
        for invariant in self.function_wide.clone() {
            let diagnostics = self.diagnostics.len();
            match self.gpuverify_invariants(&[&invariant], lengths) {
                Some(lowered) => clauses.extend(lowered),
                None => {
                    self.diagnostics.truncate(diagnostics);
                    self.left_out(
                        invariant.span,
                        "this function-wide invariant, at a loop where it names what is not in scope,".to_string(),
                        "it is read at each loop of the function where what it names is declared",
                    );
                }
            }
        }
        clauses
    }

    /// `!f1 && !f2 ...`.
    fn not_set(&mut self, flags: &[&String], span: Span) -> Option<surface::Expr> {
        let mut guard: Option<surface::Expr> = None;
        for flag in flags {
            let name = self.node(surface::ExprKind::Name((*flag).clone()), span)?;
            let not =
                self.node(surface::ExprKind::Unary { op: surface::UnaryOp::Not, operand: Box::new(name) }, span)?;
            guard = Some(match guard {
                Some(guard) => self.binary(surface::BinaryOp::And, guard, not, span)?,
                None => not,
            });
        }
        guard
    }

    /// `bool flag = false;`
    fn flag_declaration(&mut self, flag: &str, span: Span) -> Option<surface::Stmt> {
        let init = self.node(surface::ExprKind::Bool(false), span)?;
        let kind = surface::StmtKind::Declare {
            ty: CType::Bool.surface(),
            ty_span: span,
            name: surface::Ident { name: flag.to_string(), span },
            init: Some(init),
        };
        self.surface_stmt(kind, span)
    }
}

/// Whether a statement has a `break`, and a `continue`, for the loop it is in (not counting those
/// of loops nested in it).
fn jumps_in(stmt: &ast::Stmt) -> (bool, bool) {
    match &stmt.kind {
        ast::StmtKind::Break => (true, false),
        ast::StmtKind::Continue => (false, true),
        ast::StmtKind::If { then_branch, else_branch, .. } => {
            let (then_breaks, then_continues) = jumps_in(then_branch);
            let (else_breaks, else_continues) = else_branch.as_deref().map_or((false, false), jumps_in);
            (then_breaks || else_breaks, then_continues || else_continues)
        }
        ast::StmtKind::Block(block) => {
            block.stmts.iter().map(jumps_in).fold((false, false), |(b, c), (b2, c2)| (b || b2, c || c2))
        }
        _ => (false, false),
    }
}

/// The calls of GPUVerify's function-wide invariants among `stmts`, at any depth.
fn function_wide_in(stmts: &[ast::Stmt], out: &mut Vec<ast::Expr>) {
    for stmt in stmts {
        match &stmt.kind {
            ast::StmtKind::Expr(expr @ ast::Expr { kind: ast::ExprKind::Call { function, .. }, .. })
                if FUNCTION_WIDE_INVARIANTS.contains(&function.name.as_str()) =>
            {
                out.push(expr.clone())
            }
            ast::StmtKind::Block(block) => function_wide_in(&block.stmts, out),
            ast::StmtKind::If { then_branch, else_branch, .. } => {
                function_wide_in(std::slice::from_ref(then_branch), out);
                if let Some(other) = else_branch {
                    function_wide_in(std::slice::from_ref(other), out);
                }
            }
            ast::StmtKind::While { body, .. }
            | ast::StmtKind::For { body, .. }
            | ast::StmtKind::DoWhile { body, .. } => function_wide_in(std::slice::from_ref(body), out),
            _ => {}
        }
    }
}
