//! OpenCL C's vector types (`float4`, `uint2`, `char16`, ...) and CUDA's: a vector is its
//! components, and lockstep reads it one component at a time.
//!
//! - A private vector (a variable or a kernel parameter) is one private scalar of the surface
//!   kernel per component, named `v.s0`, `v.s1`, ... ([`Symbol::Vector`]).
//! - An array of vectors is an array of their components, each vector taking [`VectorType::stride`]
//!   cells: its width, and 4 for a 3-vector, which OpenCL lays out in the bytes of a 4-vector. So a
//!   race on one component is a race on one cell, and `\pointer_length(a)` counts vectors.
//! - An expression of vector type is lowered component by component: [`Lowerer::project`] rewrites
//!   it into the C expression of its `k`-th component (`(a + b).y` is `a.y + b.y`, the literal
//!   `(int4)(1, v.xy, 2)` is its `k`-th scalar, a scalar operand stands for every component), and
//!   the scalar lowering reads that with C's meaning: conversions, wrap-around, overflow checks and
//!   arbitrary floating-point values are those of scalars. A comparison of vectors is -1 (true)
//!   or 0 in each component, and `select` and `shuffle` pick components as OpenCL says.
//! - An assignment to a vector computes every component into a temporary before it writes any,
//!   since `v = v.yx` swaps. A call of a prototype that returns a vector gives arbitrary components.
//!
//! A helper's vector parameter receives its argument's components. Vectors of vectors, pointers
//! into arrays of vectors, and helper functions that return vectors are refused by name.

use super::images;
use super::{Lengths, Lowerer, Place, Symbol};
use crate::c::ast;
use crate::c::integers::{self, CType};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::{MachineInt, Span};
use num_bigint::BigInt;
use std::collections::HashMap;

/// The type of a vector: its components' type and how many there are (2, 3, 4, 8 or 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct VectorType {
    pub(super) element: CType,
    pub(super) width: u32,
}

impl VectorType {
    /// How many cells of an array one vector takes: a 3-vector takes 4, as in OpenCL.
    pub(super) fn stride(self) -> u32 {
        if self.width == 3 {
            4
        } else {
            self.width
        }
    }

    /// The type of a comparison of two such vectors: signed integers of the components' size.
    fn comparison(self) -> VectorType {
        let bits = match self.element {
            CType::Bool => 8,
            CType::Int(MachineInt { bits, .. }) | CType::Float(bits) => bits.max(8),
        };
        VectorType { element: CType::Int(MachineInt { bits, signed: true }), width: self.width }
    }

    /// C's name of the type: `float4`.
    pub(super) fn name(self) -> String {
        format!("{}{}", self.element.name(), self.width)
    }
}

/// The components a swizzle selects from a vector of `width` components: `.x`, `.wzyx`, `.s3`,
/// `.s01`, `.lo`, `.hi`, `.even`, `.odd` (and `.rgba`); `None` if it is not one.
fn swizzle(field: &str, width: u32) -> Option<Vec<u32>> {
    let halves = |from: u32, step: u32| -> Option<Vec<u32>> {
        // The halves of a 3-vector take a fourth component, which it does not have.
        width.is_multiple_of(2).then(|| (from..width).step_by(step as usize).collect())
    };
    let selected: Vec<u32> = match field {
        "lo" => halves(0, 1)?.into_iter().take(width as usize / 2).collect(),
        "hi" => halves(width / 2, 1)?,
        "even" => halves(0, 2)?,
        "odd" => halves(1, 2)?,
        _ => {
            let letters = |set: &str| -> Option<Vec<u32>> {
                field.chars().map(|c| set.find(c).map(|index| index as u32)).collect()
            };
            let hex = field.strip_prefix(['s', 'S']).filter(|digits| !digits.is_empty());
            match hex {
                Some(digits) => digits.chars().map(|c| c.to_digit(16)).collect::<Option<Vec<u32>>>()?,
                None => letters("xyzw").or_else(|| letters("rgba"))?,
            }
        }
    };
    let fits = selected.iter().all(|&component| component < width);
    (fits && [1, 2, 3, 4, 8, 16].contains(&selected.len())).then_some(selected)
}

/// The name of component `k` in a swizzle, for the expressions [`Lowerer::project`] builds.
fn component_field(k: u32) -> String {
    format!("s{k:x}")
}

/// The surface name of component `k` of the private vector `base`: `v.s0`.
pub(in crate::c) fn component_name(base: &str, k: u32) -> String {
    format!("{base}.{}", component_field(k))
}

/// The arrays of vectors of each kernel of a C file that parses, by kernel name: each array's
/// name with the cells one vector takes ([`VectorType::stride`]), for the kernel's pointer
/// parameters and the local arrays its body declares at its top level.
pub fn array_strides(text: &str, dialect: crate::c::Dialect) -> HashMap<String, HashMap<String, u32>> {
    let mut strides = HashMap::new();
    let Some(tree) = crate::c::parse(text, dialect, &crate::c::clang::Options::default()).0 else { return strides };
    let (tree, _) = crate::c::structs::flatten(&tree);
    for item in &tree.items {
        let ast::Item::Function(function) = item else { continue };
        if !function.specifiers.has(ast::Qualifier::Kernel) {
            continue;
        }
        let mut arrays = HashMap::new();
        let mut add = |specifiers: &ast::Specifiers, declarator: &ast::Declarator| {
            let is_array = declarator.pointers > 0 || !declarator.dimensions.is_empty();
            let vector = scalar_of(&specifiers.ty).map(|element| VectorType { element, width: specifiers.ty.width });
            if let Some(vector) = vector.filter(|vector| is_array && vector.width > 1) {
                arrays.insert(declarator.name.name.clone(), vector.stride());
            }
        };
        for param in &function.params {
            add(&param.specifiers, &param.declarator);
        }
        for stmt in function.body.iter().flat_map(|body| &body.stmts) {
            if let ast::StmtKind::Declaration(declaration) = &stmt.kind {
                for (declarator, _) in &declaration.declarators {
                    add(&declaration.specifiers, declarator);
                }
            }
        }
        strides.insert(function.name.name.clone(), arrays);
    }
    strides
}

