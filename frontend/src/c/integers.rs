//! C's integers in code: types, the usual arithmetic conversions, wrap-around of unsigned types
//! and the overflow check of signed ones, as surface expressions over mathematical integers.
//!
//! Every integer value of C code is lowered with its C type and an interval its value surely lies
//! in. An operation computes the exact mathematical result; where its interval may leave the
//! result type's range, an unsigned result is reduced modulo `2^N` (C's wrap-around) and a signed
//! one is wrapped in [`surface::ExprKind::InRange`], whose `arith.overflow` obligation asks that
//! it stay in range (signed overflow is undefined behaviour). Where the interval shows that it
//! cannot leave the range, neither is needed: that keeps the common index arithmetic
//! (`blockIdx.x * blockDim.x + threadIdx.x`) free of `mod` and of obligations that always hold.
//! The intervals of ids and sizes come from the launch's limit: a kernel is verified for launches
//! of at most [`LAUNCH_LIMIT`] threads ([`launch_limit_clause`]), within which the global id
//! `group id * group size + local id` along an axis lies below the limit.
//!
//! With mathematical integers ([`Integers::Mathematical`], VerCors's reading of C) every integer
//! type is unbounded: no wrap-around and no overflow check. With wrapping integers
//! ([`Integers::Wrapping`], GPUVerify's reading of C as bit-vectors) a signed result wraps in
//! two's complement as an unsigned one does, and nothing is checked.

use crate::pvl::ast::{self as surface, TooDeep};
use lockstep_logic::{Builtin, MachineInt, Span};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// How C's integers are read: with their machine semantics (the default for OpenCL and CUDA), as
/// mathematical integers (VerCors's reading), or as machine integers whose signed overflow wraps
/// (GPUVerify's reading).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Integers {
    #[default]
    Machine,
    Mathematical,
    Wrapping,
}

impl Integers {
    /// Whether each integer type has its machine range.
    pub fn bounded(self) -> bool {
        self != Integers::Mathematical
    }
}

/// The most threads a launch of a C kernel is verified for: `2^31 - 1`, so that every id and
/// size fits C's `int`.
pub const LAUNCH_LIMIT: i64 = (1 << 31) - 1;

pub const INT: MachineInt = MachineInt { bits: 32, signed: true };
pub const UINT: MachineInt = MachineInt { bits: 32, signed: false };
/// `size_t`, the type of OpenCL's ids and sizes.
pub const SIZE_T: MachineInt = MachineInt { bits: 64, signed: false };
/// `ulong`: also what an address stored in memory is ([`crate::c::structs::ADDRESS_STORED`]).
pub const ULONG: MachineInt = MachineInt { bits: 64, signed: false };

/// The type of a C value of code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    Bool,
    Int(MachineInt),
    /// `half`, `float` or `double`, by its bits. A floating-point value is an integer of the IR
    /// that only copies preserve: every operation on one gives an arbitrary value
    /// ([`crate::c::lower`]), so it never reaches the functions of this module.
    Float(u32),
}

pub const FLOAT: CType = CType::Float(32);
pub const DOUBLE: CType = CType::Float(64);

impl CType {
    pub fn surface(self) -> surface::TypeName {
        match self {
            CType::Bool => surface::TypeName::Bool,
            CType::Int(_) | CType::Float(_) => surface::TypeName::Int,
        }
    }

    /// The interval every value of the type lies in: for a floating-point type, every integer
    /// its arbitrary values may be.
    pub fn interval(self) -> Interval {
        match self {
            CType::Bool => Interval::new(0, 1),
            CType::Int(int) => {
                let (least, greatest) = int.bounds();
                Interval { least, greatest }
            }
            CType::Float(_) => {
                let unbounded: BigInt = BigInt::one() << 2048;
                Interval { least: -unbounded.clone(), greatest: unbounded }
            }
        }
    }

    /// C's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            CType::Bool => "bool",
            CType::Int(int) => int.name(),
            CType::Float(16) => "half",
            CType::Float(32) => "float",
            CType::Float(_) => "double",
        }
    }
}

