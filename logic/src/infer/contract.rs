//! A footprint as a contract clause: a permission atom per access, write (1) for a written cell
//! and `read` for one only read, made disjoint so that one thread never claims a cell twice (two
//! claims of one cell would add up to more than a write, which the resource checks reject).

use super::footprint::{self, Access, Footprint};
use super::Inference;
use crate::{
    Amount, Assertion, AssertionKind, BinaryOp, Clause, Expr, ExprKind, PermAtom, Quantifier, Span, Type, VarId,
};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::HashMap;

impl Inference<'_> {
    /// The footprint as clauses (none when it is empty), spanning `span`: [`Inference::clauses`]
    /// one after the other.
    pub(super) fn clause(&mut self, footprint: Footprint, span: Span) -> Vec<Clause> {
        let (free, reading) = self.clauses(footprint, span);
        free.into_iter().chain(reading).collect()
    }

    /// The footprint as a clause of the atoms whose cells are named without reading memory, and
    /// one of those named through a read of memory (an array no statement writes, `out[p[tid]]`),
    /// which the first frames and a written fact may bound, so that it comes after both.
    pub(super) fn clauses(&mut self, footprint: Footprint, span: Span) -> (Option<Clause>, Option<Clause>) {
        let (writes, reads): (Vec<Access>, Vec<Access>) =
            footprint.accesses.into_iter().partition(|access| access.write);
        let (writes, written) = self.disjoint(writes, &[]);
        let (reads, _) = self.disjoint(reads, &written);
        let (reading, free): (Vec<&Access>, Vec<&Access>) =
            writes.iter().chain(&reads).partition(|access| reads_memory_anywhere(access));
        let mut star = |accesses: Vec<&Access>| {
            let atoms = accesses.into_iter().map(|access| self.atom(access));
            let assertion = atoms.reduce(|lhs, rhs| {
                let span = lhs.span.to(rhs.span);
                Assertion { kind: AssertionKind::Star(Box::new(lhs), Box::new(rhs)), span }
            })?;
            Some(Clause { assertion, span })
        };
        (star(free), star(reading))
    }

    /// `g -> (\forall* b1; r1; ... (\forall* bn; rn; Perm(a[index], q)))`, each guard in the
    /// range of the innermost binder it names, with binders of its own.
    fn atom(&mut self, access: &Access) -> Assertion {
        let span = access.span;
        let renaming: HashMap<VarId, Expr> =
            access.binders.iter().map(|&binder| (binder, footprint::var(self.fresh(span), span))).collect();
        let binders: Vec<VarId> = access
            .binders
            .iter()
            .map(|binder| match renaming[binder].kind {
                ExprKind::Var(var) => var,
                _ => unreachable!("a binder is renamed to a variable"),
            })
            .collect();
        let guards: Vec<Expr> = access
            .guards
            .iter()
            .map(|guard| footprint::with_unsigned_wraps(&self.pins.pinned(&guard.substitute(&renaming))))
            .collect();
        let amount = if access.write { Amount::Exact(BigRational::from_integer(1.into())) } else { Amount::Read };
        let index = footprint::simplified(&self.pins.pinned(&access.index.substitute(&renaming)));
        let atom = PermAtom { array: access.array, index, amount };
        let mut ranges: Vec<Vec<Expr>> = vec![Vec::new(); binders.len() + 1];
        for guard in guards {
            let innermost = binders.iter().rposition(|&binder| guard.mentions(binder)).map_or(0, |at| at + 1);
            ranges[innermost].push(guard);
        }
        let mut assertion = Assertion { kind: AssertionKind::Perm(atom), span };
        for (position, &binder) in binders.iter().enumerate().rev() {
            let range = footprint::all(std::mem::take(&mut ranges[position + 1]), span);
            assertion =
                Assertion { kind: AssertionKind::ForallStar { var: binder, range, body: Box::new(assertion) }, span };
        }
        let outer = std::mem::take(&mut ranges[0]);
        if !outer.is_empty() {
            assertion =
                Assertion { kind: AssertionKind::Implies(footprint::all(outer, span), Box::new(assertion)), span };
        }
        assertion
    }

    /// The accesses, each without the cells of the ones before it and of `others`; one that those
    /// cover is dropped. Also the accesses kept as they were: their cells are those of the
    /// disjoint ones, told by smaller guards (the guard of a disjoint access names every access
    /// before it, so telling membership by it would grow exponentially with their number).
    fn disjoint(&mut self, accesses: Vec<Access>, others: &[Access]) -> (Vec<Access>, Vec<Access>) {
        let mut kept: Vec<Access> = Vec::new();
        let mut originals: Vec<Access> = Vec::new();
        for access in accesses {
            let earlier: Vec<&Access> =
                others.iter().chain(originals.iter()).filter(|other| other.array == access.array).collect();
            if earlier.iter().any(|other| covers(other, &access)) {
                continue;
            }
            let mut disjoint = access.clone();
            for other in earlier {
                let claimed = self.member(other, &access.index);
                // Two different numbers never name one cell (`a[0]` and `a[1]`), nor do `e` and `e + 1`.
                if !matches!(claimed.kind, ExprKind::Bool(false)) {
                    disjoint.guards.push(footprint::not(&claimed));
                }
            }
            kept.push(disjoint);
            originals.push(access);
        }
        (kept, originals)
    }

    /// Whether `access` claims the cell `index`: its guards with its index equal to `index`,
    /// under an existential over (new copies of) its binders, none needed when its index is its
    /// only binder.
    fn member(&mut self, access: &Access, index: &Expr) -> Expr {
        let span = index.span;
        if let ([binder], ExprKind::Var(var)) = (access.binders.as_slice(), &access.index.kind) {
            if binder == var {
                let at = HashMap::from([(*binder, index.clone())]);
                return footprint::all(access.guards.iter().map(|guard| guard.substitute(&at)).collect(), span);
            }
        }
        if access.binders.is_empty() {
            let (mine, theirs) = (footprint::simplified(&access.index), footprint::simplified(index));
            let ((base, offset), (their_base, their_offset)) = (with_offset(&mine), with_offset(&theirs));
            match (&mine.kind, &theirs.kind) {
                (ExprKind::Int(a), ExprKind::Int(b)) if a != b => {
                    return Expr { kind: ExprKind::Bool(false), ty: Type::Bool, span };
                }
                // `e + 3` and `e + 2` never name one cell.
                _ if offset != their_offset && footprint::same(base, their_base) => {
                    return Expr { kind: ExprKind::Bool(false), ty: Type::Bool, span };
                }
                // The same index: the cell is claimed where the guards hold.
                _ if footprint::same(&mine, &theirs) => return footprint::all(access.guards.clone(), span),
                _ => {}
            }
        }
        let copies: Vec<VarId> = access.binders.iter().map(|_| self.fresh(span)).collect();
        let renaming: HashMap<VarId, Expr> =
            access.binders.iter().zip(&copies).map(|(&binder, &copy)| (binder, footprint::var(copy, span))).collect();
        let equal = footprint::binary(crate::BinaryOp::Eq, access.index.substitute(&renaming), index.clone());
        let guards = access.guards.iter().map(|guard| guard.substitute(&renaming));
        let mut body = footprint::all(guards.chain([equal]).collect(), span);
        for &copy in copies.iter().rev() {
            let range = Expr { kind: ExprKind::Bool(true), ty: Type::Bool, span };
            let kind = ExprKind::Quantifier {
                quantifier: Quantifier::Exists,
                var: copy,
                range: Box::new(range),
                body: Box::new(body),
            };
            body = Expr { kind, ty: Type::Bool, span };
        }
        body
    }
}

