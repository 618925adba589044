//! Floating-point values, which lockstep does not compute: an operation, conversion, constant or
//! function of them gives an arbitrary value of its type ([`Lowerer::arbitrary`]); annotations
//! compare floating-point values only as they are copied, with `==` and `!=`.

use super::{Lengths, Lowerer, Place};
use crate::c::ast;
use crate::c::integers::{self, CType, Value};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

impl Lowerer<'_> {
    /// The result of a floating-point operation, of type `ty`: an arbitrary value, so that no
    /// property of floating-point arithmetic can be assumed wrongly. It is a variable declared
    /// without a value before the statement (each run of the statement gives it a new one; `run`
    /// gives it 0), and the operands' code stays in the expression beside it, multiplied by 0,
    /// so that their reads, bounds and overflows are still checked where C evaluates them.
    pub(super) fn arbitrary(&mut self, ty: CType, operands: Vec<Value>, place: Place, span: Span) -> Option<Value> {
        if place == Place::Annotation {
            self.unsupported(
                span,
                "floating-point arithmetic or a floating-point constant in an annotation",
                "annotations compare floating-point values only as they are copied: `out[i] == in[i]`",
            );
            return None;
        }
        if self.before.is_none() {
            self.unsupported(
                span,
                "a floating-point operation in a loop's condition",
                "compute the condition into a variable before the loop and at the end of its body",
            );
            return None;
        }
        self.fresh += 1;
        let name = format!("\\arbitrary@{}", self.fresh);
        let declare = surface::StmtKind::Declare {
            ty: ty.surface(),
            ty_span: span,
            name: surface::Ident { name: name.clone(), span },
            init: None,
        };
        let declare = self.surface_stmt(declare, span)?;
        self.before.get_or_insert_with(Vec::new).push(declare);
        // 0 * e for an operand with code in it (an int), or `e ? 0 : 0` (a bool).
        let mut kept: Option<surface::Expr> = None;
        for operand in operands {
            if matches!(
                operand.expr.kind,
                surface::ExprKind::Int(_)
                    | surface::ExprKind::Bool(_)
                    | surface::ExprKind::Name(_)
                    | surface::ExprKind::Builtin(_)
            ) {
                continue;
            }
            let zero = self.int(0, operand.expr.span)?;
            let part = match operand.ty {
                CType::Bool => {
                    let other_zero = zero.clone();
                    let kind = surface::ExprKind::Cond {
                        cond: Box::new(operand.expr),
                        then_value: Box::new(zero),
                        else_value: Box::new(other_zero),
                    };
                    self.node(kind, span)?
                }
                _ => self.binary(surface::BinaryOp::Mul, zero, operand.expr, span)?,
            };
            kept = Some(match kept {
                Some(kept) => self.binary(surface::BinaryOp::Add, kept, part, span)?,
                None => part,
            });
        }
        let mut value = self.node(surface::ExprKind::Name(name.clone()), span)?;
        // An integer is one of its type's values: the variable where it lies in the type, else
        // the type's least (so every value of the type, and only those, can come out).
        if let (CType::Int(int_type), true) = (ty, self.integers.bounded()) {
            let in_type = self.checked(integers::in_type(&name, int_type, span))?;
            let least = self.int(int_type.bounds().0, span)?;
            let kind = surface::ExprKind::Cond {
                cond: Box::new(in_type),
                then_value: Box::new(value),
                else_value: Box::new(least),
            };
            value = self.node(kind, span)?;
        }
        let expr = match (kept, ty) {
            (None, _) => value,
            // The operands first, so that they are evaluated whatever the value.
            (Some(kept), CType::Bool) => {
                let zero = self.int(0, span)?;
                let evaluated = self.binary(surface::BinaryOp::Eq, kept, zero, span)?;
                self.binary(surface::BinaryOp::And, evaluated, value, span)?
            }
            (Some(kept), _) => self.binary(surface::BinaryOp::Add, value, kept, span)?,
        };
        Some(Value { expr, ty, interval: ty.interval() })
    }

    /// A comparison with a floating-point operand. In code its result is arbitrary (NaN compares
    /// unequal even to itself). In annotations two floating-point values compare as the values
    /// they are, so that `out[i] == in[i]` says that a value was copied; nothing else about
    /// them can be said.
    pub(super) fn float_comparison(
        &mut self,
        comparison: surface::BinaryOp,
        lhs: Value,
        rhs: Value,
        span: Span,
        place: Place,
    ) -> Option<Value> {
        if place == Place::Code {
            return self.arbitrary(CType::Bool, vec![lhs, rhs], place, span);
        }
        let (CType::Float(_), CType::Float(_)) = (lhs.ty, rhs.ty) else {
            self.unsupported(
                span,
                "comparing a floating-point value with another type in an annotation",
                "annotations compare floating-point values only with each other, as they are copied: `out[i] == in[i]`",
            );
            return None;
        };
        if !matches!(comparison, surface::BinaryOp::Eq | surface::BinaryOp::Ne) {
            self.unsupported(
                span,
                "ordering floating-point values in an annotation",
                "annotations compare floating-point values only with `==` and `!=`, as they are copied",
            );
            return None;
        }
        let lowered = self.binary(comparison, lhs.expr, rhs.expr, span)?;
        Some(Value { expr: lowered, ty: CType::Bool, interval: CType::Bool.interval() })
    }

    /// A call of a floating-point function of OpenCL or CUDA (`sqrt`, `fabs`, `native_exp`,
    /// ...): an arbitrary value of the widest floating-point type among its arguments (`float`
    /// where none is one), or an arbitrary `int` for a classification (`isnan`, ...).
    pub(super) fn float_function(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let values = self.operands(args, place, lengths)?;
        let ty = if FLOAT_CLASSIFICATIONS.contains(&name) {
            CType::Int(integers::INT)
        } else {
            integers::floating(values.iter().map(|value| value.ty)).unwrap_or(integers::FLOAT)
        };
        self.arbitrary(ty, values, place, span)
    }
}

/// OpenCL's and CUDA's floating-point functions, all of which lockstep reads as giving an
/// arbitrary value (with the `f` forms of CUDA and the `native_`, `half_` and `__` forms).
const FLOAT_FUNCTIONS: &[&str] = &[
    "sqrt",
    "rsqrt",
    "cbrt",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "pown",
    "powr",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "sinpi",
    "cospi",
    "fabs",
    "fmin",
    "fmax",
    "fmod",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "mad",
    "fma",
    "hypot",
    "copysign",
    "fdim",
    "recip",
    "divide",
    "mix",
    "step",
    "smoothstep",
    "sign",
    "degrees",
    "radians",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "ldexp",
    "fdividef",
    "saturate",
    "rcp",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frcp",
    "fsqrt",
    // Geometric functions, over vectors.
    "dot",
    "cross",
    "length",
    "distance",
    "normalize",
    "fast_length",
    "fast_distance",
    "fast_normalize",
];

/// The floating-point functions that classify a value, giving an `int`.
const FLOAT_CLASSIFICATIONS: &[&str] = &["isnan", "isinf", "isfinite", "isnormal", "signbit"];

/// Whether `name` is a floating-point function, in any of its spellings.
pub(super) fn is_float_function(name: &str) -> bool {
    let base = name.trim_start_matches("native_").trim_start_matches("half_").trim_start_matches("__");
    let base = base.strip_suffix("f").filter(|base| FLOAT_FUNCTIONS.contains(base)).unwrap_or(base);
    let base = base.strip_suffix("_rn").unwrap_or(base);
    FLOAT_FUNCTIONS.contains(&base) || FLOAT_CLASSIFICATIONS.contains(&base)
}
