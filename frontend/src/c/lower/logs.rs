//! GPUVerify's access logs, for its annotations that ask about them: `__read(a)`, `__write(a)`,
//! `__no_read(a)`, `__no_write(a)`, `__read_implies(a, e)`, `__write_implies(a, e)`,
//! `__read_offset(a)`, `__write_offset(a)` and their `_bytes` forms.
//!
//! GPUVerify's log of an array records one access of the thread since the last barrier that fences
//! the array's memory, chosen nondeterministically among them: at each access the log may take it
//! (the flag becomes true, the offset becomes the access's) or keep what it had, and a barrier
//! empties it. So `!__read(a)` holds where no read of `a` can have happened since that barrier,
//! and `__implies(__read(a), __read_offset_bytes(a) == k)` where every such read was at byte `k`.
//!
//! The log is ghost state of the thread, four private variables for each array of the kernel
//! (`\read@a`, `\read_offset@a`, `\write@a`, `\write_offset@a`; offsets in elements), declared
//! only in a file that asks about a log. Before each statement of code that reads (writes) a cell
//! of `a`, the log may take the access: `if (\arbitrary@n == 0) { \read@a = true; \read_offset@a
//! = index; }` (`run` takes every access, as its arbitrary values are 0). Where the read may not
//! run when its statement does (after `&&`, `||` or `?`), the offset taken is arbitrary: the
//! index there need not be one that can be evaluated. Atomic operations are not logged (GPUVerify
//! keeps them apart). What lockstep does not keep: the logs of another thread (`__global_assert`,
//! `__global_requires` and `__global_ensures` over the logs speak of every thread, also those not
//! running the annotation, and are refused); the logs at a kernel's start (a kernel's
//! `__requires` over them is left out, as they are empty there).

use super::{ArrayCell, Lowerer, Place, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType, Value};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

/// The calls that ask about the access logs.
pub(super) const LOG_QUERIES: &[&str] = &[
    "__read",
    "__write",
    "__no_read",
    "__no_write",
    "__read_implies",
    "__write_implies",
    "__read_offset",
    "__write_offset",
    "__read_offset_bytes",
    "__write_offset_bytes",
];

/// The kind of an access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Write,
}

impl Access {
    fn word(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// An array whose accesses are logged: its name in the surface kernel and its memory.
#[derive(Clone, Debug)]
pub(super) struct Logged {
    pub(super) array: String,
    pub(super) memory: surface::MemorySpace,
}

/// The variable holding whether the log of `array`'s accesses of `kind` took one.
fn flag(kind: Access, array: &str) -> String {
    format!("\\{}@{array}", kind.word())
}

/// The variable holding the index of the access the log took.
fn offset(kind: Access, array: &str) -> String {
    format!("\\{}_offset@{array}", kind.word())
}

/// The first call asking about the logs in an expression.
fn log_query(expr: &ast::Expr) -> Option<&str> {
    match &expr.kind {
        ast::ExprKind::Call { function, .. } if LOG_QUERIES.contains(&function.name.as_str()) => Some(&function.name),
        kind => kind.children().into_iter().find_map(log_query),
    }
}

/// Whether any statement asks about the logs, in code or in a GPUVerify annotation.
pub(super) fn asks_about_logs(stmts: &[ast::Stmt]) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        ast::StmtKind::Declaration(declaration) => {
            declaration.declarators.iter().any(|(_, init)| init.as_ref().is_some_and(|init| log_query(init).is_some()))
        }
        ast::StmtKind::Expr(expr) | ast::StmtKind::Return(Some(expr)) => log_query(expr).is_some(),
        ast::StmtKind::If { cond, then_branch, else_branch } => {
            log_query(cond).is_some()
                || asks_about_logs(std::slice::from_ref(then_branch))
                || else_branch.as_ref().is_some_and(|branch| asks_about_logs(std::slice::from_ref(branch)))
        }
        ast::StmtKind::While { cond, body } | ast::StmtKind::DoWhile { body, cond } => {
            log_query(cond).is_some() || asks_about_logs(std::slice::from_ref(body))
        }
        ast::StmtKind::For { init, cond, step, body } => {
            init.as_ref().is_some_and(|init| asks_about_logs(std::slice::from_ref(init)))
                || cond.as_ref().is_some_and(|cond| log_query(cond).is_some())
                || step.as_ref().is_some_and(|step| log_query(step).is_some())
                || asks_about_logs(std::slice::from_ref(body))
        }
        ast::StmtKind::Block(block) => asks_about_logs(&block.stmts),
        ast::StmtKind::Annotation(annotation) => annotation
            .clauses
            .iter()
            .any(|clause| matches!(clause, ast::SpecClause::Clause { formula, .. } if log_query(formula).is_some())),
        ast::StmtKind::Return(None)
        | ast::StmtKind::Break
        | ast::StmtKind::Continue
        | ast::StmtKind::Unsupported(_)
        | ast::StmtKind::Empty
        | ast::StmtKind::Error => false,
    })
}