/// How C names component `k` of a vector in an annotation: `x`, `y`, `z`, `w`, then `s4`, ...
pub fn component_in_annotation(k: u32) -> String {
    match k {
        0..4 => ["x", "y", "z", "w"][k as usize].to_string(),
        _ => component_field(k),
    }
}

/// OpenCL's geometric functions that take vectors and give a scalar.
const VECTORS_TO_SCALARS: &[&str] = &["dot", "length", "distance", "fast_length", "fast_distance"];

/// The OpenCL built-ins that apply to each component of their vector arguments alike.
fn is_componentwise(name: &str) -> bool {
    matches!(name, "min" | "max" | "abs" | "add_sat" | "sub_sat") || super::floats::is_float_function(name)
}

impl<'f> Lowerer<'f> {
    /// The vector type a type specifier names, if it is one (its components' type checked).
    pub(super) fn vector_type(&mut self, ty: &ast::TypeSpec) -> Option<Option<VectorType>> {
        if ty.width == 1 {
            return Some(None);
        }
        let element = self.scalar_type(ty)?;
        Some(Some(VectorType { element, width: ty.width }))
    }

    /// The vector type of an expression, or `None` for a scalar. It looks only at the
    /// expression's shape and the names it uses; the lowering checks the rest.
    pub(super) fn shape(&self, expr: &ast::Expr) -> Option<VectorType> {
        match &expr.kind {
            ast::ExprKind::Name(name) => match self.lookup(name)? {
                Symbol::Vector { ty, .. } => Some(*ty),
                _ => None,
            },
            ast::ExprKind::Index { .. } | ast::ExprKind::Unary { op: ast::UnaryOp::Deref, .. } => {
                let (root, indices) = indexed_root(expr);
                match self.array_of(root, expr.span)? {
                    Symbol::Array { vector: Some(ty), inner_dimensions, .. }
                        if indices == inner_dimensions.len() + 1 =>
                    {
                        Some(ty)
                    }
                    _ => None,
                }
            }
            ast::ExprKind::Member { base, field, arrow: false } => {
                let ty = self.shape(base)?;
                let selected = swizzle(&field.name, ty.width)?;
                (selected.len() > 1).then_some(VectorType { width: selected.len() as u32, ..ty })
            }
            ast::ExprKind::Cast { ty, pointers: 0, .. } if ty.width > 1 => {
                let element = scalar_of(ty)?;
                Some(VectorType { element, width: ty.width })
            }
            ast::ExprKind::Unary { op, operand } => {
                let ty = self.shape(operand)?;
                match op {
                    ast::UnaryOp::Not => Some(ty.comparison()),
                    _ => Some(ty),
                }
            }
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let ty = self.shape(lhs).or_else(|| self.shape(rhs))?;
                use ast::BinaryOp as C;
                match op {
                    C::Lt | C::Le | C::Gt | C::Ge | C::Eq | C::Ne | C::And | C::Or => Some(ty.comparison()),
                    _ => Some(ty),
                }
            }
            ast::ExprKind::Cond { then_value, else_value, .. } => {
                self.shape(then_value).or_else(|| self.shape(else_value))
            }
            ast::ExprKind::Call { function, args } => self.call_shape(&function.name, args),
            _ => None,
        }
    }

    fn call_shape(&self, name: &str, args: &[ast::Expr]) -> Option<VectorType> {
        if let Some(function) = self.prototypes.get(name) {
            let ty = &function.specifiers.ty;
            return (ty.width > 1 && function.pointers == 0)
                .then(|| Some(VectorType { element: scalar_of(ty)?, width: ty.width }))
                .flatten();
        }
        if self.helpers.contains_key(name) {
            return None;
        }
        match name {
            "select" => self.shape(args.first()?),
            "shuffle" | "shuffle2" => {
                let source = self.shape(args.first()?)?;
                let mask = self.shape(args.last()?)?;
                Some(VectorType { width: mask.width, ..source })
            }
            _ if vload_width(name).is_some() => {
                let width = vload_width(name)?;
                let element = self.scalar_element(args.get(1)?)?;
                Some(VectorType { element, width })
            }
            _ if images::read_element(name).is_some() => {
                Some(VectorType { element: images::read_element(name)?, width: 4 })
            }
            _ if name.starts_with("convert_") => {
                let ty = conversion_type(name)?;
                (ty.width > 1).then_some(ty)
            }
            _ if made_type(name).is_some() => made_type(name),
            _ if is_componentwise(name) && !VECTORS_TO_SCALARS.contains(&name) => {
                args.iter().find_map(|arg| self.shape(arg))
            }
            _ => None,
        }
    }

    /// The C expression of component `k` of `expr`, whose type is `ty` (a scalar stands for each
    /// of its components). A private vector's or an array's component is `e.sK`, which
    /// [`Lowerer::typed`] and [`Lowerer::location`] read.
    pub(super) fn project(&mut self, expr: &ast::Expr, k: u32) -> Option<ast::Expr> {
        let Some(ty) = self.shape(expr) else { return Some(expr.clone()) };
        let span = expr.span;
        let build = |lowerer: &mut Self, kind: ast::ExprKind| lowerer.checked(ast::Expr::new(kind, span));
        match &expr.kind {
            ast::ExprKind::Name(_)
            | ast::ExprKind::Index { .. }
            | ast::ExprKind::Unary { op: ast::UnaryOp::Deref, .. } => {
                let field = surface::Ident { name: component_field(k), span };
                build(self, ast::ExprKind::Member { base: Box::new(expr.clone()), field, arrow: false })
            }
            ast::ExprKind::Member { base, field, .. } => {
                let width = self.shape(base).map_or(1, |base| base.width);
                let selected = swizzle(&field.name, width)?;
                self.project(base, selected[k as usize])
            }
            ast::ExprKind::Cast { ty: cast, operand, .. } => {
                if let ast::ExprKind::InitList(items) = &operand.kind {
                    if items.len() == 1 && self.shape(&items[0]).is_none() {
                        // C fills the rest of `(int2){1}` with zeros, where `(int2)(1)` repeats
                        // the value.
                        self.unsupported(
                            operand.span,
                            "a vector's compound literal with one value",
                            "write every component: `(int2){1, 0}`, or `(int2)(1)` for the value in each",
                        );
                        return None;
                    }
                }
                let scalar = ast::TypeSpec { width: 1, ..cast.clone() };
                let mut parts = Vec::new();
                flatten_commas(operand, &mut parts);
                let component = self.literal_component(&parts, operand.span, ty, k)?;
                build(self, ast::ExprKind::Cast { ty: scalar, pointers: 0, operand: Box::new(component) })
            }
            ast::ExprKind::Unary { op: ast::UnaryOp::Not, operand } => {
                let operand = self.project(operand, k)?;
                let test = build(self, ast::ExprKind::Unary { op: ast::UnaryOp::Not, operand: Box::new(operand) })?;
                self.mask_of(test, span)
            }
            ast::ExprKind::Unary { op, operand } => {
                let operand = self.project(operand, k)?;
                let component = build(self, ast::ExprKind::Unary { op: *op, operand: Box::new(operand) })?;
                self.in_element_type(component, ty, span)
            }
            ast::ExprKind::Binary { op, lhs, rhs } => {
                let lhs = self.project(lhs, k)?;
                let rhs = self.project(rhs, k)?;
                let component = self.checked(ast::Expr::binary(*op, lhs, rhs))?;
                use ast::BinaryOp as C;
                match op {
                    C::Lt | C::Le | C::Gt | C::Ge | C::Eq | C::Ne | C::And | C::Or => self.mask_of(component, span),
                    _ => self.in_element_type(component, ty, span),
                }
            }
            ast::ExprKind::Cond { cond, then_value, else_value } => {
                if self.shape(cond).is_some() {
                    self.unsupported(cond.span, "a vector condition of `?:`", "use `select(a, b, c)`");
                    return None;
                }
                let then_value = self.project(then_value, k)?;
                let else_value = self.project(else_value, k)?;
                build(
                    self,
                    ast::ExprKind::Cond {
                        cond: cond.clone(),
                        then_value: Box::new(then_value),
                        else_value: Box::new(else_value),
                    },
                )
            }
            ast::ExprKind::Call { function, args } => self.project_call(function, args, ty, k, span),
            _ => {
                self.unreadable_vector(span);
                None
            }
        }
    }

    fn project_call(
        &mut self,
        function: &surface::Ident,
        args: &[ast::Expr],
        ty: VectorType,
        k: u32,
        span: Span,
    ) -> Option<ast::Expr> {
        let name = function.name.as_str();
        let build = |lowerer: &mut Self, kind: ast::ExprKind| lowerer.checked(ast::Expr::new(kind, span));
        if images::read_element(name).is_some() {
            // Each component is any value: the image, sampler and coordinates do not matter.
            return build(self, ast::ExprKind::Call { function: function.clone(), args: Vec::new() });
        }
        if self.prototypes.contains_key(name) {
            // Bound to a temporary before any component is taken: see `bind_calls`.
            self.unreadable_vector(span);
            return None;
        }
        match name {
            "select" => {
                // `select(a, b, c)`: b's component where c's has its top bit set, a's elsewhere.
                let [a, b, c] = args else {
                    self.argument_count(name, 3, args.len(), span);
                    return None;
                };
                let (a, b, c) = (self.project(a, k)?, self.project(b, k)?, self.project(c, k)?);
                let test = match self.shape(&args[2]).map(|mask| mask.element) {
                    // The top bit: negative, or at least 2^(N-1) for an unsigned mask.
                    Some(CType::Int(MachineInt { bits, signed: false })) => {
                        let top = ast::Expr {
                            kind: ast::ExprKind::Int { value: BigInt::from(1) << (bits - 1), unsigned: true },
                            span,
                            depth: 1,
                        };
                        self.checked(ast::Expr::binary(ast::BinaryOp::Ge, c, top))?
                    }
                    Some(_) => self.checked(ast::Expr::binary(ast::BinaryOp::Lt, c, ast::Expr::int(0, span)))?,
                    None => c,
                };
                build(
                    self,
                    ast::ExprKind::Cond { cond: Box::new(test), then_value: Box::new(b), else_value: Box::new(a) },
                )
            }
            "shuffle" | "shuffle2" => {
                // Component `k` is the source's component the mask's `k`-th names, modulo
                // the source's width (both sources' together for `shuffle2`).
                let wanted = if name == "shuffle" { 2 } else { 3 };
                if args.len() != wanted {
                    self.argument_count(name, wanted, args.len(), span);
                    return None;
                }
                let sources = &args[..wanted - 1];
                let mut components = Vec::new();
                for source in sources {
                    let Some(source_type) = self.shape(source) else {
                        self.type_mismatch(source.span, format!("`{name}` takes vectors"));
                        return None;
                    };
                    for component in 0..source_type.width {
                        components.push(self.project(source, component)?);
                    }
                }
                let mask = self.project(&args[wanted - 1], k)?;
                let count = ast::Expr::int(components.len(), span);
                let selector = self.checked(ast::Expr::binary(ast::BinaryOp::Rem, mask, count))?;
                let mut chosen = components.pop()?;
                for (index, component) in components.into_iter().enumerate().rev() {
                    let test = self.checked(ast::Expr::binary(
                        ast::BinaryOp::Eq,
                        selector.clone(),
                        ast::Expr::int(index, span),
                    ))?;
                    chosen = build(
                        self,
                        ast::ExprKind::Cond {
                            cond: Box::new(test),
                            then_value: Box::new(component),
                            else_value: Box::new(chosen),
                        },
                    )?;
                }
                Some(chosen)
            }
            _ if vload_width(name).is_some() => {
                // `vloadN(i, p)` is `p[i * N + k]`.
                let [offset, pointer] = args else {
                    self.argument_count(name, 2, args.len(), span);
                    return None;
                };
                let cell = self.vload_cell(offset, pointer, ty.width, k, span)?;
                Some(cell)
            }
            // CUDA's `make_int2(a, b)`.
            _ if made_type(name).is_some() => {
                let parts: Vec<&ast::Expr> = args.iter().collect();
                let component = self.literal_component(&parts, span, ty, k)?;
                let scalar = type_spec_of(ty.element, span);
                build(self, ast::ExprKind::Cast { ty: scalar, pointers: 0, operand: Box::new(component) })
            }
            _ if name.starts_with("convert_") => {
                let [operand] = args else {
                    self.argument_count(name, 1, args.len(), span);
                    return None;
                };
                let operand = self.project(operand, k)?;
                let scalar = type_spec_of(ty.element, span);
                build(self, ast::ExprKind::Cast { ty: scalar, pointers: 0, operand: Box::new(operand) })
            }
            _ => {
                let args = args.iter().map(|arg| self.project(arg, k)).collect::<Option<Vec<_>>>()?;
                build(self, ast::ExprKind::Call { function: function.clone(), args })
            }
        }
    }

    /// `p[offset * width + k]`, a component of `vloadN(offset, p)` or `vstoreN(v, offset, p)`.
    fn vload_cell(
        &mut self,
        offset: &ast::Expr,
        pointer: &ast::Expr,
        width: u32,
        k: u32,
        span: Span,
    ) -> Option<ast::Expr> {
        let scaled =
            self.checked(ast::Expr::binary(ast::BinaryOp::Mul, offset.clone(), ast::Expr::int(width, span)))?;
        let index = self.checked(ast::Expr::binary(ast::BinaryOp::Add, scaled, ast::Expr::int(k, span)))?;
        self.checked(ast::Expr::new(
            ast::ExprKind::Index { base: Box::new(pointer.clone()), index: Box::new(index) },
            span,
        ))
    }

    /// A component of vector arithmetic, in the vector's component type: OpenCL does not promote
    /// the components of a `char4` or `short2` to `int` (so a `uchar4` sum wraps at 256, and a
    /// comparison of it sees the wrapped value), where C promotes scalars.
    fn in_element_type(&mut self, component: ast::Expr, ty: VectorType, span: Span) -> Option<ast::Expr> {
        match ty.element {
            CType::Int(MachineInt { bits, .. }) if bits < 32 => {
                let cast = ast::ExprKind::Cast {
                    ty: type_spec_of(ty.element, span),
                    pointers: 0,
                    operand: Box::new(component),
                };
                self.checked(ast::Expr::new(cast, span))
            }
            _ => Some(component),
        }
    }

    /// `test ? -1 : 0`: a component of a vector comparison.
    fn mask_of(&mut self, test: ast::Expr, span: Span) -> Option<ast::Expr> {
        self.checked(ast::Expr::new(
            ast::ExprKind::Cond {
                cond: Box::new(test),
                then_value: Box::new(ast::Expr::int(-1, span)),
                else_value: Box::new(ast::Expr::int(0, span)),
            },
            span,
        ))
    }

    /// Component `k` of a vector literal `(float4)(a, b, ...)`: its parts in order, each a scalar
    /// or a vector's components, as many as the type has, or one scalar for all of them.
    fn literal_component(&mut self, parts: &[&ast::Expr], span: Span, ty: VectorType, k: u32) -> Option<ast::Expr> {
        let mut components = Vec::new();
        for part in parts {
            match self.shape(part) {
                Some(part_type) => {
                    for component in 0..part_type.width {
                        components.push(self.project(part, component)?);
                    }
                }
                None => components.push((*part).clone()),
            }
        }
        if components.len() == 1 && parts.len() == 1 && self.shape(parts[0]).is_none() {
            return components.pop();
        }
        if components.len() != ty.width as usize {
            self.type_mismatch(
                span,
                format!("`({})(...)` needs {} components, and this gives {}", ty.name(), ty.width, components.len()),
            );
            return None;
        }
        if k >= ty.width {
            // A wider vector's component asked of this one: no component of C's.
            self.type_mismatch(span, format!("a `{}` has no component {k}", ty.name()));
            return None;
        }
        Some(components.swap_remove(k as usize))
    }

    fn type_mismatch(&mut self, span: Span, message: String) {
        self.diagnostics.push(
            Diagnostic::error(Code::TypeMismatch, message, span, "wrong vector shape")
                .with_help("vectors combine component by component; a scalar stands for every component"),
        );
    }

    fn unreadable_vector(&mut self, span: Span) {
        self.unsupported(
            span,
            "this vector expression",
            "compute the vector into a variable first, or write it one component at a time",
        );
    }

    /// The `width` components of `expr`, which has type `ty` or is a scalar (standing for each
    /// component): with calls of prototypes that return vectors computed once, into temporaries.
    pub(super) fn components(&mut self, expr: &ast::Expr, ty: VectorType, lengths: &Lengths) -> Option<Vec<ast::Expr>> {
        let expr = self.bind_calls(expr, lengths)?;
        match self.shape(&expr) {
            Some(found) if found.width != ty.width => {
                self.type_mismatch(
                    expr.span,
                    format!(
                        "a vector of {} components (`{}`) where one of {} is wanted",
                        found.width,
                        found.name(),
                        ty.width
                    ),
                );
                None
            }
            _ => (0..ty.width).map(|k| self.project(&expr, k)).collect(),
        }
    }

    /// `expr` with each call of a prototype that returns a vector replaced by a private vector
    /// holding its arbitrary components (its arguments evaluated once, with the first).
    fn bind_calls(&mut self, expr: &ast::Expr, lengths: &Lengths) -> Option<ast::Expr> {
        if !self.has_vector_call(expr) {
            return Some(expr.clone());
        }
        let span = expr.span;
        let bind = |lowerer: &mut Self, inner: &ast::Expr| lowerer.bind_calls(inner, lengths).map(Box::new);
        let kind = match &expr.kind {
            ast::ExprKind::Call { function, args } if self.prototypes.contains_key(function.name.as_str()) => {
                let ty = self.shape(expr)?;
                if self.before.is_none() {
                    self.unsupported(
                        span,
                        format!("a call of `{}`, declared without a body, in a loop's condition", function.name),
                        "call it in a statement before the loop and at the end of its body",
                    );
                    return None;
                }
                let mut operands = Some(self.operands(args, Place::Code, lengths)?);
                let mut values = Vec::new();
                for _ in 0..ty.width {
                    let value = self.arbitrary(ty.element, operands.take().unwrap_or_default(), Place::Code, span)?;
                    values.push(value.expr);
                }
                return self.vector_temporary(ty, values, span);
            }
            ast::ExprKind::Call { function, args } => {
                let args = args.iter().map(|arg| self.bind_calls(arg, lengths)).collect::<Option<Vec<_>>>()?;
                ast::ExprKind::Call { function: function.clone(), args }
            }
            ast::ExprKind::Member { base, field, arrow } => {
                ast::ExprKind::Member { base: bind(self, base)?, field: field.clone(), arrow: *arrow }
            }
            ast::ExprKind::Cast { ty, pointers, operand } => {
                ast::ExprKind::Cast { ty: ty.clone(), pointers: *pointers, operand: bind(self, operand)? }
            }
            ast::ExprKind::Comma(first, second) => ast::ExprKind::Comma(bind(self, first)?, bind(self, second)?),
            ast::ExprKind::Unary { op, operand } => ast::ExprKind::Unary { op: *op, operand: bind(self, operand)? },
            ast::ExprKind::Binary { op, lhs, rhs } => {
                ast::ExprKind::Binary { op: *op, lhs: bind(self, lhs)?, rhs: bind(self, rhs)? }
            }
            ast::ExprKind::Cond { cond, then_value, else_value } => ast::ExprKind::Cond {
                cond: bind(self, cond)?,
                then_value: bind(self, then_value)?,
                else_value: bind(self, else_value)?,
            },
            _ => {
                self.unreadable_vector(span);
                return None;
            }
        };
        self.checked(ast::Expr::new(kind, span))
    }

    fn has_vector_call(&self, expr: &ast::Expr) -> bool {
        let here = matches!(&expr.kind, ast::ExprKind::Call { function, .. }
            if self.prototypes.contains_key(function.name.as_str()) && self.shape(expr).is_some());
        here || expr.kind.children().into_iter().any(|child| self.has_vector_call(child))
    }

    /// Declares a private vector holding `values` (before the statement being lowered), and
    /// gives the C name that reads it.
    fn vector_temporary(&mut self, ty: VectorType, values: Vec<surface::Expr>, span: Span) -> Option<ast::Expr> {
        self.fresh += 1;
        let name = format!("\\vector@{}", self.fresh);
        let mut names = Vec::new();
        for (k, value) in values.into_iter().enumerate() {
            let component = component_name(&name, k as u32);
            let kind = surface::StmtKind::Declare {
                ty: ty.element.surface(),
                ty_span: span,
                name: surface::Ident { name: component.clone(), span },
                init: Some(value),
            };
            let stmt = self.surface_stmt(kind, span)?;
            self.before.get_or_insert_with(Vec::new).push(stmt);
            names.push(component);
        }
        self.declare(&name, Symbol::Vector { ty, names });
        Some(ast::Expr { kind: ast::ExprKind::Name(name), span, depth: 1 })
    }

    /// The values of a call's arguments, a vector argument giving each of its components.
    pub(super) fn operands(
        &mut self,
        args: &[ast::Expr],
        place: Place,
        lengths: &Lengths,
    ) -> Option<Vec<integers::Value>> {
        let mut values = Vec::new();
        for arg in args {
            match self.shape(arg) {
                Some(ty) => {
                    for component in self.components(arg, ty, lengths)? {
                        values.push(self.typed(&component, place, lengths)?);
                    }
                }
                None => values.push(self.typed(arg, place, lengths)?),
            }
        }
        Some(values)
    }

    /// A private vector's declaration: one scalar per component, each given its component of
    /// the initial value.
    pub(super) fn vector_declaration(
        &mut self,
        declarator: &ast::Declarator,
        ty: VectorType,
        init: Option<&ast::Expr>,
        ty_span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let values = match init {
            Some(init) => {
                let components = self.components(init, ty, lengths)?;
                let mut values = Vec::new();
                for component in &components {
                    values.push(Some(self.value(component, ty.element, lengths)?));
                }
                values
            }
            None => vec![None; ty.width as usize],
        };
        let base = self.local_name(&declarator.name.name);
        let mut names = Vec::new();
        let mut stmts = Vec::new();
        for (k, init) in values.into_iter().enumerate() {
            let name = component_name(&base, k as u32);
            stmts.extend(self.declared(
                name.clone(),
                ty.element,
                ty_span,
                declarator.name.span,
                declarator.span,
                init,
            )?);
            names.push(name);
        }
        self.declare(&declarator.name.name, Symbol::Vector { ty, names });
        Some(stmts)
    }

    /// `target = assigned` where the target is a vector (`v`, `a[i]`, `v.xy`): every component
    /// of the value into a temporary, then each into its place.
    pub(super) fn vector_assignment(
        &mut self,
        target: &ast::Expr,
        ty: VectorType,
        assigned: &ast::Expr,
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        if let ast::ExprKind::Member { base, field, .. } = &target.kind {
            let width = self.shape(base).map_or(1, |base| base.width);
            let mut selected = swizzle(&field.name, width).unwrap_or_default();
            selected.sort_unstable();
            if selected.windows(2).any(|pair| pair[0] == pair[1]) {
                self.type_mismatch(
                    field.span,
                    format!("`.{}` names a component twice and cannot be assigned", field.name),
                );
                return None;
            }
        }
        let values = self.components(assigned, ty, lengths)?;
        let mut stmts = Vec::new();
        let mut temporaries = Vec::new();
        for value in &values {
            let lowered = self.value(value, ty.element, lengths)?;
            self.fresh += 1;
            let name = format!("\\component@{}", self.fresh);
            let kind = surface::StmtKind::Declare {
                ty: ty.element.surface(),
                ty_span: span,
                name: surface::Ident { name: name.clone(), span },
                init: Some(lowered),
            };
            stmts.push(self.surface_stmt(kind, span)?);
            let interval = ty.element.interval();
            self.declare(&name, Symbol::Scalar { ty: ty.element, interval, name: name.clone() });
            temporaries.push(name);
        }
        for (k, temporary) in temporaries.into_iter().enumerate() {
            let place = self.project(target, k as u32)?;
            let value = ast::Expr { kind: ast::ExprKind::Name(temporary), span, depth: 1 };
            stmts.extend(self.component_assignment(place, value, span, lengths)?);
        }
        Some(stmts)
    }

    /// The element type of the array of scalars `pointer` points into, the `p` of `vloadN(i, p)`
    /// and `vstoreN(v, i, p)`.
    fn scalar_element(&self, pointer: &ast::Expr) -> Option<CType> {
        match self.lookup(indexed_root(pointer).0)? {
            Symbol::Array { element, vector: None, .. } => Some(*element),
            _ => None,
        }
    }

    /// `vstoreN(v, offset, p)`: `p[offset * N + k] = v.sK` for each component.
    pub(super) fn vstore(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let [value, offset, pointer] = args else {
            self.argument_count(name, 3, args.len(), span);
            return None;
        };
        let width = vstore_width(name)?;
        let Some(element) = self.scalar_element(pointer) else {
            self.unsupported(pointer.span, format!("`{name}` into this pointer"), "store into an array of scalars");
            return None;
        };
        let ty = VectorType { element, width };
        let values = self.components(value, ty, lengths)?;
        let mut stmts = Vec::new();
        for (k, component) in values.into_iter().enumerate() {
            let cell = self.vload_cell(offset, pointer, width, k as u32, span)?;
            stmts.extend(self.component_assignment(cell, component, span, lengths)?);
        }
        Some(stmts)
    }

    /// The C statement `target = value;`, of one component.
    fn component_assignment(
        &mut self,
        target: ast::Expr,
        value: ast::Expr,
        span: Span,
        lengths: &Lengths,
    ) -> Option<Vec<surface::Stmt>> {
        let assign = self.checked(ast::Expr::new(
            ast::ExprKind::Assign { op: None, target: Box::new(target), value: Box::new(value) },
            span,
        ))?;
        self.expression_statement(&assign, lengths)
    }

    /// What `base.field` is, where `base` is a vector and `field` names one of its components.
    pub(super) fn component(&mut self, base: &ast::Expr, field: &surface::Ident) -> Option<Component> {
        let (_, k) = self.single_component(base, field)?;
        let normalized = self.project(base, k)?;
        if let ast::ExprKind::Member { base: root, field, .. } = &normalized.kind {
            match &root.kind {
                ast::ExprKind::Name(name) => {
                    if let (Some(Symbol::Vector { ty, names }), Some(&[k])) =
                        (self.lookup(name), swizzle(&field.name, 16).as_deref())
                    {
                        return Some(Component::Private { name: names[k as usize].clone(), ty: ty.element });
                    }
                }
                ast::ExprKind::Index { .. } | ast::ExprKind::Unary { op: ast::UnaryOp::Deref, .. } => {
                    return Some(Component::Memory(normalized));
                }
                _ => {}
            }
        }
        Some(Component::Value(normalized))
    }

    /// The one component a member access `base.field` of a vector names, if it names one.
    pub(super) fn single_component(&mut self, base: &ast::Expr, field: &surface::Ident) -> Option<(VectorType, u32)> {
        let ty = self.shape(base)?;
        match swizzle(&field.name, ty.width).as_deref() {
            Some([component]) => Some((ty, *component)),
            Some(_) => {
                self.unsupported(
                    field.span,
                    format!("the vector `.{}` where a scalar is expected", field.name),
                    "name one component here: `v.x`",
                );
                None
            }
            None => {
                self.diagnostics.push(
                    Diagnostic::error(
                        Code::TypeMismatch,
                        format!("`.{}` is not a component of a `{}`", field.name, ty.name()),
                        field.span,
                        "no such component",
                    )
                    .with_help("a vector's components are `.x`, `.y`, `.z`, `.w` (the first four) or `.s0` to `.sf`"),
                );
                None
            }
        }
    }
}

