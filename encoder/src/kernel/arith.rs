//! Integer arithmetic spelled for the solver: `mod` and `div` by the launch's sizes in the linear
//! cases kernels index by (`proofs/kernel.md`, E9), the number of groups, and array bounds.

use super::names;
use crate::ivl::{BinaryOp, Expr};
use num_bigint::BigInt;

/// `x mod m`, spelled so that the solver need not reason about a symbolic modulus (E9). Every
/// rewrite keeps the value for every `m` (for `m <= 0` every range below is empty and the last
/// case is taken):
/// - a summand `k * m` of `x` is dropped, since `(y + k*m) mod m == y mod m`; thread ids are
///   `gid * gsize + lid`, so `(tid + 1) mod gsize` becomes `(lid + 1) mod gsize`;
/// - `x` in `[0, m)` is its own remainder, `x` in `[m, 2m)` gives `x - m`, `x` in `[-m, 0)` gives
///   `x + m`: linear cases, which decide the usual neighbour indices.
///
/// For `m = gsize`, which is positive, two more rewrites make ring offsets `(lid + c) mod gsize`
/// cost the same for every literal `c`:
/// - a summand `y mod m` of `x` becomes `y`, since `((y mod m) + z) mod m == (y + z) mod m`: an
///   index that goes round the ring twice, such as `((lid + 3) mod gsize + 2) mod gsize`, is
///   spelled as `(lid + 5) mod gsize` is, one term the solver compares without arithmetic;
/// - `y + c` with a literal `c` outside `[-1, 1]` becomes `s` or `s - m` for
///   `s = (y mod m) + (c mod m)`, which lies in `[0, 2m)`: two linear cases instead of the `c + 1`
///   that `lid + c` spans when `gsize` is small (`c mod m` is a term the solver only bounds).
pub fn modulo(x: Expr, m: Expr) -> Expr {
    let x = without_multiples(x, &m);
    let gsize = m == Expr::var(names::GSIZE);
    let x = if gsize { without_inner_modulo(x, &m) } else { x };
    // The literals gathered into one, so that equal sums are spelled alike.
    let (rest, offset) = split_literal(&x);
    let zero = Expr::int(0);
    let x = match (rest == zero, offset == BigInt::from(0)) {
        (true, _) => Expr::Int(offset.clone()),
        (false, true) => rest.clone(),
        (false, false) => Expr::binary(BinaryOp::Add, rest.clone(), Expr::Int(offset.clone())),
    };
    let plain = Expr::binary(BinaryOp::Mod, x.clone(), m.clone());
    if gsize && (offset >= BigInt::from(2) || offset <= BigInt::from(-2)) {
        let sum = Expr::binary(
            BinaryOp::Add,
            modulo(rest, m.clone()),
            Expr::binary(BinaryOp::Mod, Expr::Int(offset), m.clone()),
        );
        return ite(
            Expr::binary(BinaryOp::Lt, sum.clone(), m.clone()),
            sum.clone(),
            ite(
                Expr::binary(BinaryOp::Lt, sum.clone(), Expr::binary(BinaryOp::Add, m.clone(), m.clone())),
                Expr::binary(BinaryOp::Sub, sum, m),
                plain,
            ),
        );
    }
    cases(
        &x,
        &m,
        [
            x.clone(),
            Expr::binary(BinaryOp::Sub, x.clone(), m.clone()),
            Expr::binary(BinaryOp::Add, x.clone(), m.clone()),
        ],
        plain,
    )
}

fn ite(cond: Expr, then_value: Expr, else_value: Expr) -> Expr {
    Expr::IfThenElse(Box::new(cond), Box::new(then_value), Box::new(else_value))
}

/// `x` as `y + c` with `c` the sum of its literal summands (`y` is `0` when there is no other).
fn split_literal(x: &Expr) -> (Expr, BigInt) {
    let mut literals = Vec::new();
    let literal = |summand: &Expr| matches!(summand, Expr::Int(_)).then(|| summand.clone());
    let rest = strip(x.clone(), &literal, true, &mut literals);
    let offset = literals.into_iter().fold(BigInt::from(0), |sum, (positive, literal)| match literal {
        Expr::Int(value) if positive => sum + value,
        Expr::Int(value) => sum - value,
        _ => unreachable!("only literals are taken"),
    });
    (rest.unwrap_or_else(|| Expr::int(0)), offset)
}

/// `x` with each summand that [`modulo`]`(y, m)` built replaced by `y`; a summand under `-` stays.
fn without_inner_modulo(x: Expr, m: &Expr) -> Expr {
    match x {
        Expr::Binary(BinaryOp::Add, left, right) => {
            Expr::binary(BinaryOp::Add, without_inner_modulo(*left, m), without_inner_modulo(*right, m))
        }
        Expr::Binary(BinaryOp::Sub, left, right) => Expr::binary(BinaryOp::Sub, without_inner_modulo(*left, m), *right),
        other => dividend(&other, m).unwrap_or(other),
    }
}

