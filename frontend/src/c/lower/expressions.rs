//! Expressions, as C reads them in code and as the specification language reads them in
//! annotations: literals, names, the launch's ids and sizes, unary, binary and conditional
//! operators, conversions between C's types, and the constructs of annotations (quantifiers,
//! `\old`, `Perm`, `\pointer_length`, ...). A lowered expression is a [`Value`]: the surface
//! expression, its C type and the interval it lies in.

use super::barriers::fence_flag_value;
use super::vectors::{self, VectorType};
use super::{size_of, Inlined, Lengths, Lowerer, Place, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType, Integers, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::{Axis, Builtin, MachineInt, Span};
use num_bigint::BigInt;
use std::collections::HashMap;

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

impl Lowerer<'_> {
    /// How integers are read at a place: annotations are mathematical, code as the file asks.
    pub(super) fn integers(&self, place: Place) -> Integers {
        match place {
            Place::Code => self.integers,
            Place::Annotation => Integers::Mathematical,
        }
    }

    /// A lowered value converted to `ty`, as C converts it (code) or as the specification
    /// language compares it (annotations).
    pub(super) fn converted(&mut self, value: Value, ty: CType, place: Place, span: Span) -> Option<surface::Expr> {
        self.convert(value, ty, place, span).map(|value| value.expr)
    }

    /// A value converted to `ty`. A conversion to or from a floating-point type (other than to
    /// its own) gives an arbitrary value of `ty` ([`Lowerer::arbitrary`]).
    pub(super) fn convert(&mut self, value: Value, ty: CType, place: Place, span: Span) -> Option<Value> {
        match (value.ty, ty) {
            (CType::Float(from), CType::Float(to)) if from == to => Some(value),
            (CType::Float(_), _) | (_, CType::Float(_)) => self.arbitrary(ty, vec![value], place, span),
            _ => {
                let integers = self.integers(place);
                self.checked(integers::convert(value, ty, integers, span))
            }
        }
    }

    /// An expression of type `ty` in code: an `int` where a `bool` is wanted holds when it is not
    /// 0, and a `bool` where an `int` is wanted is 1 or 0, as in C.
    pub(super) fn value(&mut self, expr: &ast::Expr, ty: CType, lengths: &Lengths) -> Option<surface::Expr> {
        let value = self.typed(expr, Place::Code, lengths)?;
        self.converted(value, ty, Place::Code, expr.span)
    }

    pub(super) fn condition(&mut self, expr: &ast::Expr, lengths: &Lengths) -> Option<surface::Expr> {
        self.value(expr, CType::Bool, lengths)
    }

    pub(super) fn index(&mut self, index: &ast::Expr, place: Place, lengths: &Lengths) -> Option<surface::Expr> {
        let value = self.typed(index, place, lengths)?;
        let ty = match value.ty {
            CType::Bool => CType::Int(integers::INT),
            ty => ty,
        };
        self.converted(value, ty, place, index.span)
    }

    /// An expression where the surface language decides its type (annotations, array lengths).
    pub(super) fn expr(&mut self, expr: &ast::Expr, place: Place, lengths: &Lengths) -> Option<surface::Expr> {
        self.typed(expr, place, lengths).map(|value| value.expr)
    }

    /// A lowered value with its C type and interval. In annotations the type is only a guess that
    /// the resolver checks, and integers are mathematical.
    pub(super) fn typed(&mut self, expr: &ast::Expr, place: Place, lengths: &Lengths) -> Option<Value> {
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
    pub(super) fn builtin_value(&mut self, builtin: Builtin, ty: MachineInt, span: Span) -> Option<Value> {
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
}

fn axis_named(name: &str) -> Option<Axis> {
    match name {
        "x" => Some(Axis::X),
        "y" => Some(Axis::Y),
        "z" => Some(Axis::Z),
        _ => None,
    }
}