/// The widest floating-point type among `types`, if any is one: the type of an operation's
/// result under the usual arithmetic conversions.
pub fn floating(types: impl IntoIterator<Item = CType>) -> Option<CType> {
    types.into_iter().filter(|ty| matches!(ty, CType::Float(_))).max_by_key(|ty| match ty {
        CType::Float(bits) => *bits,
        _ => 0,
    })
}

/// A closed interval of integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interval {
    pub least: BigInt,
    pub greatest: BigInt,
}

impl Interval {
    pub fn new(least: impl Into<BigInt>, greatest: impl Into<BigInt>) -> Interval {
        Interval { least: least.into(), greatest: greatest.into() }
    }

    pub fn exactly(value: &BigInt) -> Interval {
        Interval { least: value.clone(), greatest: value.clone() }
    }

    pub fn within(&self, other: &Interval) -> bool {
        other.least <= self.least && self.greatest <= other.greatest
    }

    fn hull(&self, other: &Interval) -> Interval {
        Interval {
            least: (&self.least).min(&other.least).clone(),
            greatest: (&self.greatest).max(&other.greatest).clone(),
        }
    }

    fn magnitude(&self) -> BigInt {
        self.least.abs().max(self.greatest.abs())
    }
}

/// A lowered value of code: the expression, its C type, and where its value lies.
#[derive(Clone, Debug)]
pub struct Value {
    pub expr: surface::Expr,
    pub ty: CType,
    pub interval: Interval,
}

/// The arithmetic operators whose result may leave a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// C's integer promotion: `bool`, `char` and `short` compute as `int`.
pub fn promoted(ty: CType) -> MachineInt {
    match ty {
        CType::Int(int) if int.bits >= 32 => int,
        _ => INT,
    }
}

/// C's usual arithmetic conversions: the type two operands are computed in.
pub fn common(lhs: CType, rhs: CType) -> MachineInt {
    let (lhs, rhs) = (promoted(lhs), promoted(rhs));
    if lhs == rhs {
        return lhs;
    }
    if lhs.signed == rhs.signed {
        return if lhs.bits >= rhs.bits { lhs } else { rhs };
    }
    let (unsigned, signed) = if lhs.signed { (rhs, lhs) } else { (lhs, rhs) };
    // A signed type wider than the unsigned one holds all its values.
    if signed.bits > unsigned.bits {
        signed
    } else {
        unsigned
    }
}

fn node(kind: surface::ExprKind, span: Span) -> Result<surface::Expr, TooDeep> {
    surface::Expr::new(kind, span)
}

fn int(value: impl Into<BigInt>, span: Span) -> Result<surface::Expr, TooDeep> {
    node(surface::ExprKind::Int(value.into()), span)
}

fn binary(op: surface::BinaryOp, lhs: surface::Expr, rhs: surface::Expr, span: Span) -> Result<surface::Expr, TooDeep> {
    node(surface::ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span)
}

/// `value` reduced into the type's range as C's conversions do: modulo `2^N` into an unsigned
/// type, and (implementation-defined, two's complement on every GPU) into a signed one.
fn wrapped(value: surface::Expr, int: MachineInt, span: Span) -> Result<surface::Expr, TooDeep> {
    let modulus = BigInt::one() << int.bits;
    let (least, _) = int.bounds();
    if least.is_zero() {
        return binary(surface::BinaryOp::Mod, value, int_expr(&modulus, span)?, span);
    }
    // ((value - least) mod 2^N) + least
    let shifted = binary(surface::BinaryOp::Sub, value, int_expr(&least, span)?, span)?;
    let reduced = binary(surface::BinaryOp::Mod, shifted, int_expr(&modulus, span)?, span)?;
    binary(surface::BinaryOp::Add, reduced, int_expr(&least, span)?, span)
}

fn int_expr(value: &BigInt, span: Span) -> Result<surface::Expr, TooDeep> {
    int(value.clone(), span)
}

