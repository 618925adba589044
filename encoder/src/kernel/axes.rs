//! Launches of two and three dimensions: the ids and sizes of each axis as expressions of the
//! linear ids and sizes the rest of the encoding uses (`proofs/kernel.md`, E17).
//!
//! The threads of a group are numbered `x` fastest, `lid == lid_x + gsize_x * (lid_y + gsize_y *
//! lid_z)`, and the groups alike, so the coordinate of `lid` along an axis is `lid div below mod
//! size`, `below` the product of the sizes of the axes before it; along the kernel's last axis no
//! `mod` is needed. A size that a precondition pins (`requires gsize_x == 16;`) is that literal, so
//! that a tile's coordinates are a division and a remainder by a constant, which the solver decides
//! as it decides `lid / 16`; any other size is a constant of the launch, at least 1, and the sizes
//! of the axes above the kernel's dimensions are 1. The launch facts tie the axes to the linear
//! sizes: `gsize` is the product of the group's sizes, the number of groups the product of theirs.
//!
//! A coordinate whose arithmetic divides by an unknown size is a function of the linear id,
//! `gid_y_of(gid)`, defined for the ids of the launch by an axiom that also states its range
//! (`0 <= gid_y_of(gid) < groups_y`): that bound follows from `gid < groups_x * groups_y` only by
//! non-linear reasoning, which the solver would otherwise search for in every query that compares
//! two groups' cells.

use super::arith::{self, euclidean_division};
use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Quantifier, Type};
use lockstep_logic::{self as logic, Axis, Builtin};

/// The size of the group (`groups` false) or of the grid of groups along `axis`.
pub(super) fn size(kernel: &logic::Kernel, axis: Axis, groups: bool) -> Expr {
    let builtin = if groups { Builtin::Groups(axis) } else { Builtin::GroupSize(axis) };
    if axis.dimensions() > kernel.dimensions {
        return Expr::int(1);
    }
    match kernel.pinned_size(builtin) {
        Some(value) => Expr::Int(value),
        None if kernel.dimensions == 1 => total(groups),
        None => Expr::var(builtin.name()),
    }
}

/// The number of threads per group (`groups` false) or of groups, as [`size`] gives it for a
/// kernel of one dimension (a literal where a precondition pins it); the linear constant for more.
pub(super) fn linear_size(kernel: &logic::Kernel, groups: bool) -> Expr {
    if kernel.dimensions == 1 {
        size(kernel, Axis::X, groups)
    } else {
        total(groups)
    }
}

/// The number of threads in the kernel: a literal where both sizes of a kernel of one dimension
/// are pinned, else the launch constant.
pub(super) fn thread_count(kernel: &logic::Kernel) -> Expr {
    match (linear_size(kernel, false), linear_size(kernel, true)) {
        (Expr::Int(gsize), Expr::Int(groups)) => Expr::Int(gsize * groups),
        _ => Expr::var(super::names::TCOUNT),
    }
}

/// The coordinate along `axis` of the linear id `linear` of a thread in its group (`groups` false)
/// or of a group in the grid.
pub(super) fn coordinate(kernel: &logic::Kernel, linear: Expr, axis: Axis, groups: bool) -> Expr {
    if axis.dimensions() > kernel.dimensions {
        return Expr::int(0);
    }
    match function(kernel, axis, groups) {
        Some(name) => Expr::Call(name, vec![linear]),
        None => arithmetic(kernel, linear, axis, groups),
    }
}

/// `linear div below mod size`, without the `mod` on the last axis.
fn arithmetic(kernel: &logic::Kernel, linear: Expr, axis: Axis, groups: bool) -> Expr {
    let below = below(kernel, axis, groups);
    let quotient = if below == Expr::int(1) { linear } else { euclidean_division(linear, below) };
    if axis.dimensions() == kernel.dimensions {
        quotient
    } else {
        arith::modulo(quotient, size(kernel, axis, groups))
    }
}

/// The product of the sizes of the axes before `axis`.
fn below(kernel: &logic::Kernel, axis: Axis, groups: bool) -> Expr {
    Axis::ALL[..axis as usize].iter().fold(Expr::int(1), |product, &lower| times(product, size(kernel, lower, groups)))
}

/// The name of the function that gives the coordinate, where its arithmetic divides by an unknown
/// size; `None` where every size it divides by is a literal.
fn function(kernel: &logic::Kernel, axis: Axis, groups: bool) -> Option<String> {
    let last = axis.dimensions() == kernel.dimensions;
    let divisors = [below(kernel, axis, groups)].into_iter().chain((!last).then(|| size(kernel, axis, groups)));
    let literal = divisors.into_iter().all(|divisor| matches!(divisor, Expr::Int(_)));
    let id = if groups { Builtin::GroupId(axis) } else { Builtin::LocalId(axis) };
    (!literal).then(|| format!("{}_of", id.name()))
}

/// The number of threads per group, or of groups.
fn total(groups: bool) -> Expr {
    if groups {
        arith::groups()
    } else {
        Expr::var(super::names::GSIZE)
    }
}

