//! Calls in expressions: of the file's helpers ([`crate::c::lower::inline`]) and prototypes, of the
//! launch's ids and sizes (`get_global_id(d)`, ...), of `min`, `max`, `abs`, the saturating
//! operations, the 24-bit products (`mul24`, `mad24`, CUDA's `__mul24` and `__umul24`) and
//! GPUVerify's additions that do not overflow, of atomic operations and
//! floating-point functions, and of GPUVerify's functions of annotations (`__implies`, `__ite`,
//! `__old_int`, `__return_val_int`).

use super::async_copies;
use super::atomics;
use super::floats::is_float_function;
use super::images;
use super::logs;
use super::{Lengths, Lowerer, Place, WORK_DIM};
use crate::c::ast;
use crate::c::integers::{self, CType, Value};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::{Axis, Builtin, MachineInt, Span};
use num_bigint::BigInt;
use num_traits::Signed;

impl Lowerer<'_> {
    /// A call in an expression: an id or size, or `min`, `max`, `abs`.
    pub(super) fn call(
        &mut self,
        function: &surface::Ident,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let name = function.name.as_str();
        let by_dimension = match name {
            // The file's own functions first: they may reuse a built-in's name.
            _ if self.helpers.contains_key(name) => {
                return self.call_in_expression(function, args, span, place, lengths)
            }
            _ if self.prototypes.contains_key(name) => {
                if self.prototypes[name].specifiers.ty.base == ast::BaseType::Void {
                    self.no_value(name, span);
                    return None;
                }
                return self.undefined_call(name, args, span, place, lengths);
            }
            "get_local_id" => Some(Builtin::LocalId as fn(Axis) -> Builtin),
            "get_group_id" => Some(Builtin::GroupId as fn(Axis) -> Builtin),
            "get_local_size" => Some(Builtin::GroupSize as fn(Axis) -> Builtin),
            "get_num_groups" => Some(Builtin::Groups as fn(Axis) -> Builtin),
            "get_global_id" | "get_global_size" | "get_global_offset" => None,
            "get_work_dim" if args.is_empty() && self.uses_work_dim => {
                let expr = self.node(surface::ExprKind::Name(WORK_DIM.to_string()), span)?;
                let interval = integers::Interval::new(BigInt::from(1), BigInt::from(3));
                return Some(Value { expr, ty: CType::Int(integers::UINT), interval });
            }
            "min" | "max" | "abs" | "umin" | "umax" => return self.min_max_abs(name, args, span, place, lengths),
            _ if intrinsic_of_any_value(name).is_some() && place == Place::Code => {
                let ty = intrinsic_of_any_value(name)?;
                let values = self.arguments(args, place, lengths)?;
                return self.arbitrary(ty, values, place, span);
            }
            "mul24" | "mad24" | "__mul24" | "__umul24" => return self.multiply_24(name, args, span, place, lengths),
            "add_sat" | "sub_sat" => {
                let [lhs, rhs] = args else {
                    self.argument_count(name, 2, args.len(), span);
                    return None;
                };
                let (lhs, rhs) = (self.typed(lhs, place, lengths), self.typed(rhs, place, lengths));
                let (lhs, rhs) = (lhs?, rhs?);
                if !matches!((lhs.ty, rhs.ty), (CType::Int(_), CType::Int(_))) {
                    self.unsupported(
                        span,
                        format!("`{name}` of a non-integer value"),
                        "saturating arithmetic is on integers",
                    );
                    return None;
                }
                let op = if name == "add_sat" { integers::Arithmetic::Add } else { integers::Arithmetic::Sub };
                return self.checked(integers::saturated(op, lhs, rhs, self.integers, span));
            }
            _ if name.starts_with("__add_noovfl") => {
                return self.add_without_overflow(name, args, span, place, lengths)
            }
            _ if atomics::is_atomic(name) => return self.atomic_in_expression(name, args, span, place, lengths),
            _ if images::read_element(name).is_some() => return self.image_read(name, place, span),
            _ if async_copies::is_async_copy(name) => {
                return self.async_copy_in_expression(name, args, span, place, lengths)
            }
            _ if is_float_function(name) => return self.float_function(name, args, span, place, lengths),
            // GPUVerify's `__implies(a, b)`, and `__enabled()`: the thread runs this code.
            "__implies" if place == Place::Annotation => {
                let [lhs, rhs] = args else {
                    self.argument_count(name, 2, args.len(), span);
                    return None;
                };
                // Its operands hold where they are not 0, as GPUVerify's annotations read ints.
                let lhs = self.gpuverify_formula(lhs, lengths);
                let rhs = self.gpuverify_formula(rhs, lengths);
                let lowered = self.binary(surface::BinaryOp::Implies, lhs?, rhs?, span)?;
                return Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() });
            }
            // GPUVerify's `__ptr_offset_bytes(p)`: how far `p` points from the start of its
            // array, in bytes.
            "__ptr_offset_bytes" => {
                let [pointer] = args else {
                    self.argument_count(name, 1, args.len(), span);
                    return None;
                };
                let pointed = self.points_into(pointer, "this pointer", lengths)?;
                let (_, index) = self.pointed_cell(&pointed, span)?;
                let size = self.int(super::size_of(pointed.element), span)?;
                let expr = self.binary(surface::BinaryOp::Mul, index, size, span)?;
                // The index lies anywhere a `long` may, as a pointer before its array's start may.
                let ty = CType::Int(lockstep_logic::MachineInt { bits: 64, signed: true });
                return Some(Value { expr, ty, interval: ty.interval() });
            }
            // GPUVerify's `__ite(c, a, b)` is `c ? a : b`.
            "__ite" if place == Place::Annotation => {
                let [cond, then_value, else_value] = args else {
                    self.argument_count(name, 3, args.len(), span);
                    return None;
                };
                let kind = ast::ExprKind::Cond {
                    cond: Box::new(cond.clone()),
                    then_value: Box::new(then_value.clone()),
                    else_value: Box::new(else_value.clone()),
                };
                let cond = self.checked(ast::Expr::new(kind, span))?;
                return self.typed(&cond, place, lengths);
            }
            // GPUVerify's `__old_int(e)` (of any type) is `\old(e)`, and `__return_val_int()` is
            // `\result`.
            _ if place == Place::Annotation && name.starts_with("__old_") => {
                let [arg] = args else {
                    self.argument_count(name, 1, args.len(), span);
                    return None;
                };
                let old = self.checked(ast::Expr::new(ast::ExprKind::Old(Box::new(arg.clone())), span))?;
                return self.typed(&old, place, lengths);
            }
            _ if place == Place::Annotation && name.starts_with("__return_val_") && args.is_empty() => {
                let result = self.checked(ast::Expr::new(ast::ExprKind::Result, span))?;
                return self.typed(&result, place, lengths);
            }
            _ if logs::LOG_QUERIES.contains(&name) => return self.log_query_value(name, args, place, span, lengths),
            // A pointer stored in a struct's field in memory ([`crate::c::structs`]): an address
            // that no code follows, so any value of its `ulong`; the pointer is evaluated, its
            // reads and checks with it.
            crate::c::structs::ADDRESS_STORED if place == Place::Code => {
                let [pointer] = args else {
                    self.argument_count(name, 1, args.len(), span);
                    return None;
                };
                let target = self.points_into(pointer, "this pointer value", lengths)?;
                let (_, index) = self.pointed_cell(&target, span)?;
                let offset_type = CType::Int(integers::SIZE_T);
                let offset = Value { expr: index, ty: offset_type, interval: offset_type.interval() };
                return self.arbitrary(CType::Int(integers::ULONG), vec![offset], place, span);
            }
            "__enabled" if place == Place::Annotation && args.is_empty() => {
                let lowered = self.node(surface::ExprKind::Bool(true), span)?;
                return Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() });
            }
            _ => {
                self.unsupported(
                    span,
                    format!("a call of `{name}`"),
                    "lockstep knows the ids and sizes of the launch, `min`, `max`, `abs`, and the helper functions the file defines",
                );
                return None;
            }
        };
        let axis = match args {
            [ast::Expr { kind: ast::ExprKind::Int { value, .. }, .. }] => [0, 1, 2]
                .into_iter()
                .find(|dimension| *value == BigInt::from(*dimension))
                .map(|dimension| Axis::ALL[dimension]),
            _ => None,
        };
        let Some(axis) = axis else {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::ArgumentCount,
                    format!("`{name}` takes the dimension 0, 1 or 2"),
                    span,
                    "not a dimension",
                )
                .with_help(format!("write the dimension as a number: `{name}(0)`")),
            );
            return None;
        };
        // OpenCL's ids and sizes are `size_t`.
        let id = |lowerer: &mut Lowerer, builtin: Builtin| lowerer.builtin_value(builtin, integers::SIZE_T, span);
        match by_dimension {
            Some(builtin) => id(self, builtin(axis)),
            // lockstep's launches start at global id 0 on every axis.
            None if name == "get_global_offset" => {
                let zero = self.int(0, span)?;
                Some(Value { expr: zero, ty: CType::Int(integers::SIZE_T), interval: integers::Interval::new(0, 0) })
            }
            None => {
                let (first, second, third) = if name == "get_global_id" {
                    (Builtin::GroupId(axis), Builtin::GroupSize(axis), Some(Builtin::LocalId(axis)))
                } else {
                    (Builtin::GroupSize(axis), Builtin::Groups(axis), None)
                };
                let integers = self.integers(place);
                let (first, second) = (id(self, first)?, id(self, second)?);
                let mut value =
                    self.checked(integers::arithmetic(integers::Arithmetic::Mul, first, second, integers, span))?;
                if let Some(third) = third {
                    let third = id(self, third)?;
                    value =
                        self.checked(integers::arithmetic(integers::Arithmetic::Add, value, third, integers, span))?;
                }
                Some(value)
            }
        }
    }

    pub(super) fn argument_count(&mut self, name: &str, wanted: usize, given: usize, span: Span) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::ArgumentCount,
                format!("`{name}` takes {wanted} argument(s)"),
                span,
                format!("{given} given"),
            )
            .with_help(format!("call `{name}` with {wanted} argument(s)")),
        );
    }

    /// The values of a call's arguments.
    fn arguments(&mut self, args: &[ast::Expr], place: Place, lengths: &Lengths) -> Option<Vec<Value>> {
        args.iter().map(|arg| self.typed(arg, place, lengths)).collect()
    }

    /// GPUVerify's additions that do not overflow. `__add_noovfl_T(a, b)` (`T` is `int`,
    /// `unsigned_int`, `char`, ...) is `a + b` in the type `T`, assuming, as GPUVerify does, that
    /// the sum lies in `T`: the assumption stands right before the statement, so that it may not
    /// be where the call may not run (after `&&`, `||` or `?`) nor in a loop's condition.
    /// `__add_noovfl(a, b, ...)` is whether the sum of its operands lies in their common type.
    fn add_without_overflow(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let suffix = name.strip_prefix("__add_noovfl").unwrap_or_default();
        let result_type = match suffix.strip_prefix('_') {
            None if suffix.is_empty() => None,
            Some(word) => Some(noovfl_type(word)),
            None => Some(None),
        };
        if args.len() < 2 || result_type == Some(None) {
            self.unsupported(span, format!("a call of `{name}`"), "GPUVerify's `__add_noovfl_T(a, b)` adds two integers of a type `T` such as `int` or `unsigned_int`; `__add_noovfl(a, b, ...)` tells whether integers add without overflow");
            return None;
        }
        let mut operands = Vec::new();
        for arg in args {
            let value = self.typed(arg, place, lengths)?;
            let CType::Int(_) = value.ty else {
                self.unsupported(arg.span, format!("`{name}` of a non-integer value"), "it adds integers");
                return None;
            };
            operands.push(value);
        }
        let ty = match result_type.flatten() {
            Some(ty) => ty,
            None => operands
                .iter()
                .fold(integers::promoted(operands[0].ty), |ty, value| integers::common(CType::Int(ty), value.ty)),
        };
        let mut sum: Option<surface::Expr> = None;
        for value in operands {
            let value = self.checked(integers::convert(value, CType::Int(ty), self.integers, span))?;
            sum = Some(match sum {
                None => value.expr,
                Some(sum) => self.binary(surface::BinaryOp::Add, sum, value.expr, span)?,
            });
        }
        let sum = sum?;
        let (least, greatest) = ty.bounds();
        let within = self.within(sum.clone(), &least, &greatest, span)?;
        if result_type.is_none() {
            return Some(Value { expr: within, ty: CType::Bool, interval: CType::Bool.interval() });
        }
        if place == Place::Annotation
            || !self.noovfl_statement
            || self.conditional
            || self.before.is_none()
            || args.iter().any(has_effect)
        {
            self.unsupported(
                span,
                format!("`{name}` other than as the value of `x = {name}(a, b);` with operands without effects"),
                "compute the sum into a variable in a statement of its own",
            );
            return None;
        }
        let assume = self.surface_stmt(surface::StmtKind::Assume(within), span)?;
        self.before.get_or_insert_with(Vec::new).push(assume);
        Some(Value { expr: sum, ty: CType::Int(ty), interval: CType::Int(ty).interval() })
    }

    /// A 24-bit product: `mul24(x, y)` and CUDA's `__mul24` and `__umul24` multiply the low 24
    /// bits of their operands, and `mad24(x, y, z)` adds `z`. Where the operands lie in 24 bits
    /// (`-2^23 <= x < 2^23` signed, `x < 2^24` unsigned) it is the product's low 32 bits, as
    /// CUDA defines it; elsewhere OpenCL leaves it to the implementation, and lockstep takes any
    /// value (so a kernel is verified only for what every device computes).
    fn multiply_24(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let wanted = if name == "mad24" { 3 } else { 2 };
        if args.len() != wanted {
            self.argument_count(name, wanted, args.len(), span);
            return None;
        }
        let refuse = |lowerer: &mut Self, what: &str, help: &str| {
            lowerer.unsupported(span, format!("`{name}` {what}"), help);
            None
        };
        if place == Place::Annotation {
            return refuse(self, "in an annotation", "write the product: `x * y`");
        }
        if self.before.is_none() {
            return refuse(
                self,
                "in a loop's condition",
                "compute it into a variable before the loop and at the end of its body",
            );
        }
        let values = self.arguments(args, place, lengths)?;
        let ty = match name {
            "__mul24" => integers::INT,
            "__umul24" => integers::UINT,
            _ => match values.iter().map(|value| value.ty).collect::<Vec<_>>().as_slice() {
                [CType::Int(x), CType::Int(y), ..] if x.bits <= 32 && y.bits <= 32 => {
                    integers::common(CType::Int(*x), CType::Int(*y))
                }
                _ => {
                    return refuse(
                        self,
                        "of a vector or floating-point value",
                        "lockstep reads `mul24` of int and uint",
                    )
                }
            },
        };
        let mut values = values.into_iter();
        let (x, y) = (values.next()?, values.next()?);
        let (x, y) = (self.convert(x, CType::Int(ty), place, span)?, self.convert(y, CType::Int(ty), place, span)?);
        let (least, greatest) = if ty.signed {
            (-BigInt::from(1 << 23), BigInt::from((1 << 23) - 1))
        } else {
            (0.into(), BigInt::from((1 << 24) - 1))
        };
        let mut in_range = None;
        for operand in [&x, &y] {
            let both = self.within(operand.expr.clone(), &least, &greatest, span)?;
            in_range = Some(match in_range {
                None => both,
                Some(before) => self.binary(surface::BinaryOp::And, before, both, span)?,
            });
        }
        // The low 32 bits: the 24-bit operands' product wraps, it does not overflow.
        let wrapping = if self.integers.bounded() { integers::Integers::Wrapping } else { self.integers };
        let product =
            self.checked(integers::arithmetic(integers::Arithmetic::Mul, x.clone(), y.clone(), wrapping, span))?;
        let other = self.arbitrary(CType::Int(ty), vec![x, y], place, span)?;
        let kind = surface::ExprKind::Cond {
            cond: Box::new(in_range?),
            then_value: Box::new(product.expr),
            else_value: Box::new(other.expr),
        };
        let product = Value { expr: self.node(kind, span)?, ty: CType::Int(ty), interval: CType::Int(ty).interval() };
        match values.next() {
            Some(addend) => {
                let addend = self.convert(addend, CType::Int(ty), place, span)?;
                self.checked(integers::arithmetic(integers::Arithmetic::Add, product, addend, wrapping, span))
            }
            None => Some(product),
        }
    }

    /// `least <= expr && expr <= greatest`.
    fn within(&mut self, expr: surface::Expr, least: &BigInt, greatest: &BigInt, span: Span) -> Option<surface::Expr> {
        let (least, greatest) = (self.int(least.clone(), span)?, self.int(greatest.clone(), span)?);
        let above = self.binary(surface::BinaryOp::Le, least, expr.clone(), span)?;
        let below = self.binary(surface::BinaryOp::Le, expr, greatest, span)?;
        self.binary(surface::BinaryOp::And, above, below, span)
    }

    fn min_max_abs(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let wanted = if name == "abs" { 1 } else { 2 };
        // CUDA's `umin` and `umax` take unsigned ints.
        let unsigned = name.starts_with('u');
        if args.len() != wanted {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::ArgumentCount,
                    format!("`{name}` takes {wanted} argument(s)"),
                    span,
                    format!("{} given", args.len()),
                )
                .with_help(format!("call it as `{name}({})`", if wanted == 1 { "x" } else { "a, b" })),
            );
            return None;
        }
        let integers = self.integers(place);
        let mut values = self.arguments(args, place, lengths)?;
        if let Some(ty) = integers::floating(values.iter().map(|value| value.ty)) {
            return self.arbitrary(ty, values, place, span);
        }
        if name == "abs" {
            // `abs(x)` is `x < 0 ? -x : x`, in x's promoted type (`abs(INT_MIN)` overflows).
            let value = values.remove(0);
            let ty = CType::Int(integers::promoted(value.ty));
            let zero = Value { expr: self.int(0, span)?, ty, interval: integers::Interval::new(0, 0) };
            let negated =
                self.checked(integers::arithmetic(integers::Arithmetic::Sub, zero, value.clone(), integers, span))?;
            let value = self.convert(value, ty, place, span)?;
            let zero = self.int(0, span)?;
            let test = self.binary(surface::BinaryOp::Lt, value.expr.clone(), zero, span)?;
            let interval = integers::Interval {
                least: BigInt::from(0),
                greatest: value.interval.least.clone().abs().max(value.interval.greatest.clone().abs()),
            };
            let kind = surface::ExprKind::Cond {
                cond: Box::new(test),
                then_value: Box::new(negated.expr),
                else_value: Box::new(value.expr),
            };
            return Some(Value { expr: self.node(kind, span)?, ty, interval });
        }
        let second = values.pop()?;
        let first = values.pop()?;
        let ty = CType::Int(if unsigned { integers::UINT } else { integers::common(first.ty, second.ty) });
        let (first, second) = (self.convert(first, ty, place, span)?, self.convert(second, ty, place, span)?);
        let interval = integers::either(&first.interval, &second.interval);
        let (first, second) = (first.expr, second.expr);
        let op = if name.ends_with("min") { surface::BinaryOp::Le } else { surface::BinaryOp::Ge };
        let test = self.binary(op, first.clone(), second.clone(), span)?;
        let kind =
            surface::ExprKind::Cond { cond: Box::new(test), then_value: Box::new(first), else_value: Box::new(second) };
        Some(Value { expr: self.node(kind, span)?, ty, interval })
    }
}