/// A value converted to a type: `bool` is `!= 0` and `1`/`0`; an integer that may not fit its new
/// type wraps.
pub fn convert(value: Value, to: CType, integers: Integers, span: Span) -> Result<Value, TooDeep> {
    match (value.ty, to) {
        (CType::Bool, CType::Bool) => Ok(value),
        (CType::Int(_), CType::Bool) => {
            let expr = binary(surface::BinaryOp::Ne, value.expr, int(0, span)?, span)?;
            Ok(Value { expr, ty: CType::Bool, interval: CType::Bool.interval() })
        }
        (CType::Bool, CType::Int(_)) => {
            let kind = surface::ExprKind::Cond {
                cond: Box::new(value.expr),
                then_value: Box::new(int(1, span)?),
                else_value: Box::new(int(0, span)?),
            };
            Ok(Value { expr: node(kind, span)?, ty: to, interval: Interval::new(0, 1) })
        }
        (CType::Int(_), CType::Int(int_type)) => {
            if integers == Integers::Mathematical || value.interval.within(&to.interval()) {
                return Ok(Value { ty: to, ..value });
            }
            Ok(Value { expr: wrapped(value.expr, int_type, span)?, ty: to, interval: to.interval() })
        }
        // The lowering gives every conversion to or from a floating-point type an arbitrary
        // value ([`crate::c::lower`]); only a value kept in its own type comes here.
        (CType::Float(_), _) | (_, CType::Float(_)) => {
            debug_assert_eq!(value.ty, to, "a floating-point conversion reached the integers");
            Ok(value)
        }
    }
}

/// `lhs op rhs` in C: both converted to their common type, the exact result, then wrapped
/// (unsigned) or checked (signed) where it may leave that type.
pub fn arithmetic(op: Arithmetic, lhs: Value, rhs: Value, integers: Integers, span: Span) -> Result<Value, TooDeep> {
    let ty = common(lhs.ty, rhs.ty);
    let lhs = convert(lhs, CType::Int(ty), integers, span)?;
    let rhs = convert(rhs, CType::Int(ty), integers, span)?;
    let interval =
        launch_interval(op, &lhs.expr, &rhs.expr).unwrap_or_else(|| exact_interval(op, &lhs.interval, &rhs.interval));
    let surface_op = match op {
        Arithmetic::Add => surface::BinaryOp::Add,
        Arithmetic::Sub => surface::BinaryOp::Sub,
        Arithmetic::Mul => surface::BinaryOp::Mul,
        Arithmetic::Div => surface::BinaryOp::Div,
        // Where the dividend is not negative and the divisor positive, C's `%` is the
        // mathematical modulo, which the solver reasons about more cheaply than the remainder
        // of a division rounded towards zero (`(i + 1) % blockDim.x`). Only machine integers
        // keep an unsigned value in its interval (mathematical ones let `0u - 7u` be -7).
        Arithmetic::Rem
            if integers.bounded() && lhs.interval.least >= BigInt::zero() && rhs.interval.least >= BigInt::one() =>
        {
            surface::BinaryOp::Mod
        }
        Arithmetic::Rem => surface::BinaryOp::Rem,
    };
    let exact = binary(surface_op, lhs.expr, rhs.expr, span)?;
    result(exact, interval, ty, integers, span)
}

/// OpenCL's `add_sat(x, y)` and `sub_sat(x, y)`: the exact result, clamped to the type the
/// operands share (their common type where they differ), so never wrapped nor undefined.
pub fn saturated(op: Arithmetic, lhs: Value, rhs: Value, integers: Integers, span: Span) -> Result<Value, TooDeep> {
    let ty = match (lhs.ty, rhs.ty) {
        (CType::Int(lhs_ty), CType::Int(rhs_ty)) if lhs_ty == rhs_ty => lhs_ty,
        _ => common(lhs.ty, rhs.ty),
    };
    let lhs = convert(lhs, CType::Int(ty), integers, span)?;
    let rhs = convert(rhs, CType::Int(ty), integers, span)?;
    let interval = exact_interval(op, &lhs.interval, &rhs.interval);
    let surface_op = if op == Arithmetic::Add { surface::BinaryOp::Add } else { surface::BinaryOp::Sub };
    let exact = binary(surface_op, lhs.expr, rhs.expr, span)?;
    let range = CType::Int(ty).interval();
    if integers == Integers::Mathematical || interval.within(&range) {
        return Ok(Value { expr: exact, ty: CType::Int(ty), interval });
    }
    let (least, greatest) = ty.bounds();
    let clamp = |bound: &BigInt, op, inner: surface::Expr| -> Result<surface::Expr, TooDeep> {
        let beyond = binary(op, exact.clone(), int_expr(bound, span)?, span)?;
        let kind = surface::ExprKind::Cond {
            cond: Box::new(beyond),
            then_value: Box::new(int_expr(bound, span)?),
            else_value: Box::new(inner),
        };
        node(kind, span)
    };
    let below = clamp(&greatest, surface::BinaryOp::Gt, exact.clone())?;
    let expr = clamp(&least, surface::BinaryOp::Lt, below)?;
    let interval = Interval {
        least: (&interval.least).max(&range.least).clone(),
        greatest: (&interval.greatest).min(&range.greatest).clone(),
    };
    Ok(Value { expr, ty: CType::Int(ty), interval })
}