/// A component of a vector, as [`Lowerer::component`] finds it.
pub(super) enum Component {
    /// A component of a private vector: its variable and type.
    Private { name: String, ty: CType },
    /// A component of a vector in memory, `a[i].sK`, which [`Lowerer::location`] finds.
    Memory(ast::Expr),
    /// A component of a vector value: the scalar expression that computes it.
    Value(ast::Expr),
}

/// The name a chain of indexing starts from, and how many indices it has: `a` and 2 for `a[i][j]`
/// (a `*p` counts as one index).
fn indexed_root(expr: &ast::Expr) -> (&str, usize) {
    let mut indices = 0;
    let mut base = expr;
    loop {
        match &base.kind {
            ast::ExprKind::Index { base: inner, .. } => {
                indices += 1;
                base = inner;
            }
            ast::ExprKind::Unary { op: ast::UnaryOp::Deref, operand } => {
                indices += 1;
                base = operand;
            }
            ast::ExprKind::Name(name) => return (name, indices),
            _ => return ("", indices),
        }
    }
}

/// The components of a vector literal: `(int2)(a, b)`, or the compound literal `(int2){a, b}`.
fn flatten_commas<'e>(expr: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) {
    match &expr.kind {
        ast::ExprKind::InitList(items) => out.extend(items),
        ast::ExprKind::Comma(first, second) => {
            flatten_commas(first, out);
            flatten_commas(second, out);
        }
        _ => out.push(expr),
    }
}

