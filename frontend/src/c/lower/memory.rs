//! The cells that code reads and writes ([`Location`]): an array's element (by rows across its
//! dimensions, counted from where a pointer starts, a component of a vector) in global or local
//! memory, in private memory ([`crate::c::lower::private`]), through the null pointer, or in one of
//! the arrays a pointer variable may point into; their reads and writes, and the cells that
//! permissions are held on.

use super::logs::Access;
use super::{ArrayCell, Lengths, Location, Lowerer, Place, Storage, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

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

impl Lowerer<'_> {
    /// The array `name` denotes, with where it starts in its cells: an array, a helper's pointer
    /// parameter, a pointer variable that points somewhere, or a local scalar's cell.
    pub(super) fn array_of(&self, name: &str, span: Span) -> Option<Symbol> {
        let flat = |element: CType, storage: Storage, offset: Option<surface::Expr>, vector| Symbol::Array {
            element,
            inner_dimensions: Vec::new(),
            storage,
            offset,
            vector,
        };
        match self.lookup(name)? {
            symbol @ Symbol::Array { .. } => Some(symbol.clone()),
            Symbol::Pointer { element, vector, name, targets, tag, .. } if !targets.is_empty() => {
                let offset = surface::Expr::new(surface::ExprKind::Name(name.clone()), span).ok();
                let storage = match tag {
                    Some(tag) if targets.len() > 1 => Storage::Either { tag: tag.clone(), options: targets.clone() },
                    _ => targets[0].clone(),
                };
                Some(flat(*element, storage, offset, *vector))
            }
            Symbol::Cell { element, name } => Some(flat(*element, Storage::Memory(name.clone()), None, None)),
            Symbol::Pointer { .. } | Symbol::Scalar { .. } | Symbol::Vector { .. } => None,
        }
    }

    /// The array `&name` points into: [`Lowerer::array_of`], and a private scalar's one cell.
    pub(super) fn addressed(&self, name: &str, span: Span) -> Option<Symbol> {
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

    /// The value a cell holds, in memory or private.
    pub(super) fn read_location(&mut self, location: Location, place: Place, span: Span) -> Option<Value> {
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
    pub(super) fn null_access(&mut self, index: surface::Expr, span: Span) -> Option<(surface::StmtKind, String)> {
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
    pub(super) fn write_location(
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
    pub(super) fn write_value(
        &mut self,
        location: Location,
        value: surface::Expr,
        span: Span,
    ) -> Option<surface::StmtKind> {
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
    pub(super) fn memory_location(&mut self, location: Location, span: Span) -> Option<ArrayCell> {
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
    pub(super) fn location(&mut self, expr: &ast::Expr, place: Place, lengths: &Lengths) -> Option<Location> {
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
    pub(super) fn location_at(
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
}
