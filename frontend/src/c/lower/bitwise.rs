//! Shifts and bitwise operators, which the surface language does not have: `x << k` and `x >> k`
//! by a constant are a product and a quotient by `2^k`; `&`, `|` and `^` of values that are 0 or 1
//! are arithmetic on them, `x & (2^k - 1)` is a modulo, and any other is computed bit by bit.

use super::{Lengths, Lowerer, Place};
use crate::c::ast;
use crate::c::integers::{self, CType, Integers, Value};
use crate::c::Dialect;
use crate::pvl::ast as surface;
use lockstep_logic::{MachineInt, Span};
use num_bigint::BigInt;
use num_traits::ToPrimitive;

impl Lowerer<'_> {
    /// `x << k` and `x >> k` by a constant `k`: `x * 2^k` and `x / 2^k` (rounded down, as GPUs
    /// shift signed values), in `x`'s promoted type.
    pub(super) fn shift(
        &mut self,
        left: bool,
        value: &ast::Expr,
        amount: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let integers = self.integers(place);
        let value = self.typed(value, place, lengths)?;
        let ty = integers::promoted(value.ty);
        let value = self.convert(value, CType::Int(ty), place, span)?;
        let shift = match &amount.kind {
            ast::ExprKind::Int { value, .. } => value.to_u32().filter(|&shift| shift < ty.bits),
            _ => None,
        };
        let Some(shift) = shift else {
            // OpenCL shifts by the amount's low log2(N) bits, for an N-bit `x`: never undefined.
            if self.dialect == Dialect::OpenCl && place == Place::Code {
                let amount = self.typed(amount, place, lengths)?;
                let CType::Int(_) = amount.ty else {
                    self.unsupported(amount.expr.span, "a shift by a floating-point amount", "shift by an integer");
                    return None;
                };
                let width = self.int(ty.bits, span)?;
                let amount = self.binary(surface::BinaryOp::Mod, amount.expr, width, span)?;
                return self.checked(integers::variable_shift(left, value, amount, ty, integers, span));
            }
            self.unsupported(
                amount.span,
                "a shift by an amount that is not a constant below the type's width, in CUDA or an annotation",
                "shift by a number: `x << 2`; in CUDA a shift by a negative amount or one of at least the width is undefined",
            );
            return None;
        };
        let power = BigInt::from(1) << shift;
        let factor = Value {
            expr: self.int(power.clone(), span)?,
            ty: CType::Int(ty),
            interval: integers::Interval::exactly(&power),
        };
        if left {
            return self.checked(integers::arithmetic(integers::Arithmetic::Mul, value, factor, integers, span));
        }
        // Rounded down: `(x - x mod 2^k) / 2^k`, which is `x / 2^k` for a non-negative `x`.
        let non_negative = value.interval.least >= BigInt::from(0);
        let dividend = if non_negative {
            value.expr
        } else {
            let remainder = self.binary(surface::BinaryOp::Mod, value.expr.clone(), factor.expr.clone(), span)?;
            self.binary(surface::BinaryOp::Sub, value.expr, remainder, span)?
        };
        let lowered = self.binary(surface::BinaryOp::Div, dividend, factor.expr, span)?;
        let interval = integers::Interval {
            least: (&value.interval.least).min(&BigInt::from(0)).clone() / &power - 1,
            greatest: (&value.interval.greatest).max(&BigInt::from(0)).clone() / &power,
        };
        Some(Value { expr: lowered, ty: CType::Int(ty), interval })
    }

    /// `&`, `|` and `^` where lockstep knows their value: of two operands that are 0 or 1 (the
    /// results of comparisons, as GPUVerify's annotations combine them), and `x & (2^k - 1)`.
    pub(super) fn bitwise(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let lhs = self.typed(lhs, place, lengths);
        let rhs = self.typed(rhs, place, lengths);
        let (lhs, rhs) = (lhs?, rhs?);
        let bit = integers::Interval::new(0, 1);
        let is_bit = |value: &Value| !matches!(value.ty, CType::Float(_)) && value.interval.within(&bit);
        if is_bit(&lhs) && is_bit(&rhs) {
            return self.bit_operation(op, lhs, rhs, span, place);
        }
        if matches!(lhs.ty, CType::Float(_)) || matches!(rhs.ty, CType::Float(_)) {
            self.unsupported(span, format!("`{}` of floating-point values", op.symbol()), "C has no such operator");
            return None;
        }
        let ty = integers::common(lhs.ty, rhs.ty);
        let lhs = self.convert(lhs, CType::Int(ty), place, span)?;
        let rhs = self.convert(rhs, CType::Int(ty), place, span)?;
        let is_mask = |mask: &Value, value: &Value| {
            let modulus: BigInt = &mask.interval.least + 1;
            mask.interval.least == mask.interval.greatest
                && modulus > BigInt::from(0)
                && (&modulus & (&modulus - 1)) == BigInt::from(0)
                && value.interval.least >= BigInt::from(0)
        };
        match op {
            ast::BinaryOp::BitAnd if is_mask(&rhs, &lhs) => self.mask(lhs, &rhs.interval.least, ty, span),
            ast::BinaryOp::BitAnd if is_mask(&lhs, &rhs) => self.mask(rhs, &lhs.interval.least, ty, span),
            _ => self.bit_by_bit(op, lhs, rhs, ty, span, place),
        }
    }

    /// `x & y`, `x | y` or `x ^ y` of integers of type `ty`, bit by bit
    /// ([`integers::bit_by_bit`]): on the operands as unsigned values of `ty`'s width (two's
    /// complement), and the result back in `ty`. The operands are repeated for each bit, so one
    /// that reads memory is refused; so are operands that may be negative where integers do
    /// not wrap (annotations, `--mathematical-integers`).
    fn bit_by_bit(
        &mut self,
        op: ast::BinaryOp,
        lhs: Value,
        rhs: Value,
        ty: MachineInt,
        span: Span,
        place: Place,
    ) -> Option<Value> {
        let symbol = op.symbol();
        // Each operand is repeated once per bit, so an operand that is itself such a sum would
        // grow the expression exponentially with the nesting (`a ^ b ^ c ^ d`).
        if lhs.expr.depth > MAX_BITWISE_OPERAND_DEPTH || rhs.expr.depth > MAX_BITWISE_OPERAND_DEPTH {
            self.unsupported(
                span,
                format!("`{symbol}` of an operand that is itself a bitwise operation of unknown values"),
                "compute the inner operation into a variable first: `int t = a ^ b; t ^ c`",
            );
            return None;
        }
        if reads_memory(&lhs.expr) || reads_memory(&rhs.expr) {
            self.unsupported(
                span,
                format!("`{symbol}` of a value read from memory"),
                "read the value into a variable first: `int v = a[i]; v ^ k`",
            );
            return None;
        }
        let unsigned = MachineInt { bits: ty.bits, signed: false };
        let integers = self.integers(place);
        let lhs = self.checked(integers::convert(lhs, CType::Int(unsigned), integers, span))?;
        let rhs = self.checked(integers::convert(rhs, CType::Int(unsigned), integers, span))?;
        let (_, greatest) = unsigned.bounds();
        let in_width = |value: &Value| value.interval.within(&integers::Interval::new(0, greatest.clone()));
        if !in_width(&lhs) || !in_width(&rhs) {
            self.unsupported(
                span,
                format!("`{symbol}` of values that may be negative, where integers do not wrap"),
                "keep the operands non-negative, or read the code with machine integers",
            );
            return None;
        }
        let bits_of = |value: &Value| u32::try_from(value.interval.greatest.bits()).unwrap_or(ty.bits);
        let (bitwise, bits) = match op {
            ast::BinaryOp::BitAnd => (integers::Bitwise::And, bits_of(&lhs).min(bits_of(&rhs))),
            ast::BinaryOp::BitOr => (integers::Bitwise::Or, bits_of(&lhs).max(bits_of(&rhs))),
            _ => (integers::Bitwise::Xor, bits_of(&lhs).max(bits_of(&rhs))),
        };
        let result = self.checked(integers::bit_by_bit(bitwise, &lhs.expr, &rhs.expr, bits, span))?;
        let greatest = match bitwise {
            integers::Bitwise::And => (&lhs.interval.greatest).min(&rhs.interval.greatest).clone(),
            _ => (BigInt::from(1) << bits) - 1,
        };
        let value = Value { expr: result, ty: CType::Int(unsigned), interval: integers::Interval::new(0, greatest) };
        // Back to a signed type: the same bits, two's complement.
        self.checked(integers::convert(value, CType::Int(ty), Integers::Machine, span))
    }

    /// `a & b` as `a * b`, `a | b` as `a + b - a * b` and `a ^ b` as `a != b`, for `a` and `b`
    /// that are 0 or 1, in their common type.
    fn bit_operation(&mut self, op: ast::BinaryOp, lhs: Value, rhs: Value, span: Span, place: Place) -> Option<Value> {
        let ty = CType::Int(integers::common(lhs.ty, rhs.ty));
        let lhs = self.converted(lhs, ty, place, span)?;
        let rhs = self.converted(rhs, ty, place, span)?;
        let lowered = match op {
            ast::BinaryOp::BitAnd => self.binary(surface::BinaryOp::Mul, lhs, rhs, span)?,
            ast::BinaryOp::BitOr => {
                let product = self.binary(surface::BinaryOp::Mul, lhs.clone(), rhs.clone(), span)?;
                let sum = self.binary(surface::BinaryOp::Add, lhs, rhs, span)?;
                self.binary(surface::BinaryOp::Sub, sum, product, span)?
            }
            _ => {
                let differ = self.binary(surface::BinaryOp::Ne, lhs, rhs, span)?;
                let differ = Value { expr: differ, ty: CType::Bool, interval: CType::Bool.interval() };
                self.convert(differ, ty, place, span)?.expr
            }
        };
        Some(Value { expr: lowered, ty, interval: integers::Interval::new(0, 1) })
    }

    /// `x & (2^k - 1)`: `x mod 2^k`, in type `ty` (for a non-negative `x` of that type).
    fn mask(&mut self, value: Value, mask: &BigInt, ty: MachineInt, span: Span) -> Option<Value> {
        let modulus: BigInt = mask + 1;
        let divisor = self.int(modulus.clone(), span)?;
        let lowered = self.binary(surface::BinaryOp::Mod, value.expr, divisor, span)?;
        Some(Value {
            expr: lowered,
            ty: CType::Int(ty),
            interval: integers::Interval { least: BigInt::from(0), greatest: modulus - 1 },
        })
    }
}

/// The deepest operand `&`, `|` or `^` expands bit by bit ([`Lowerer::bit_by_bit`]): deep enough
/// for arithmetic on variables, too shallow for another bit-by-bit sum.
const MAX_BITWISE_OPERAND_DEPTH: u32 = 12;

/// Whether a lowered expression reads memory.
fn reads_memory(expr: &surface::Expr) -> bool {
    matches!(expr.kind, surface::ExprKind::Index { .. }) || expr.kind.children().into_iter().any(reads_memory)
}