/// The scalar type of a type specifier's components, where it has one (not `void`).
pub(in crate::c) fn scalar_of(ty: &ast::TypeSpec) -> Option<CType> {
    if ty.named.is_some() {
        // A struct or `typedef` name left after [`crate::c::structs`]: one it refused.
        return None;
    }
    let bits = match ty.base {
        ast::BaseType::Void => return None,
        ast::BaseType::Bool => return Some(CType::Bool),
        ast::BaseType::Char => 8,
        ast::BaseType::Short => 16,
        ast::BaseType::Int => 32,
        ast::BaseType::Long | ast::BaseType::SizeT => 64,
        ast::BaseType::Half => return Some(CType::Float(16)),
        ast::BaseType::Float => return Some(integers::FLOAT),
        ast::BaseType::Double => return Some(integers::DOUBLE),
    };
    Some(CType::Int(MachineInt { bits, signed: !ty.unsigned }))
}

/// The type specifier of a scalar type, for the casts [`Lowerer::project`] builds.
fn type_spec_of(ty: CType, span: Span) -> ast::TypeSpec {
    let (base, unsigned) = match ty {
        CType::Bool => (ast::BaseType::Bool, false),
        CType::Float(16) => (ast::BaseType::Half, false),
        CType::Float(32) => (ast::BaseType::Float, false),
        CType::Float(_) => (ast::BaseType::Double, false),
        CType::Int(MachineInt { bits, signed }) => {
            let base = match bits {
                8 => ast::BaseType::Char,
                16 => ast::BaseType::Short,
                32 => ast::BaseType::Int,
                _ => ast::BaseType::Long,
            };
            (base, !signed)
        }
    };
    ast::TypeSpec { base, unsigned, width: 1, named: None, mixed: false, span }
}