/// The launch constants of the axes' sizes that no precondition pins, the launch facts (each size
/// is at least 1, `gsize` is the product of the group's sizes and the number of groups the product
/// of the grid's; in one dimension, the value of each pinned size), and the coordinate functions
/// with their definitions.
pub(super) fn launch(kernel: &logic::Kernel) -> Vec<Declaration> {
    if kernel.dimensions == 1 {
        // A pinned size is a literal in the encoding; the launch constants equal it.
        let pinned = [(total(false), linear_size(kernel, false)), (total(true), linear_size(kernel, true))];
        let facts = pinned.into_iter().chain([(Expr::var(super::names::TCOUNT), thread_count(kernel))]);
        return facts
            .filter(|(_, size)| matches!(size, Expr::Int(_)))
            .map(|(constant, size)| Declaration::Axiom(Expr::binary(BinaryOp::Eq, constant, size)))
            .collect();
    }
    let mut declarations = Vec::new();
    for groups in [false, true] {
        let axes = &Axis::ALL[..kernel.dimensions];
        for &axis in axes {
            if let Expr::Var(name) = size(kernel, axis, groups) {
                declarations.push(Declaration::Const(Binding::new(&name, Type::Int)));
                declarations.push(Declaration::Axiom(Expr::binary(BinaryOp::Ge, Expr::var(&name), Expr::int(1))));
            }
        }
        let product = axes.iter().fold(Expr::int(1), |product, &axis| times(product, size(kernel, axis, groups)));
        declarations.push(Declaration::Axiom(Expr::binary(BinaryOp::Eq, total(groups), product)));
        for &axis in axes {
            let Some(name) = function(kernel, axis, groups) else { continue };
            declarations.push(Declaration::Function(ivl::Function {
                name: name.clone(),
                params: vec![Binding::new("id", Type::Int)],
                result: Type::Int,
                body: None,
            }));
            // forall id :: {f(id)} 0 <= id < total ==>
            //   f(id) == id div below mod size && 0 <= f(id) < size && id == sum of coordinates * strides
            let id = Expr::var("id");
            let applied = Expr::Call(name, vec![id.clone()]);
            let defined = [
                Expr::binary(BinaryOp::Eq, applied.clone(), arithmetic(kernel, id.clone(), axis, groups)),
                arith::in_bounds(&applied, size(kernel, axis, groups)),
                Expr::binary(BinaryOp::Eq, id.clone(), recomposed(kernel, &id, groups)),
            ]
            .into_iter()
            .reduce(|left, right| Expr::binary(BinaryOp::And, left, right))
            .expect("three conjuncts");
            declarations.push(Declaration::Axiom(Expr::Quantified {
                quantifier: Quantifier::Forall,
                bound: vec![Binding::new("id", Type::Int)],
                triggers: vec![vec![applied]],
                body: Box::new(Expr::binary(BinaryOp::Implies, arith::in_bounds(&id, total(groups)), defined)),
            }));
        }
    }
    declarations
}

/// What a counterexample shows of a launch of several dimensions, after the linear ids and sizes:
/// the group's and the thread's coordinates along each axis, then the sizes along each axis, each
/// with the expression that gives it; nothing for one dimension.
pub(super) fn shown(kernel: &logic::Kernel) -> Vec<(String, Expr)> {
    if kernel.dimensions == 1 {
        return Vec::new();
    }
    let axes = &Axis::ALL[..kernel.dimensions];
    let ids = [(true, super::names::GID), (false, super::names::LID)].into_iter().flat_map(|(groups, linear)| {
        axes.iter().map(move |&axis| {
            let id = if groups { Builtin::GroupId(axis) } else { Builtin::LocalId(axis) };
            (id.name().to_string(), coordinate(kernel, Expr::var(linear), axis, groups))
        })
    });
    let sizes = [false, true].into_iter().flat_map(|groups| {
        axes.iter().map(move |&axis| {
            let count = if groups { Builtin::Groups(axis) } else { Builtin::GroupSize(axis) };
            (count.name().to_string(), size(kernel, axis, groups))
        })
    });
    ids.chain(sizes).collect()
}

/// `coordinate_x(id) + size_x * (coordinate_y(id) + size_y * coordinate_z(id))`: the linear id
/// again, which the solver would otherwise have to find from the divisions.
fn recomposed(kernel: &logic::Kernel, id: &Expr, groups: bool) -> Expr {
    Axis::ALL[..kernel.dimensions].iter().rev().fold(Expr::int(0), |inner, &axis| {
        let coordinate = coordinate(kernel, id.clone(), axis, groups);
        if inner == Expr::int(0) {
            coordinate
        } else {
            Expr::binary(BinaryOp::Add, coordinate, times(size(kernel, axis, groups), inner))
        }
    })
}

/// `a * b`, folded where both are literals and where one is 1.
fn times(a: Expr, b: Expr) -> Expr {
    match (&a, &b) {
        (Expr::Int(x), Expr::Int(y)) => Expr::Int(x * y),
        (Expr::Int(one), _) if *one == 1.into() => b,
        (_, Expr::Int(one)) if *one == 1.into() => a,
        _ => Expr::binary(BinaryOp::Mul, a, b),
    }
}
