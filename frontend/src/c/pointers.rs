//! Pointers into arrays, as C code writes them: `a`, `a + k`, `k + a`, `a - k`, `&a[k]` and `&x`
//! of a scalar, and these nested. A pointer is the array it points into and how far from that
//! array's start; there are no pointer variables of their own, so a pointer always names its
//! array (a private scalar is a private array of one cell: [`Storage::Private`]).

use crate::c::ast;
use crate::c::integers::CType;
use crate::c::lower::{Lengths, Lowerer, Place, Storage, Symbol};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

/// Where a pointer expression points.
pub(super) struct Pointer<'e> {
    /// The C name of the array (or helper's pointer parameter) it points into.
    pub(super) array: &'e str,
    pub(super) element: CType,
    /// Where the array's cells are.
    pub(super) storage: Storage,
    /// Where the named array starts in its cells (a helper's pointer parameter may point into
    /// an array), `None` for its start.
    pub(super) base: Option<surface::Expr>,
    /// How far from the named array's start it points, `None` for 0.
    pub(super) index: Option<surface::Expr>,
}

impl<'f> Lowerer<'f> {
    /// Where `expr` points, or a diagnostic naming it `what` (`"this pointer argument"`).
    pub(super) fn points_into<'e>(
        &mut self,
        expr: &'e ast::Expr,
        what: &str,
        lengths: &Lengths,
    ) -> Option<Pointer<'e>> {
        let mut steps = Vec::new();
        let found = self.pointer(expr, &mut steps).and_then(|array| Some((array, self.addressed(array, expr.span)?)));
        let Some((array, Symbol::Array { element, inner_dimensions, storage, offset, vector })) = found else {
            self.unsupported(expr.span, what, "point into an array: `a`, `a + k` or `&a[k]`");
            return None;
        };
        if vector.is_some() {
            self.unsupported(expr.span, "a pointer into an array of vectors", "index the array itself: `v[i].x`");
            return None;
        }
        if !inner_dimensions.is_empty() {
            self.unsupported(
                expr.span,
                "a pointer into an array of several dimensions",
                "index the array itself: `s[i][j]`",
            );
            return None;
        }
        let mut index: Option<surface::Expr> = None;
        for (forward, step) in steps {
            let step = self.index(step, Place::Code, lengths)?;
            index = Some(match (index, forward) {
                (None, true) => step,
                (None, false) => self
                    .node(surface::ExprKind::Unary { op: surface::UnaryOp::Neg, operand: Box::new(step) }, expr.span)?,
                (Some(sum), true) => self.binary(surface::BinaryOp::Add, sum, step, expr.span)?,
                (Some(sum), false) => self.binary(surface::BinaryOp::Sub, sum, step, expr.span)?,
            });
        }
        Some(Pointer { array, element, storage, base: offset, index })
    }

    /// Whether a pointer points to `wanted`s, as `whose` pointer (`"the parameter"`) must; if
    /// not, a diagnostic says so.
    pub(super) fn points_to(&mut self, pointer: &Pointer, wanted: CType, whose: &str, span: Span) -> bool {
        if pointer.element == wanted {
            return true;
        }
        self.diagnostics.push(
            Diagnostic::error(
                Code::TypeMismatch,
                format!(
                    "`{}` holds `{}`, and {whose} points to `{}`",
                    pointer.array,
                    pointer.element.name(),
                    wanted.name()
                ),
                span,
                "another element type",
            )
            .with_help(format!("point {whose} into an array of its element type")),
        );
        false
    }

    /// The cell a pointer points to: where its array's cells are, and the index there.
    pub(super) fn pointed_cell(&mut self, pointer: &Pointer, span: Span) -> Option<(Storage, surface::Expr)> {
        let index = match (&pointer.base, &pointer.index) {
            (Some(base), Some(index)) => self.binary(surface::BinaryOp::Add, base.clone(), index.clone(), span)?,
            (Some(only), None) | (None, Some(only)) => only.clone(),
            (None, None) => self.int(0, span)?,
        };
        Some((pointer.storage.clone(), index))
    }

    /// The kernel's array of cells in memory the threads share, or a diagnostic naming `what`
    /// (`"an atomic operation on private memory"`), which needs it, where they are private.
    pub(super) fn shared_array(
        &mut self,
        storage: Storage,
        what: &str,
        help: &str,
        span: Span,
    ) -> Option<surface::Ident> {
        match storage {
            Storage::Memory(name) => Some(surface::Ident { name, span }),
            Storage::Private(_) => {
                self.unsupported(span, what, help);
                None
            }
        }
    }

    /// The array a pointer expression points into, with the steps it takes from the array's
    /// start, each forward or back.
    fn pointer<'e>(&self, expr: &'e ast::Expr, steps: &mut Vec<(bool, &'e ast::Expr)>) -> Option<&'e str> {
        match &expr.kind {
            ast::ExprKind::Name(name) => self.array_of(name, expr.span).is_some().then_some(name.as_str()),
            ast::ExprKind::Binary { op: op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub), lhs, rhs } => {
                if let Some(array) = self.pointer(lhs, steps) {
                    steps.push((*op == ast::BinaryOp::Add, rhs));
                    return Some(array);
                }
                let array = if *op == ast::BinaryOp::Add { self.pointer(rhs, steps)? } else { return None };
                steps.push((true, lhs));
                Some(array)
            }
            ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => match &operand.kind {
                // `&x` of a scalar, in local or private memory.
                ast::ExprKind::Name(name)
                    if matches!(self.lookup(name), Some(Symbol::Cell { .. } | Symbol::Scalar { .. })) =>
                {
                    Some(name.as_str())
                }
                ast::ExprKind::Index { base, index } => {
                    let array = self.pointer(base, steps)?;
                    steps.push((true, index));
                    Some(array)
                }
                _ => None,
            },
            _ => None,
        }
    }
}