/// An exact result of type `ty` lying in `interval`: as it is where it surely fits, else wrapped
/// (unsigned, or signed with wrapping integers) or checked (signed).
pub fn result(
    exact: surface::Expr,
    interval: Interval,
    ty: MachineInt,
    integers: Integers,
    span: Span,
) -> Result<Value, TooDeep> {
    let range = CType::Int(ty).interval();
    if integers == Integers::Mathematical || interval.within(&range) {
        return Ok(Value { expr: exact, ty: CType::Int(ty), interval });
    }
    let expr = if ty.signed && integers == Integers::Machine {
        node(surface::ExprKind::InRange { value: Box::new(exact), int: ty }, span)?
    } else {
        wrapped(exact, ty, span)?
    };
    Ok(Value { expr, ty: CType::Int(ty), interval: range })
}

/// `x << k` (`left`) or `x >> k` for an amount `k` that lies in `[0, bits)`, `x` of type `ty`:
/// one case for each amount (`k == 0 ? x : k == 1 ? x * 2 : ...`), each linear, so that no
/// power of a variable reaches the solver; a left shift is then checked or wrapped as a product
/// is, and a right shift rounds down, as GPUs shift signed values.
pub fn variable_shift(
    left: bool,
    value: Value,
    amount: surface::Expr,
    ty: MachineInt,
    integers: Integers,
    span: Span,
) -> Result<Value, TooDeep> {
    let shifted = |power: &BigInt| -> Result<surface::Expr, TooDeep> {
        let factor = int_expr(power, span)?;
        if left {
            return binary(surface::BinaryOp::Mul, value.expr.clone(), factor, span);
        }
        // Rounded down: `(x - x mod 2^k) / 2^k`, which is `x / 2^k` for a non-negative `x`.
        let dividend = if value.interval.least >= BigInt::from(0) {
            value.expr.clone()
        } else {
            let remainder = binary(surface::BinaryOp::Mod, value.expr.clone(), factor.clone(), span)?;
            binary(surface::BinaryOp::Sub, value.expr.clone(), remainder, span)?
        };
        binary(surface::BinaryOp::Div, dividend, factor, span)
    };
    let greatest_power = BigInt::from(1) << (ty.bits - 1);
    let mut exact = shifted(&greatest_power)?;
    for bits in (0..ty.bits - 1).rev() {
        let power = BigInt::from(1) << bits;
        let is_amount = binary(surface::BinaryOp::Eq, amount.clone(), int(bits, span)?, span)?;
        let kind = surface::ExprKind::Cond {
            cond: Box::new(is_amount),
            then_value: Box::new(shifted(&power)?),
            else_value: Box::new(exact),
        };
        exact = node(kind, span)?;
    }
    if left {
        let powers = Interval { least: BigInt::from(1), greatest: greatest_power };
        let interval = exact_interval(Arithmetic::Mul, &value.interval, &powers);
        return result(exact, interval, ty, integers, span);
    }
    let zero = BigInt::from(0);
    let interval = Interval {
        least: (&value.interval.least).min(&zero).clone(),
        greatest: (&value.interval.greatest).max(&zero).clone(),
    };
    Ok(Value { expr: exact, ty: CType::Int(ty), interval })
}

/// C's bitwise operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bitwise {
    And,
    Or,
    Xor,
}

