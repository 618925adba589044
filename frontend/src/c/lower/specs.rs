//! GPUVerify's specification functions: a helper whose name starts with `__spec` stands for a
//! function lockstep cannot see (one of a library, or written elsewhere), and has no code but its
//! contract. Where it is called, its `__requires` are checked and its `__ensures` assumed, as
//! GPUVerify does; `__writes_to(p)` and `__reads_from(p)` in its body say that it may write (read)
//! the cells of the array `p` points into.
//!
//! Which cells: every cell `k` of `p` (from `p` to the array's end) that each of the function's
//! `__ensures(__write_implies(p, e))` (`__read_implies` for reads) allows, with
//! `__write_offset_bytes(p)` in `e` read as `k * sizeof(*p)` and `__write_offset(p)` as `k`. A
//! write puts an arbitrary value in the cell, which the assumed `__ensures` may then constrain.
//! So the accesses are checked as the kernel's own are: a race of a cell the function may touch
//! fails. Refused: `__writes_to` outside a `__spec` function, of other than a pointer parameter
//! into memory of known or unknown length, and a condition `e` that reads memory.

use super::{Lengths, Lowerer, Place, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

/// The prefix of GPUVerify's specification functions.
const SPEC_PREFIX: &str = "__spec";

/// Whether `name` says which cells a specification function touches.
pub(super) fn is_spec_access(name: &str) -> bool {
    matches!(name, "__writes_to" | "__reads_from")
}

/// Whether the helper `name` is a specification function.
pub(super) fn is_spec_function(name: &str) -> bool {
    name.starts_with(SPEC_PREFIX)
}

impl Lowerer<'_> {
    /// `__writes_to(p)` or `__reads_from(p)` in the body of a specification function.
    pub(super) fn spec_access(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let Some(function) =
            self.inlining.last().map(|inlined| inlined.name.clone()).filter(|name| is_spec_function(name))
        else {
            self.unsupported(
                span,
                format!("`{name}` outside a specification function"),
                "GPUVerify's `__writes_to` and `__reads_from` say what a function whose name starts with `__spec` touches",
            );
            return None;
        };
        let [pointer] = args else {
            self.argument_count(name, 1, args.len(), span);
            return None;
        };
        let array = match &pointer.kind {
            ast::ExprKind::Name(array) => array.clone(),
            _ => String::new(),
        };
        let (Some(Symbol::Array { element, storage: Storage::Memory(cells), offset, vector: None, .. }), Some(length)) =
            (self.lookup(&array).cloned(), lengths.get(&array).cloned())
        else {
            self.unsupported(
                pointer.span,
                format!("`{name}` of other than a pointer parameter into global or local memory"),
                "name a pointer parameter of the function",
            );
            return None;
        };
        let writes = name == "__writes_to";
        let allowed = self.allowed_offsets(&function, &array, writes);
        if allowed.iter().any(reads_memory) {
            self.unsupported(
                span,
                format!(
                    "a condition of `{}` that reads memory",
                    if writes { "__write_implies" } else { "__read_implies" }
                ),
                "state the offsets the function touches in terms of ids and parameters",
            );
            return None;
        }
        // The counter: a C name of its own (no C identifier holds a backslash).
        self.fresh += 1;
        let counter = format!("\\spec@{}", self.fresh);
        let int = CType::Int(integers::INT);
        self.declare(&counter, Symbol::Scalar { ty: int, interval: int.interval(), name: counter.clone() });
        let mut cond = self.node(surface::ExprKind::Bool(true), span)?;
        for condition in &allowed {
            let condition = at_offset(condition, &array, &counter, element, span);
            let condition = self.gpuverify_formula(&condition, lengths)?;
            cond = self.binary(surface::BinaryOp::And, cond, condition, span)?;
        }
        let k = self.node(surface::ExprKind::Name(counter.clone()), span)?;
        let index = match offset {
            Some(offset) => self.binary(surface::BinaryOp::Add, offset, k, span)?,
            None => k,
        };
        let cell = (surface::Ident { name: cells, span }, index, element);
        // What the access needs first (its arbitrary value, its log's update) is in the loop.
        let access = self.before_then(|lowerer| {
            let access = if writes {
                let value = lowerer.arbitrary(element, Vec::new(), Place::Code, span)?;
                let write = lowerer.write_value(super::Location::Memory(cell), value.expr, span)?;
                lowerer.surface_stmt(write, span)?
            } else {
                let value = lowerer.read_location(super::Location::Memory(cell), Place::Code, span)?;
                lowerer.unused(value, span)?
            };
            Some(vec![access])
        })?;
        let access = self.block_of(access, span)?;
        let kind = surface::StmtKind::If { cond, then_branch: Box::new(access), else_branch: None };
        let body = self.surface_stmt(kind, span)?;
        let every_cell = self.counted_loop(&counter, length, body, span)?;
        Some(vec![every_cell])
    }

    /// The conditions `e` of the specification function's `__ensures(__write_implies(p, e))`
    /// (`__read_implies` for reads).
    fn allowed_offsets(&self, function: &str, array: &str, writes: bool) -> Vec<ast::Expr> {
        let implies = if writes { "__write_implies" } else { "__read_implies" };
        let Some(body) = self.helpers.get(function).and_then(|helper| helper.function.body.as_ref()) else {
            return Vec::new();
        };
        body.stmts
            .iter()
            .map_while(super::contracts::gpuverify_clause)
            .filter(|(kind, _, _)| *kind == surface::ClauseKind::Ensures)
            .filter_map(|(_, formula, _)| match &formula.kind {
                ast::ExprKind::Call { function, args } if function.name == implies => match args.as_slice() {
                    [ast::Expr { kind: ast::ExprKind::Name(named), .. }, condition] if named == array => {
                        Some(condition.clone())
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// `int k = 0; while (k < bound) { body; k = k + 1; }`, in a block of its own.
    pub(super) fn counted_loop(
        &mut self,
        counter: &str,
        bound: surface::Expr,
        body: surface::Stmt,
        span: Span,
    ) -> Option<surface::Stmt> {
        let named = |lowerer: &mut Self| lowerer.node(surface::ExprKind::Name(counter.to_string()), span);
        let zero = self.int(0, span)?;
        let start = surface::StmtKind::Declare {
            ty: surface::TypeName::Int,
            ty_span: span,
            name: surface::Ident { name: counter.to_string(), span },
            init: Some(zero),
        };
        let start = self.surface_stmt(start, span)?;
        let (k, one) = (named(self)?, self.int(1, span)?);
        let next = self.binary(surface::BinaryOp::Add, k, one, span)?;
        let step =
            surface::StmtKind::Assign { target: surface::Ident { name: counter.to_string(), span }, value: next };
        let step = self.surface_stmt(step, span)?;
        let k = named(self)?;
        let cond = self.binary(surface::BinaryOp::Lt, k, bound, span)?;
        let body = self.block_of(vec![body, step], span)?;
        let counting = surface::StmtKind::While { invariants: Vec::new(), cond, body: Box::new(body) };
        let counting = self.surface_stmt(counting, span)?;
        self.block_of(vec![start, counting], span)
    }
}

/// `condition` with `__write_offset_bytes(p)` (and the read and element forms) of the array `p`
/// read as the offset of the cell `counter`.
fn at_offset(condition: &ast::Expr, array: &str, counter: &str, element: CType, span: Span) -> ast::Expr {
    let mut condition = condition.clone();
    replace_offsets(&mut condition, array, counter, element, span);
    condition
}

fn replace_offsets(expr: &mut ast::Expr, array: &str, counter: &str, element: CType, span: Span) {
    if let ast::ExprKind::Call { function, args } = &expr.kind {
        let names_array =
            matches!(args.as_slice(), [ast::Expr { kind: ast::ExprKind::Name(named), .. }] if named == array);
        let Ok(cell) = ast::Expr::new(ast::ExprKind::Name(counter.to_string()), span) else { return };
        match function.name.as_str() {
            "__write_offset" | "__read_offset" if names_array => {
                *expr = cell;
                return;
            }
            "__write_offset_bytes" | "__read_offset_bytes" if names_array => {
                let size = ast::Expr::int(i64::from(super::size_of(element)), span);
                if let Ok(bytes) = ast::Expr::binary(ast::BinaryOp::Mul, cell, size) {
                    *expr = ast::Expr { span, ..bytes };
                }
                return;
            }
            _ => {}
        }
    }
    for child in expr.kind.children_mut() {
        replace_offsets(child, array, counter, element, span);
    }
}

/// Whether an expression reads memory (an index, or a pointer's target).
fn reads_memory(expr: &ast::Expr) -> bool {
    matches!(
        &expr.kind,
        ast::ExprKind::Index { .. }
            | ast::ExprKind::Unary { op: ast::UnaryOp::Deref, .. }
            | ast::ExprKind::Member { arrow: true, .. }
    ) || expr.kind.children().into_iter().any(reads_memory)
}
