//! Pointers into arrays, as C code writes them: `a`, `a + k`, `k + a`, `a - k`, `&a[k]` and `&x`
//! of a scalar, and these nested; `NULL` (or `0`), which points to no cell ([`Storage::Null`]);
//! and pointer variables. A pointer is the array it points into and how far from that array's
//! start (a private scalar is a private array of one cell: [`Storage::Private`]).
//!
//! A pointer variable is a private variable holding that index, and the arrays it may point
//! into are its targets: each assignment (`p = a;`, `p = c ? a : b;`, `p = NULL;`) adds to them
//! until the variable is first used, after which one that would add a target is refused. So every
//! use is lowered knowing all the arrays the variable may point into, whatever order the code
//! runs in. With several targets, a second variable (`p.target`) holds the position of the one
//! it points into, and an access through it is one case for each ([`Storage::Either`]).

use super::vectors::VectorType;
use super::{Lengths, Location, Lowerer, Place, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{CType, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

/// Where a pointer expression points.
pub(super) struct Pointer<'e> {
    /// The C name of the array (or helper's pointer parameter) it points into.
    pub(super) array: &'e str,
    pub(super) element: CType,
    /// The vectors the array holds, for an array of vectors (whose index counts vectors).
    pub(super) vector: Option<VectorType>,
    /// Where the array's cells are.
    pub(super) storage: Storage,
    /// Where the named array starts in its cells (a helper's pointer parameter may point into
    /// an array), `None` for its start.
    pub(super) base: Option<surface::Expr>,
    /// How far from the named array's start it points, `None` for 0.
    pub(super) index: Option<surface::Expr>,
}

/// Where a pointer value points, as a pointer variable receives it: one of `options` (the one at
/// position `which`, where there are several), at `index`.
struct PointerValue {
    options: Vec<Storage>,
    which: Option<surface::Expr>,
    index: surface::Expr,
}

impl<'f> Lowerer<'f> {
    /// Where `expr` points, or a diagnostic naming it `what` (`"this pointer argument"`).
    pub(super) fn points_into<'e>(
        &mut self,
        expr: &'e ast::Expr,
        what: &str,
        lengths: &Lengths,
    ) -> Option<Pointer<'e>> {
        let pointer = self.points_into_any(expr, what, lengths)?;
        if pointer.vector.is_some() {
            self.unsupported(expr.span, "a pointer into an array of vectors here", "index the array itself: `v[i].x`");
            return None;
        }
        Some(pointer)
    }

    /// Where `expr` points, into an array of scalars or of vectors.
    pub(super) fn points_into_any<'e>(
        &mut self,
        expr: &'e ast::Expr,
        what: &str,
        lengths: &Lengths,
    ) -> Option<Pointer<'e>> {
        if is_null(expr) {
            let element = CType::Int(crate::c::integers::INT);
            return Some(Pointer {
                array: "NULL",
                element,
                vector: None,
                storage: Storage::Null,
                base: None,
                index: None,
            });
        }
        let mut steps = Vec::new();
        let found = self.pointer(expr, &mut steps).and_then(|array| Some((array, self.addressed(array, expr.span)?)));
        if let Some((array, _)) = found {
            self.pointer_used(array);
        }
        let Some((array, Symbol::Array { element, inner_dimensions, storage, offset, vector })) = found else {
            self.unsupported(expr.span, what, "point into an array: `a`, `a + k` or `&a[k]`");
            return None;
        };
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
        Some(Pointer { array, element, vector, storage, base: offset, index })
    }

    /// Whether a pointer points to `wanted`s, as `whose` pointer (`"the parameter"`) must; if
    /// not, a diagnostic says so.
    pub(super) fn points_to(&mut self, pointer: &Pointer, wanted: CType, whose: &str, span: Span) -> bool {
        self.points_to_any(pointer, wanted, None, whose, span)
    }

    /// Whether a pointer points to `wanted`s, or to vectors of them (`vector`).
    fn points_to_any(
        &mut self,
        pointer: &Pointer,
        wanted: CType,
        vector: Option<VectorType>,
        whose: &str,
        span: Span,
    ) -> bool {
        if (pointer.element == wanted && pointer.vector == vector) || pointer.storage == Storage::Null {
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
    /// (`"an atomic operation on private memory"`), which needs it, where they are elsewhere.
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
            Storage::Null | Storage::Either { .. } => {
                self.unsupported(
                    span,
                    "an atomic operation through a pointer that may be null or point into several arrays",
                    "name the array: `atomic_add(&a[i], v)`",
                );
                None
            }
        }
    }

    /// A variable's pointer is used (read, passed, indexed): its targets are now all it may have.
    pub(super) fn pointer_used(&mut self, name: &str) {
        if let Some(Symbol::Pointer { element, vector, name: variable, targets, tag, used: false }) =
            self.lookup(name).cloned()
        {
            self.redeclare(name, Symbol::Pointer { element, vector, name: variable, targets, tag, used: true });
        }
    }

    /// The cell at `index` of `storage`, of `element`s.
    pub(super) fn location_in(storage: Storage, index: surface::Expr, element: CType, span: Span) -> Location {
        match storage {
            Storage::Memory(name) => Location::Memory((surface::Ident { name, span }, index, element)),
            Storage::Private(cells) => Location::Private(cells, index, element),
            Storage::Null => Location::Null(index, element),
            Storage::Either { tag, options } => Location::Either {
                tag,
                options: options
                    .into_iter()
                    .map(|option| Self::location_in(option, index.clone(), element, span))
                    .collect(),
            },
        }
    }

    /// `T *p = e;` (or `T *p;`): the private variable `p` holding the index it points to, and, if
    /// it may point into several arrays (the function assigns it, or `e` may), `p.target`.
    pub(super) fn pointer_variable(
        &mut self,
        declarator: &ast::Declarator,
        element: CType,
        vector: Option<VectorType>,
        init: Option<&ast::Expr>,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let c_name = &declarator.name.name;
        let value = match init {
            Some(init) => Some(self.pointer_value(init, element, vector, lengths)?),
            None => None,
        };
        let name = self.local_name(c_name);
        let span = declarator.name.span;
        let several = value.as_ref().is_some_and(|value| value.options.len() > 1);
        let tag = (several || self.assigned.contains(c_name)).then(|| format!("{name}.target"));
        let mut stmts = Vec::new();
        for variable in std::iter::once(&name).chain(&tag) {
            let ident = surface::Ident { name: variable.clone(), span };
            let kind = surface::StmtKind::Declare {
                ty: surface::TypeName::Int,
                ty_span: declarator.span,
                name: ident,
                init: None,
            };
            stmts.push(self.surface_stmt(kind, declarator.span)?);
        }
        self.declare(c_name, Symbol::Pointer { element, vector, name, targets: Vec::new(), tag, used: false });
        if let Some(value) = value {
            stmts.extend(self.point(c_name, value, declarator.span)?);
        }
        Some(stmts)
    }

    /// Where a pointer value points, for a pointer variable of `element`s.
    fn pointer_value(
        &mut self,
        value: &ast::Expr,
        element: CType,
        vector: Option<VectorType>,
        lengths: &Lengths,
    ) -> Option<PointerValue> {
        if let ast::ExprKind::Cond { cond, then_value, else_value } = &value.kind {
            let cond = self.condition(cond, lengths)?;
            let then_value =
                self.conditionally(|lowerer| lowerer.pointer_value(then_value, element, vector, lengths))?;
            let else_value =
                self.conditionally(|lowerer| lowerer.pointer_value(else_value, element, vector, lengths))?;
            let mut options = then_value.options.clone();
            for option in &else_value.options {
                if !options.contains(option) {
                    options.push(option.clone());
                }
            }
            let then_which = self.position_in(&options, &then_value, value.span)?;
            let else_which = self.position_in(&options, &else_value, value.span)?;
            let pick = |lowerer: &mut Lowerer, then_value, else_value| {
                let kind = surface::ExprKind::Cond {
                    cond: Box::new(cond.clone()),
                    then_value: Box::new(then_value),
                    else_value: Box::new(else_value),
                };
                lowerer.node(kind, value.span)
            };
            let which = match options.len() {
                1 => None,
                _ => Some(pick(self, then_which, else_which)?),
            };
            let index = pick(self, then_value.index, else_value.index)?;
            return Some(PointerValue { options, which, index });
        }
        // A helper's result: the variable that receives it.
        let returned = self.returned_pointer(value, lengths)?.map(|result| ast::Expr {
            kind: ast::ExprKind::Name(result),
            span: value.span,
            depth: 1,
        });
        let value = returned.as_ref().unwrap_or(value);
        let pointer = self.points_into_any(value, "this pointer value", lengths)?;
        if !self.points_to_any(&pointer, element, vector, "the pointer", value.span) {
            return None;
        }
        self.value_of(&pointer, value.span)
    }

    /// A pointer as a [`PointerValue`].
    fn value_of(&mut self, pointer: &Pointer, span: Span) -> Option<PointerValue> {
        let (storage, index) = self.pointed_cell(pointer, span)?;
        Some(match storage {
            Storage::Either { tag, options } => {
                let which = self.node(surface::ExprKind::Name(tag), span)?;
                PointerValue { options, which: Some(which), index }
            }
            storage => PointerValue { options: vec![storage], which: None, index },
        })
    }

    /// The position in `options` of the one `value` points into (one of `options`).
    fn position_in(&mut self, options: &[Storage], value: &PointerValue, span: Span) -> Option<surface::Expr> {
        let position = |option: &Storage| options.iter().position(|known| known == option).unwrap_or_default();
        let mut picked = self.int(position(value.options.last()?), span)?;
        let Some(which) = &value.which else { return Some(picked) };
        for (k, option) in value.options.iter().enumerate().rev().skip(1) {
            let k = self.int(k, span)?;
            let cond = self.binary(surface::BinaryOp::Eq, which.clone(), k, span)?;
            let then_value = self.int(position(option), span)?;
            let kind = surface::ExprKind::Cond {
                cond: Box::new(cond),
                then_value: Box::new(then_value),
                else_value: Box::new(picked),
            };
            picked = self.node(kind, span)?;
        }
        Some(picked)
    }

    /// `p = e;` to a pointer variable: it now points where `e` does.
    pub(super) fn pointer_assignment(
        &mut self,
        name: &str,
        assigned: &ast::Expr,
        lengths: &Lengths,
    ) -> Option<surface::StmtKind> {
        let Some(Symbol::Pointer { element, vector, .. }) = self.lookup(name).cloned() else { return None };
        let value = self.pointer_value(assigned, element, vector, lengths)?;
        let stmts = self.point(name, value, assigned.span)?;
        Some(surface::StmtKind::Block(surface::Block { stmts, span: assigned.span }))
    }

    /// The assignments that make the pointer variable `name` point where `value` does, its
    /// targets grown to hold `value`'s (or a diagnostic, where they cannot grow).
    fn point(&mut self, name: &str, value: PointerValue, span: Span) -> Option<Vec<surface::Stmt>> {
        let Some(Symbol::Pointer { element, vector, name: variable, mut targets, tag, used }) =
            self.lookup(name).cloned()
        else {
            return None;
        };
        let new: Vec<Storage> = value.options.iter().filter(|option| !targets.contains(option)).cloned().collect();
        if !new.is_empty() && (used || (tag.is_none() && targets.len() + new.len() > 1)) {
            let when = if used { " after it is used" } else { "" };
            self.unsupported(
                span,
                format!("the pointer `{name}` pointing into another array{when}"),
                "assign every array a pointer may point into before the pointer is first used",
            );
            return None;
        }
        targets.extend(new);
        let mut stmts = Vec::new();
        if let Some(tag) = &tag {
            let which = self.position_in(&targets, &value, span)?;
            let kind = surface::StmtKind::Assign { target: surface::Ident { name: tag.clone(), span }, value: which };
            stmts.push(self.surface_stmt(kind, span)?);
        }
        let target = surface::Ident { name: variable.clone(), span };
        stmts.push(self.surface_stmt(surface::StmtKind::Assign { target, value: value.index }, span)?);
        self.redeclare(name, Symbol::Pointer { element, vector, name: variable, targets, tag, used });
        Some(stmts)
    }

    /// `p == q` or `p != q` (`equal` false) of pointers: whether they point into the same array
    /// at the same index (the null pointer is equal to itself only, `NULL + k` aside).
    pub(super) fn pointer_comparison(
        &mut self,
        equal: bool,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        lengths: &Lengths,
    ) -> Option<Value> {
        let (lhs, rhs) = self.compared_pointers(lhs, rhs, span, lengths)?;
        let same = self.same_array(&lhs, &rhs, span)?;
        let at = self.binary(surface::BinaryOp::Eq, lhs.index, rhs.index, span)?;
        let same = self.binary(surface::BinaryOp::And, same, at, span)?;
        let expr = match equal {
            true => same,
            false => {
                self.node(surface::ExprKind::Unary { op: surface::UnaryOp::Not, operand: Box::new(same) }, span)?
            }
        };
        Some(Value { expr, ty: CType::Bool, interval: CType::Bool.interval() })
    }

    /// `p < q` (`<=`, `>`, `>=`) of pointers: their indexes compared where they point into the
    /// same array; C leaves the order of pointers into different arrays undefined, so there the
    /// result is arbitrary.
    pub(super) fn pointer_order(
        &mut self,
        order: surface::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        if place == Place::Annotation {
            self.unsupported(
                span,
                format!("`{}` of pointers in an annotation", order.symbol()),
                "compare where they point: `p == a + k`",
            );
            return None;
        }
        let (lhs, rhs) = self.compared_pointers(lhs, rhs, span, lengths)?;
        let same = self.same_array(&lhs, &rhs, span)?;
        let ordered = self.binary(order, lhs.index, rhs.index, span)?;
        let otherwise = self.arbitrary(CType::Bool, Vec::new(), place, span)?;
        let kind = surface::ExprKind::Cond {
            cond: Box::new(same),
            then_value: Box::new(ordered),
            else_value: Box::new(otherwise.expr),
        };
        Some(Value { expr: self.node(kind, span)?, ty: CType::Bool, interval: CType::Bool.interval() })
    }

    /// The two sides of a comparison of pointers, as [`PointerValue`]s.
    fn compared_pointers(
        &mut self,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        lengths: &Lengths,
    ) -> Option<(PointerValue, PointerValue)> {
        let lhs = self.points_into(lhs, "this pointer in a comparison", lengths)?;
        let lhs = self.value_of(&lhs, span)?;
        let rhs = self.points_into(rhs, "this pointer in a comparison", lengths)?;
        Some((lhs, self.value_of(&rhs, span)?))
    }

    /// Whether two pointers point into the same array.
    fn same_array(&mut self, lhs: &PointerValue, rhs: &PointerValue, span: Span) -> Option<surface::Expr> {
        let mut same = self.node(surface::ExprKind::Bool(false), span)?;
        for (i, left) in lhs.options.iter().enumerate() {
            for (j, right) in rhs.options.iter().enumerate() {
                if left != right {
                    continue;
                }
                let mut pair = self.node(surface::ExprKind::Bool(true), span)?;
                for (which, k) in [(&lhs.which, i), (&rhs.which, j)] {
                    if let Some(which) = which {
                        let k = self.int(k, span)?;
                        let picked = self.binary(surface::BinaryOp::Eq, which.clone(), k, span)?;
                        pair = self.binary(surface::BinaryOp::And, pair, picked, span)?;
                    }
                }
                same = self.binary(surface::BinaryOp::Or, same, pair, span)?;
            }
        }
        Some(same)
    }

    /// Whether an expression is a pointer, for a comparison: `NULL`, an array, a pointer
    /// variable, `&x`, a cast to a pointer type, or pointer arithmetic on one.
    pub(super) fn is_pointer(&self, expr: &ast::Expr) -> bool {
        match &expr.kind {
            ast::ExprKind::Name(name) if name == "NULL" => true,
            ast::ExprKind::Name(name) => {
                matches!(self.lookup(name), Some(Symbol::Array { .. } | Symbol::Pointer { .. }))
            }
            ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, .. } => true,
            ast::ExprKind::Cast { pointers, .. } => *pointers > 0,
            ast::ExprKind::Binary { op: ast::BinaryOp::Add | ast::BinaryOp::Sub, lhs, rhs } => {
                self.is_pointer(lhs) || self.is_pointer(rhs)
            }
            _ => false,
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

/// Whether an expression is the null pointer: `NULL`, `0`, or `0` cast to a pointer type.
fn is_null(expr: &ast::Expr) -> bool {
    match &expr.kind {
        ast::ExprKind::Name(name) => name == "NULL",
        ast::ExprKind::Int { value, .. } => value.sign() == num_bigint::Sign::NoSign,
        ast::ExprKind::Cast { pointers, operand, .. } => *pointers > 0 && is_null(operand),
        _ => false,
    }
}