/// The type `convert_T(x)`, `convert_T_sat(x)` or `convert_T_rte(x)` converts to.
fn conversion_type(name: &str) -> Option<VectorType> {
    named_type(name.strip_prefix("convert_")?.split('_').next()?)
}

/// The vector type CUDA's `make_T` builds (`make_float4`).
fn made_type(name: &str) -> Option<VectorType> {
    named_type(name.strip_prefix("make_")?).filter(|ty| ty.width > 1)
}

/// The type OpenCL's name of an arithmetic type names: `uint4`, `float`.
fn named_type(name: &str) -> Option<VectorType> {
    let (base, unsigned, width) = ast::arithmetic_type_name(name)?;
    let element =
        scalar_of(&ast::TypeSpec { base, unsigned, width, named: None, mixed: false, span: Span::new(0, 0) })?;
    Some(VectorType { element, width })
}

/// N of `vloadN`, `vload_halfN` excluded.
fn vload_width(name: &str) -> Option<u32> {
    name.strip_prefix("vload")?.parse().ok().filter(|width| [2, 3, 4, 8, 16].contains(width))
}

fn vstore_width(name: &str) -> Option<u32> {
    name.strip_prefix("vstore")?.parse().ok().filter(|width| [2, 3, 4, 8, 16].contains(width))
}