/// The `y` of an expression that is exactly [`modulo`]`(y, m)`: the `y` of the `y mod m` its
/// cases end in, confirmed by building `modulo(y, m)` again (a conditional written in the kernel
/// may end the same way).
fn dividend(expr: &Expr, m: &Expr) -> Option<Expr> {
    let mut last = expr;
    while let Expr::IfThenElse(_, _, otherwise) = last {
        last = otherwise;
    }
    let Expr::Binary(BinaryOp::Mod, y, modulus) = last else { return None };
    if last == expr || **modulus != *m {
        return None;
    }
    (modulo((**y).clone(), m.clone()) == *expr).then(|| (**y).clone())
}

/// The number of groups, `tcount div gsize`, spelled as [`euclidean_division`] spells it.
pub fn groups() -> Expr {
    euclidean_division(Expr::var(names::TCOUNT), Expr::var(names::GSIZE))
}

/// `x div m`, with the same linear cases as [`modulo`] (quotients 0, 1 and -1). Multiples of
/// `m` are taken out (`(y + k*m) div m == y div m + k`) only for `gsize`, which is positive.
pub fn euclidean_division(x: Expr, m: Expr) -> Expr {
    let (x, quotient) = if m == Expr::var(names::GSIZE) { split_multiples(x, &m) } else { (x, Vec::new()) };
    let plain = Expr::binary(BinaryOp::Div, x.clone(), m.clone());
    let divided = cases(&x, &m, [Expr::int(0), Expr::int(1), Expr::int(-1)], plain);
    quotient
        .into_iter()
        .fold(divided, |sum, (sign, k)| Expr::binary(if sign { BinaryOp::Add } else { BinaryOp::Sub }, sum, k))
}

/// `if 0 <= x < m then first else if m <= x < 2m then second else if -m <= x < 0 then third else plain`,
/// or only `plain` when `x` holds a conditional already: such an `x` is mostly cases itself (an
/// id's coordinate inside the inverse of a two-dimensional index), and cases of cases repeat `x`
/// four times a level, which made a 2-D stencil's barrier procedure 32 MB of SMT-LIB; `plain` is
/// the same value (E9).
fn cases(x: &Expr, m: &Expr, [first, second, third]: [Expr; 3], plain: Expr) -> Expr {
    let mut nested = false;
    x.walk(&mut |inner| nested |= matches!(inner, Expr::IfThenElse(..)));
    if nested {
        return plain;
    }
    let within = |low: Expr, high: Expr| {
        Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, low, x.clone()),
            Expr::binary(BinaryOp::Lt, x.clone(), high),
        )
    };
    let twice = Expr::binary(BinaryOp::Add, m.clone(), m.clone());
    let negative = Expr::binary(BinaryOp::Sub, Expr::int(0), m.clone());
    ite(
        within(Expr::int(0), m.clone()),
        first,
        ite(within(m.clone(), twice), second, ite(within(negative, Expr::int(0)), third, plain)),
    )
}

fn without_multiples(x: Expr, m: &Expr) -> Expr {
    split_multiples(x, m).0
}

/// `x` as `y + sum of ±k*m`: `y`, and the `k`s with their signs (true for plus).
fn split_multiples(x: Expr, m: &Expr) -> (Expr, Vec<(bool, Expr)>) {
    let multiple = |summand: &Expr| match summand {
        Expr::Binary(BinaryOp::Mul, left, right) if **right == *m => Some((**left).clone()),
        Expr::Binary(BinaryOp::Mul, left, right) if **left == *m => Some((**right).clone()),
        _ => None,
    };
    let mut multiples = Vec::new();
    let rest = strip(x, &multiple, true, &mut multiples);
    (rest.unwrap_or_else(|| Expr::int(0)), multiples)
}

/// The summands of the sum `x` that `take` does not take, or `None` when there are none; what it
/// takes of each taken summand goes to `taken`, with the summand's sign (true for plus).
fn strip(x: Expr, take: &dyn Fn(&Expr) -> Option<Expr>, positive: bool, taken: &mut Vec<(bool, Expr)>) -> Option<Expr> {
    if let Some(part) = take(&x) {
        taken.push((positive, part));
        return None;
    }
    match x {
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), left, right) => {
            let left = strip(*left, take, positive, taken);
            let right = strip(*right, take, if op == BinaryOp::Add { positive } else { !positive }, taken);
            match (left, right) {
                (Some(left), Some(right)) => Some(Expr::binary(op, left, right)),
                (Some(left), None) => Some(left),
                (None, Some(right)) if op == BinaryOp::Add => Some(right),
                (None, Some(right)) => Some(Expr::binary(BinaryOp::Sub, Expr::int(0), right)),
                (None, None) => None,
            }
        }
        other => Some(other),
    }
}

pub fn in_bounds(index: &Expr, size: Expr) -> Expr {
    Expr::binary(
        BinaryOp::And,
        Expr::binary(BinaryOp::Le, Expr::int(0), index.clone()),
        Expr::binary(BinaryOp::Lt, index.clone(), size),
    )
}