/// `x & y`, `x | y` or `x ^ y` of values in `[0, 2^bits)`, bit by bit: the sum over each bit `k`
/// of `2^k` where the operation gives 1 from the two bits `x / 2^k mod 2`. Exact, and linear: a
/// division and a remainder by a constant for each bit, so no power of a variable reaches the
/// solver. The operands are repeated for each bit, so they must have no effect of their own.
pub fn bit_by_bit(
    op: Bitwise,
    x: &surface::Expr,
    y: &surface::Expr,
    bits: u32,
    span: Span,
) -> Result<surface::Expr, TooDeep> {
    let bit = |value: &surface::Expr, k: u32| -> Result<surface::Expr, TooDeep> {
        let shifted = match k {
            0 => value.clone(),
            _ => binary(surface::BinaryOp::Div, value.clone(), int_expr(&(BigInt::one() << k), span)?, span)?,
        };
        let remainder = binary(surface::BinaryOp::Mod, shifted, int(2, span)?, span)?;
        binary(surface::BinaryOp::Eq, remainder, int(1, span)?, span)
    };
    let mut terms = Vec::new();
    for k in 0..bits {
        let combine = match op {
            Bitwise::And => surface::BinaryOp::And,
            Bitwise::Or => surface::BinaryOp::Or,
            Bitwise::Xor => surface::BinaryOp::Ne,
        };
        let set = binary(combine, bit(x, k)?, bit(y, k)?, span)?;
        let kind = surface::ExprKind::Cond {
            cond: Box::new(set),
            then_value: Box::new(int_expr(&(BigInt::one() << k), span)?),
            else_value: Box::new(int(0, span)?),
        };
        terms.push(node(kind, span)?);
    }
    // A balanced sum, so that 64 bits nest 6 deep.
    while terms.len() > 1 {
        let mut pairs = Vec::new();
        let mut rest = terms.into_iter();
        while let Some(first) = rest.next() {
            pairs.push(match rest.next() {
                Some(second) => binary(surface::BinaryOp::Add, first, second, span)?,
                None => first,
            });
        }
        terms = pairs;
    }
    match terms.pop() {
        Some(sum) => Ok(sum),
        None => int(0, span),
    }
}

/// The interval of an exact result, from its operands'.
fn exact_interval(op: Arithmetic, lhs: &Interval, rhs: &Interval) -> Interval {
    match op {
        Arithmetic::Add => Interval { least: &lhs.least + &rhs.least, greatest: &lhs.greatest + &rhs.greatest },
        Arithmetic::Sub => Interval { least: &lhs.least - &rhs.greatest, greatest: &lhs.greatest - &rhs.least },
        Arithmetic::Mul => {
            let products = [
                &lhs.least * &rhs.least,
                &lhs.least * &rhs.greatest,
                &lhs.greatest * &rhs.least,
                &lhs.greatest * &rhs.greatest,
            ];
            let least = products.iter().min().cloned().unwrap_or_default();
            let greatest = products.iter().max().cloned().unwrap_or_default();
            Interval { least, greatest }
        }
        // A quotient truncated towards zero is no larger than the dividend, and with a positive
        // divisor has its sign; only `least / -1` can leave a signed type.
        Arithmetic::Div if rhs.least >= BigInt::one() => Interval {
            least: (&lhs.least).min(&BigInt::zero()).clone(),
            greatest: (&lhs.greatest).max(&BigInt::zero()).clone(),
        },
        Arithmetic::Div => {
            let magnitude = lhs.magnitude();
            Interval { least: -magnitude.clone(), greatest: magnitude }
        }
        // A remainder has the dividend's sign and is no larger than it.
        Arithmetic::Rem => Interval {
            least: (&lhs.least).min(&BigInt::zero()).clone(),
            greatest: (&lhs.greatest).max(&BigInt::zero()).clone(),
        },
    }
}