/// Whether a call statement is `vstoreN(v, offset, p)`.
pub(super) fn is_vstore(name: &str) -> bool {
    vstore_width(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::swizzle;
    use crate::c::{check, integers::Integers, Dialect};
    use crate::diagnostics::Code;

    #[test]
    fn vectors_used_wrongly_are_named() {
        for (body, code, message) in [
            (
                "int4 v = 1; int x = v;",
                Code::Clang,
                "initializing '__private int' with an expression of incompatible type '__private int4' (vector of 4 'int' values)",
            ),
            (
                "int4 v = 1; int x = v.xy;",
                Code::Clang,
                "initializing '__private int' with an expression of incompatible type '__private int2' (vector of 2 'int' values)",
            ),
            (
                "int x = a[0] + (int2)(1, 2);",
                Code::Clang,
                "initializing '__private int' with an expression of incompatible type 'int2' (vector of 2 'int' values)",
            ),
            (
                "int4 v = (int4)(1, (int2)(2, 3), 4, 5);",
                Code::Clang,
                "too many elements in vector initialization (expected 4 elements, have 5)",
            ),
            (
                "int2 v = 1; int x = v.z;",
                Code::Clang,
                "vector component access exceeds type '__private int2' (vector of 2 'int' values)",
            ),
            (
                "int4 v = 1; v.xx = (int2)(1, 2);",
                Code::Clang,
                "vector is not assignable (contains duplicate components)",
            ),
            (
                "int4 v = 1; int2 w = v;",
                Code::Clang,
                "initializing '__private int2' (vector of 2 'int' values) with an expression of incompatible type '__private int4' (vector of 4 'int' values)",
            ),
            ("int4 t[2];", Code::Unsupported, "a private array of vectors, or a pointer to pointers to vectors is not supported"),
        ] {
            let text = format!("__kernel void k(global int* a) {{ {body} }}");
            let (_, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
            let first = diagnostics.first().unwrap_or_else(|| panic!("`{body}` is accepted"));
            assert_eq!((first.code, first.message.as_str()), (code, message), "{body}");
        }
    }

    #[test]
    fn a_pointer_into_an_array_of_vectors_is_refused() {
        let text = "__kernel void k(global int4* a) { atomic_add(&a[0], 1); }";
        let (_, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
        assert_eq!(diagnostics[0].message, "a pointer into an array of vectors here is not supported");
    }

    #[test]
    fn swizzles_name_components() {
        assert_eq!(swizzle("x", 4), Some(vec![0]));
        assert_eq!(swizzle("wzyx", 4), Some(vec![3, 2, 1, 0]));
        assert_eq!(swizzle("s3", 4), Some(vec![3]));
        assert_eq!(swizzle("sF", 16), Some(vec![15]));
        assert_eq!(swizzle("s01", 8), Some(vec![0, 1]));
        assert_eq!(swizzle("lo", 8), Some(vec![0, 1, 2, 3]));
        assert_eq!(swizzle("hi", 4), Some(vec![2, 3]));
        assert_eq!(swizzle("odd", 4), Some(vec![1, 3]));
        assert_eq!(swizzle("even", 2), Some(vec![0]));
        assert_eq!(swizzle("rgba", 4), Some(vec![0, 1, 2, 3]));
        // Out of range, mixed sets, the halves of a 3-vector, and not a swizzle.
        assert_eq!(swizzle("w", 3), None);
        assert_eq!(swizzle("xg", 4), None);
        assert_eq!(swizzle("hi", 3), None);
        assert_eq!(swizzle("s", 4), None);
        assert_eq!(swizzle("xyzwx", 4), None);
        assert_eq!(swizzle("foo", 4), None);
    }
}