/// CUDA's intrinsics of bits and conversions that lockstep does not compute (`__popc`, `__clz`,
/// `__float_as_int`, ...), with their result types: a call is any value of its type, its
/// operands evaluated, which is what the device may give as far as lockstep knows. None has an
/// effect beyond its value.
fn intrinsic_of_any_value(name: &str) -> Option<CType> {
    const LONG: MachineInt = MachineInt { bits: 64, signed: true };
    const ULONG: MachineInt = MachineInt { bits: 64, signed: false };
    let ty = match name {
        "__popc" | "__popcll" | "__clz" | "__clzll" | "__ffs" | "__ffsll" | "__mulhi" | "__hadd" | "__rhadd" => {
            CType::Int(integers::INT)
        }
        "__umulhi" | "__brev" | "__byte_perm" | "__uhadd" | "__urhadd" | "__sad" | "__usad" | "__funnelshift_l"
        | "__funnelshift_r" => CType::Int(integers::UINT),
        "__mul64hi" | "__double_as_longlong" => CType::Int(LONG),
        "__umul64hi" | "__brevll" => CType::Int(ULONG),
        _ if name.starts_with("__float2int_") || name.starts_with("__double2int_") || name == "__float_as_int" => {
            CType::Int(integers::INT)
        }
        _ if name.starts_with("__float2uint_") || name == "__float_as_uint" => CType::Int(integers::UINT),
        "__int_as_float" | "__uint_as_float" => integers::FLOAT,
        _ if name.starts_with("__int2float_")
            || name.starts_with("__uint2float_")
            || name.starts_with("__double2float_") =>
        {
            integers::FLOAT
        }
        "__longlong_as_double" => integers::DOUBLE,
        _ => return None,
    };
    Some(ty)
}

/// Whether evaluating an expression may change a variable or memory: an assignment, `++`,
/// `--`, or a call of anything but an id or size.
fn has_effect(expr: &ast::Expr) -> bool {
    let own = match &expr.kind {
        ast::ExprKind::Assign { .. } => true,
        ast::ExprKind::Unary { op, .. } => matches!(
            op,
            ast::UnaryOp::PreIncrement
                | ast::UnaryOp::PreDecrement
                | ast::UnaryOp::PostIncrement
                | ast::UnaryOp::PostDecrement
        ),
        ast::ExprKind::Call { function, .. } => !function.name.starts_with("get_"),
        _ => false,
    };
    own || expr.kind.children().into_iter().any(has_effect)
}

/// The integer type a suffix of GPUVerify's `__add_noovfl_` names: `int`, `unsigned_char`, ...
fn noovfl_type(suffix: &str) -> Option<MachineInt> {
    let (signed, base) = match suffix.strip_prefix("unsigned_") {
        Some(base) => (false, base),
        None => (true, suffix),
    };
    let bits = match base {
        "char" => 8,
        "short" => 16,
        "int" => 32,
        "long" => 64,
        _ => return None,
    };
    Some(MachineInt { bits, signed })
}