/// Whether `outer` claims every cell `inner` does, by their form: the same index under fewer
/// guards, or every cell of the array.
fn covers(outer: &Access, inner: &Access) -> bool {
    let guards_within =
        |guards: &[Expr]| guards.iter().all(|guard| inner.guards.iter().any(|other| footprint::same(guard, other)));
    if outer.is_whole() {
        let binder = outer.binders[0];
        let conditions: Vec<Expr> = outer.guards.iter().filter(|guard| !guard.mentions(binder)).cloned().collect();
        return guards_within(&conditions);
    }
    if outer.binders.len() != inner.binders.len() {
        return false;
    }
    // Binders are compared by position: the same cells under other names.
    let renaming: HashMap<VarId, Expr> = outer
        .binders
        .iter()
        .zip(&inner.binders)
        .map(|(&binder, &name)| (binder, footprint::var(name, inner.span)))
        .collect();
    let guards: Vec<Expr> = outer.guards.iter().map(|guard| guard.substitute(&renaming)).collect();
    footprint::same(&outer.index.substitute(&renaming), &inner.index) && guards_within(&guards)
}

/// An index as `base + offset`, the offset a number (`0` where there is none).
fn with_offset(index: &Expr) -> (&Expr, BigInt) {
    match &index.kind {
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => match &rhs.kind {
            ExprKind::Int(offset) => (lhs, offset.clone()),
            _ => (index, BigInt::from(0)),
        },
        ExprKind::Binary { op: BinaryOp::Sub, lhs, rhs } => match &rhs.kind {
            ExprKind::Int(offset) => (lhs, -offset.clone()),
            _ => (index, BigInt::from(0)),
        },
        _ => (index, BigInt::from(0)),
    }
}

/// Whether an access's index or guards read memory.
fn reads_memory_anywhere(access: &Access) -> bool {
    footprint::reads_memory(&access.index) || access.guards.iter().any(footprint::reads_memory)
}