/// What the launch's limit says of the ids' products and sums: a group's offset `gid_d * gsize_d`
/// and the global id `gid_d * gsize_d + lid_d` along an axis lie in `[0, LAUNCH_LIMIT)`, and the
/// global size `gsize_d * groups_d` in `[1, LAUNCH_LIMIT]`.
fn launch_interval(op: Arithmetic, lhs: &surface::Expr, rhs: &surface::Expr) -> Option<Interval> {
    let builtin = |expr: &surface::Expr| match &expr.kind {
        surface::ExprKind::Builtin(builtin) => Some(*builtin),
        _ => None,
    };
    let offset_axis = |expr: &surface::Expr| match &expr.kind {
        surface::ExprKind::Binary { op: surface::BinaryOp::Mul, lhs, rhs } => match (builtin(lhs)?, builtin(rhs)?) {
            (Builtin::GroupId(a), Builtin::GroupSize(b)) | (Builtin::GroupSize(b), Builtin::GroupId(a)) if a == b => {
                Some(a)
            }
            _ => None,
        },
        _ => None,
    };
    match op {
        Arithmetic::Mul => match (builtin(lhs)?, builtin(rhs)?) {
            (Builtin::GroupId(a), Builtin::GroupSize(b)) | (Builtin::GroupSize(b), Builtin::GroupId(a)) if a == b => {
                Some(Interval::new(0, LAUNCH_LIMIT - 1))
            }
            (Builtin::Groups(a), Builtin::GroupSize(b)) | (Builtin::GroupSize(b), Builtin::Groups(a)) if a == b => {
                Some(Interval::new(1, LAUNCH_LIMIT))
            }
            _ => None,
        },
        Arithmetic::Add => {
            let global = |offset: &surface::Expr, local: &surface::Expr| matches!((offset_axis(offset), builtin(local)), (Some(a), Some(Builtin::LocalId(b))) if a == b);
            (global(lhs, rhs) || global(rhs, lhs)).then(|| Interval::new(0, LAUNCH_LIMIT - 1))
        }
        _ => None,
    }
}

/// The interval of an id or size of a launch within the limit.
pub fn builtin_interval(builtin: Builtin) -> Interval {
    if builtin.is_launch_size() {
        Interval::new(1, LAUNCH_LIMIT)
    } else {
        Interval::new(0, LAUNCH_LIMIT - 1)
    }
}

/// The interval of `c ? a : b`.
pub fn either(then_value: &Interval, else_value: &Interval) -> Interval {
    then_value.hull(else_value)
}

/// `tcount <= LAUNCH_LIMIT`: the launches a C kernel is verified for.
pub fn launch_limit_clause(span: Span) -> Result<surface::Expr, TooDeep> {
    let tcount = node(surface::ExprKind::Builtin(Builtin::Tcount), span)?;
    binary(surface::BinaryOp::Le, tcount, int(LAUNCH_LIMIT, span)?, span)
}