impl Lowerer<'_> {
    /// The declarations of the logs of the kernel's arrays, empty, at the start of its body.
    pub(super) fn log_declarations(&mut self, span: Span) -> Vec<surface::Stmt> {
        let mut stmts = Vec::new();
        for logged in self.logs.clone().unwrap_or_default() {
            for kind in [Access::Read, Access::Write] {
                let empty = self.node(surface::ExprKind::Bool(false), span);
                let declare_flag = surface::StmtKind::Declare {
                    ty: surface::TypeName::Bool,
                    ty_span: span,
                    name: surface::Ident { name: flag(kind, &logged.array), span },
                    init: empty,
                };
                let declare_offset = surface::StmtKind::Declare {
                    ty: surface::TypeName::Int,
                    ty_span: span,
                    name: surface::Ident { name: offset(kind, &logged.array), span },
                    init: None,
                };
                stmts.extend(self.surface_stmt(declare_flag, span));
                stmts.extend(self.surface_stmt(declare_offset, span));
            }
        }
        stmts
    }

    /// Before the statement with the access of `kind` to `cell`: the log may take it.
    pub(super) fn log_access(&mut self, kind: Access, (array, index, _): &ArrayCell, span: Span) -> Option<()> {
        let Some(logs) = &self.logs else { return Some(()) };
        if !logs.iter().any(|logged| logged.array == array.name) {
            return Some(());
        }
        if self.before.is_none() {
            self.unsupported(
                span,
                format!(
                    "a {} of `{}` in a loop's condition, in a kernel that asks about its access logs",
                    kind.word(),
                    array.name
                ),
                "compute the condition into a variable before the loop and at the end of its body",
            );
            return None;
        }
        let taken_offset = if self.conditional { self.arbitrary_int(span)? } else { index.clone() };
        let choice = self.arbitrary_int(span)?;
        let zero = self.int(0, span)?;
        let takes = self.binary(surface::BinaryOp::Eq, choice, zero, span)?;
        let yes = self.node(surface::ExprKind::Bool(true), span)?;
        let set_flag =
            surface::StmtKind::Assign { target: surface::Ident { name: flag(kind, &array.name), span }, value: yes };
        let set_offset = surface::StmtKind::Assign {
            target: surface::Ident { name: offset(kind, &array.name), span },
            value: taken_offset,
        };
        let taken = vec![self.surface_stmt(set_flag, span)?, self.surface_stmt(set_offset, span)?];
        let taken = self.block_of(taken, span)?;
        let log = surface::StmtKind::If { cond: takes, then_branch: Box::new(taken), else_branch: None };
        let log = self.surface_stmt(log, span)?;
        self.before.get_or_insert_with(Vec::new).push(log);
        Some(())
    }

    /// A fresh arbitrary integer, declared before the statement being lowered.
    fn arbitrary_int(&mut self, span: Span) -> Option<surface::Expr> {
        self.arbitrary(CType::Int(integers::INT), Vec::new(), Place::Code, span).map(|value| value.expr)
    }

    /// After a barrier that fences `fences`: the logs of the arrays in those memories are empty.
    pub(super) fn log_resets(&mut self, fences: &[surface::FenceName], span: Span) -> Vec<surface::Stmt> {
        let mut stmts = Vec::new();
        for logged in self.logs.clone().unwrap_or_default() {
            let fenced = match logged.memory {
                surface::MemorySpace::Local => "local",
                surface::MemorySpace::Global => "global",
            };
            if !fences.iter().any(|fence| fence.name == fenced) {
                continue;
            }
            for kind in [Access::Read, Access::Write] {
                let Some(empty) = self.node(surface::ExprKind::Bool(false), span) else { continue };
                let reset = surface::StmtKind::Assign {
                    target: surface::Ident { name: flag(kind, &logged.array), span },
                    value: empty,
                };
                stmts.extend(self.surface_stmt(reset, span));
            }
        }
        stmts
    }

    /// A call asking about a log, in an annotation: `__read(a)` is whether the log of `a`'s reads
    /// took one, `__read_offset(a)` the index it took (`__read_offset_bytes(a)` in bytes),
    /// `__read_implies(a, e)` is `__read(a) ==> e`, `__no_read(a)` is `!__read(a)`.
    pub(super) fn log_query_value(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        place: Place,
        span: Span,
        lengths: &super::Lengths,
    ) -> Option<Value> {
        let kind = if name.contains("read") { Access::Read } else { Access::Write };
        let implies = name.ends_with("_implies");
        let (array_arg, implied) = match (args, implies) {
            ([array], false) => (array, None),
            ([array, implied], true) => (array, Some(implied)),
            _ => {
                self.argument_count(name, if implies { 2 } else { 1 }, args.len(), span);
                return None;
            }
        };
        if place == Place::Code {
            // In code, GPUVerify's logs are its encoding's, not the kernel's: the answer is any
            // value of its type, which over-approximates every run.
            let ty = if name.contains("offset") { CType::Int(integers::SIZE_T) } else { CType::Bool };
            return self.arbitrary(ty, Vec::new(), place, span);
        }
        let array = match &array_arg.kind {
            ast::ExprKind::Name(array) => {
                self.pointer_used(array);
                self.array_of(array, array_arg.span)
            }
            _ => None,
        };
        // A pointer into an array asks about the array's log, whose offsets are from its start,
        // as GPUVerify's are from the start of the object.
        let (array, element) = match array {
            Some(Symbol::Array { vector: Some(_), .. }) if name.ends_with("_offset") => {
                self.unsupported(
                    span,
                    format!("`{name}` of an array of vectors"),
                    format!("ask for the offset in bytes: `{name}_bytes`"),
                );
                return None;
            }
            Some(Symbol::Array { storage: Storage::Memory(name), element, .. }) => (name, element),
            Some(Symbol::Array { storage: Storage::Private(_), .. }) => {
                self.unsupported(
                    array_arg.span,
                    format!("`{name}` of private memory"),
                    "GPUVerify logs the accesses to global and local memory only",
                );
                return None;
            }
            _ => {
                self.unsupported(
                    array_arg.span,
                    format!("`{name}` of something other than an array"),
                    "name an array or a helper's array parameter: `__read(a)`",
                );
                return None;
            }
        };
        if self.logs.is_none() {
            self.unsupported(
                span,
                format!("`{name}` in a kernel's contract"),
                "the logs are empty where a kernel starts; ask about them in `__assert` or in a helper's contract",
            );
            return None;
        }
        let flag_name = self.node(surface::ExprKind::Name(flag(kind, &array)), span)?;
        let bool_value = |expr| Value { expr, ty: CType::Bool, interval: CType::Bool.interval() };
        if implies {
            let implied = self.gpuverify_formula(implied.expect("two arguments"), lengths)?;
            let lowered = self.binary(surface::BinaryOp::Implies, flag_name, implied, span)?;
            return Some(bool_value(lowered));
        }
        match name {
            "__read" | "__write" => Some(bool_value(flag_name)),
            "__no_read" | "__no_write" => {
                let lowered = self
                    .node(surface::ExprKind::Unary { op: surface::UnaryOp::Not, operand: Box::new(flag_name) }, span)?;
                Some(bool_value(lowered))
            }
            _ => {
                let mut lowered = self.node(surface::ExprKind::Name(offset(kind, &array)), span)?;
                if name.ends_with("_bytes") {
                    let size = self.int(super::size_of(element), span)?;
                    lowered = self.binary(surface::BinaryOp::Mul, lowered, size, span)?;
                }
                let ty = CType::Int(integers::SIZE_T);
                Some(Value { expr: lowered, ty, interval: ty.interval() })
            }
        }
    }

    /// Refuses `__global_assert`, `__global_requires` or `__global_ensures` over the logs, and
    /// says whether it did: they hold in every thread, also in those that do not run them, whose
    /// logs this thread does not have.
    pub(super) fn global_over_logs(&mut self, name: &str, formula: &ast::Expr, span: Span) -> bool {
        let Some(query) = log_query(formula).filter(|_| name.starts_with("__global_")) else { return false };
        self.unsupported(
            span,
            format!("`{name}` over the access logs (`{query}`)"),
            format!("it speaks of every thread's log, also of threads that do not run it; lockstep keeps each thread's own: write `{}`", name.replacen("__global_", "__", 1)),
        );
        true
    }
}