/// `least <= name && name <= greatest`: what a kernel parameter of an integer type may be.
pub fn in_type(name: &str, int_type: MachineInt, span: Span) -> Result<surface::Expr, TooDeep> {
    let (least, greatest) = int_type.bounds();
    let var = || node(surface::ExprKind::Name(name.to_string()), span);
    let lower = binary(surface::BinaryOp::Le, int_expr(&least, span)?, var()?, span)?;
    let upper = binary(surface::BinaryOp::Le, var()?, int_expr(&greatest, span)?, span)?;
    binary(surface::BinaryOp::And, lower, upper, span)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONG: MachineInt = MachineInt { bits: 64, signed: true };
    const UCHAR: MachineInt = MachineInt { bits: 8, signed: false };

    #[test]
    fn the_usual_arithmetic_conversions() {
        assert_eq!(common(CType::Int(UCHAR), CType::Bool), INT);
        assert_eq!(common(CType::Int(INT), CType::Int(UINT)), UINT);
        assert_eq!(common(CType::Int(LONG), CType::Int(UINT)), LONG);
        assert_eq!(common(CType::Int(SIZE_T), CType::Int(LONG)), SIZE_T);
    }

    fn value(ty: MachineInt, least: i64, greatest: i64) -> Value {
        let expr = surface::Expr::new(surface::ExprKind::Name("x".into()), Span::new(0, 1)).unwrap();
        Value { expr, ty: CType::Int(ty), interval: Interval::new(least, greatest) }
    }

    /// C's `%` of a dividend that is not negative by a positive divisor is the modulo; of a
    /// dividend that may be negative it is the remainder, which may be negative too.
    #[test]
    fn a_remainder_of_non_negative_operands_is_the_modulo() {
        let op_of = |least: i64| {
            let rem = arithmetic(
                Arithmetic::Rem,
                value(INT, least, 100),
                value(INT, 1, 8),
                Integers::Machine,
                Span::new(0, 1),
            );
            match rem.unwrap().expr.kind {
                surface::ExprKind::Binary { op, .. } => op,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(op_of(0), surface::BinaryOp::Mod);
        assert_eq!(op_of(-1), surface::BinaryOp::Rem);
    }

    fn kind_of(value: &Value) -> &'static str {
        match &value.expr.kind {
            surface::ExprKind::InRange { .. } => "checked",
            surface::ExprKind::Binary { op: surface::BinaryOp::Mod, .. } => "wrapped",
            surface::ExprKind::Binary { op: surface::BinaryOp::Add, lhs, .. }
                if matches!(lhs.kind, surface::ExprKind::Binary { op: surface::BinaryOp::Mod, .. }) =>
            {
                "wrapped"
            }
            _ => "exact",
        }
    }

    #[test]
    fn signed_results_are_checked_and_unsigned_ones_wrap_only_where_they_may_leave_the_type() {
        let span = Span::new(0, 1);
        let add = |lhs, rhs| arithmetic(Arithmetic::Add, lhs, rhs, Integers::Machine, span).unwrap();
        let int = CType::Int(INT).interval();
        let full = || value(INT, -(1 << 31), (1 << 31) - 1);
        assert_eq!(kind_of(&add(full(), value(INT, 1, 1))), "checked");
        assert_eq!(kind_of(&add(value(INT, 0, 100), value(INT, 1, 1))), "exact");
        let unsigned = || value(UINT, 0, (1 << 32) - 1);
        assert_eq!(kind_of(&add(unsigned(), value(UINT, 1, 1))), "wrapped");
        // An int converted to unsigned wraps; a small non-negative one does not.
        assert_eq!(kind_of(&convert(full(), CType::Int(UINT), Integers::Machine, span).unwrap()), "wrapped");
        assert_eq!(kind_of(&convert(value(INT, 0, 9), CType::Int(UINT), Integers::Machine, span).unwrap()), "exact");
        // A long narrowed to int wraps as two's complement.
        let narrowed = convert(value(LONG, -(1 << 40), 1 << 40), CType::Int(INT), Integers::Machine, span).unwrap();
        assert_eq!((kind_of(&narrowed), narrowed.interval), ("wrapped", int));
        // Mathematical integers never wrap or check.
        let math = arithmetic(Arithmetic::Add, full(), value(INT, 1, 1), Integers::Mathematical, span).unwrap();
        assert_eq!(kind_of(&math), "exact");
    }

    #[test]
    fn the_global_id_fits_an_int_within_the_launch_limit() {
        let span = Span::new(0, 1);
        let id = |builtin: Builtin| Value {
            expr: surface::Expr::new(surface::ExprKind::Builtin(builtin), span).unwrap(),
            ty: CType::Int(UINT),
            interval: builtin_interval(builtin),
        };
        let axis = lockstep_logic::Axis::X;
        let offset = arithmetic(
            Arithmetic::Mul,
            id(Builtin::GroupId(axis)),
            id(Builtin::GroupSize(axis)),
            Integers::Machine,
            span,
        )
        .unwrap();
        assert_eq!(kind_of(&offset), "exact");
        let global = arithmetic(Arithmetic::Add, offset, id(Builtin::LocalId(axis)), Integers::Machine, span).unwrap();
        assert_eq!((kind_of(&global), global.interval), ("exact", Interval::new(0, LAUNCH_LIMIT - 1)));
        // Two ids of different axes multiply to something the limit does not bound.
        let mixed = arithmetic(
            Arithmetic::Mul,
            id(Builtin::GroupId(axis)),
            id(Builtin::GroupSize(lockstep_logic::Axis::Y)),
            Integers::Machine,
            span,
        )
        .unwrap();
        assert_eq!(kind_of(&mixed), "wrapped");
    }
}
