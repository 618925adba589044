//! Ground facts about the products of a query (V8 in `proofs/vcgen.md`).
//!
//! Matrices are indexed as `row * w + col` with a symbolic width `w`, and a query that holds such
//! an index under quantifiers, next to an array size such as `w * tcount`, sends z3's non-linear
//! arithmetic searching for seconds, or for ever, for facts as plain as `tid * w + w <= tcount * w`.
//! This module states those facts once, as linear implications between the products the query
//! names: for two products `a * w` and `c * w` with a common factor `w`,
//! `w >= 0 && a < c ==> a * w + w <= c * w` and `w >= 0 && a <= c ==> a * w <= c * w`, both ways.
//! That is what bounds a row `tid * w + j` (`0 <= j < w`) inside an array of `w * tcount` cells,
//! and keeps two threads' rows apart. A product that shares no factor with another gets no fact,
//! so such queries stay as they were (sign facts, tried as well, only perturbed queries that were
//! fine).
//!
//! A product with a factor read from memory (`alpha * x[i]`) indexes nothing and gets no fact: the
//! facts only lengthened z3's search for the counterexample of a wrong saxpy (30 ms to 140 ms).
//!
//! Each fact is a theorem of integer arithmetic, so adding it changes no answer; it only spares the
//! solver the search. Only ground products count (no variable bound by a quantifier or a lambda in
//! them), since a fact about a bound variable's product would have to be instantiated.

use crate::smt::{Command, Op, Script, Sort, Term};
use std::collections::HashMap;

/// More products with one common factor than this get order facts only among the first ones: the
/// facts grow with the square of their number, and indexing needs few.
const MAX_SHARING: usize = 12;

/// The facts about the ground integer products among the script's assertions.
pub(super) fn facts(script: &Script) -> Vec<Term> {
    let sorts = Sorts::declared_in(script);
    let mut products = Vec::new();
    for term in script.assertions() {
        collect(term, &sorts, &mut Vec::new(), &mut products);
    }
    let mut facts = Vec::new();
    let mut sharing: Vec<(&Term, Vec<(&Term, &Term)>)> = Vec::new();
    for (product, left, right) in &products {
        for (factor, other) in [(left, right), (right, left)] {
            match sharing.iter_mut().find(|(common, _)| *common == factor) {
                Some((_, others)) => others.push((other, product)),
                None => sharing.push((factor, vec![(other, product)])),
            }
            if left == right {
                break;
            }
        }
    }
    for (common, others) in &sharing {
        let others = &others[..others.len().min(MAX_SHARING)];
        for (index, &(a, first)) in others.iter().enumerate() {
            for &(c, second) in &others[index + 1..] {
                if first == second {
                    continue;
                }
                facts.extend(order(common, (a, first), (c, second)));
                facts.extend(order(common, (c, second), (a, first)));
            }
        }
    }
    facts
}

/// `w >= 0 && a < c ==> a*w + w <= c*w` and `w >= 0 && a <= c ==> a*w <= c*w`.
fn order(common: &Term, (a, first): (&Term, &Term), (c, second): (&Term, &Term)) -> [Term; 2] {
    let guarded = |op: Op, conclusion: Term| {
        Term::implies(Term::and(vec![non_negative(common), Term::app(op, vec![a.clone(), c.clone()])]), conclusion)
    };
    let shifted = Term::app(Op::Add, vec![first.clone(), common.clone()]);
    [
        guarded(Op::Lt, Term::app(Op::Le, vec![shifted, second.clone()])),
        guarded(Op::Le, Term::app(Op::Le, vec![first.clone(), second.clone()])),
    ]
}

fn non_negative(term: &Term) -> Term {
    Term::app(Op::Ge, vec![term.clone(), Term::Int(0.into())])
}

/// Gathers `(x * y, x, y)` for every product of two integer terms, neither a literal, that no
/// enclosing binder's variable occurs in, each once.
fn collect(term: &Term, sorts: &Sorts, bound: &mut Vec<String>, products: &mut Vec<(Term, Term, Term)>) {
    match term {
        Term::App(op, args) => {
            if let (Op::Mul, [left, right]) = (op, args.as_slice()) {
                // An index multiplies ids, sizes and variables; a product of a value read from
                // memory (`alpha * x[i]`) indexes nothing, and facts about it only lengthen the
                // search for a counterexample.
                let symbolic = |factor: &Term| !matches!(factor, Term::Int(_)) && !reads_memory(factor);
                if symbolic(left)
                    && symbolic(right)
                    && sorts.sort(left, bound) == Some(Sort::Int)
                    && !term.mentions(bound)
                    && !products.iter().any(|(product, _, _)| product == term)
                {
                    products.push((term.clone(), left.clone(), right.clone()));
                }
            }
            for arg in args {
                collect(arg, sorts, bound, products);
            }
        }
        Term::Quantifier { bound: names, body, .. } => {
            let depth = bound.len();
            bound.extend(names.iter().map(|(name, _)| name.clone()));
            collect(body, sorts, bound, products);
            bound.truncate(depth);
        }
        Term::Lambda { bound: (name, _), body } => {
            bound.push(name.clone());
            collect(body, sorts, bound, products);
            bound.pop();
        }
        Term::Bool(_) | Term::Int(_) | Term::Real(_) | Term::Symbol(_) => {}
    }
}

fn reads_memory(term: &Term) -> bool {
    match term {
        Term::App(Op::Select, _) => true,
        Term::App(_, args) => args.iter().any(reads_memory),
        Term::Quantifier { body, .. } | Term::Lambda { body, .. } => reads_memory(body),
        Term::Bool(_) | Term::Int(_) | Term::Real(_) | Term::Symbol(_) => false,
    }
}

/// The sorts of the script's constants and functions, enough to tell an integer product from a
/// real one.
struct Sorts {
    declared: HashMap<String, Sort>,
}

impl Sorts {
    fn declared_in(script: &Script) -> Sorts {
        let mut declared = HashMap::new();
        for command in &script.commands {
            match command {
                Command::DeclareConst(name, sort) | Command::DeclareFun(name, _, sort) => {
                    declared.insert(name.clone(), sort.clone());
                }
                Command::Assert(_) => {}
            }
        }
        Sorts { declared }
    }

    /// The sort of a ground term, when it is plain to see; `None` for a bound variable.
    fn sort(&self, term: &Term, bound: &[String]) -> Option<Sort> {
        match term {
            Term::Bool(_) => Some(Sort::Bool),
            Term::Int(_) => Some(Sort::Int),
            Term::Real(_) => Some(Sort::Real),
            Term::Symbol(name) if bound.contains(name) => None,
            Term::Symbol(name) => self.declared.get(name).cloned(),
            Term::App(op, args) => match op {
                Op::Add | Op::Sub | Op::Neg | Op::Mul => self.sort(args.first()?, bound),
                Op::IntDiv | Op::Mod => Some(Sort::Int),
                Op::RealDiv | Op::ToReal => Some(Sort::Real),
                Op::Ite => self.sort(args.get(1)?, bound),
                Op::Select => match self.sort(args.first()?, bound)? {
                    Sort::Array(_, range) => Some(*range),
                    _ => None,
                },
                Op::Store => self.sort(args.first()?, bound),
                Op::Apply(name) => self.declared.get(name).cloned(),
                Op::ConstArray(sort) => Some(sort.clone()),
                Op::Not | Op::And | Op::Or | Op::Implies | Op::Eq | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                    Some(Sort::Bool)
                }
            },
            Term::Quantifier { .. } => Some(Sort::Bool),
            Term::Lambda { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(name: &str) -> Command {
        Command::DeclareConst(name.into(), Sort::Int)
    }

    fn times(left: Term, right: Term) -> Term {
        Term::app(Op::Mul, vec![left, right])
    }

    fn below(left: Term, right: Term) -> Term {
        Term::app(Op::Lt, vec![left, right])
    }

    #[test]
    fn two_products_with_a_common_factor_are_ordered_both_ways() {
        let (tid, w, tcount) = (Term::symbol("tid"), Term::symbol("w"), Term::symbol("tcount"));
        let row = times(tid.clone(), w.clone());
        let size = times(w.clone(), tcount.clone());
        let script = Script {
            commands: vec![int("tid"), int("w"), int("tcount"), Command::Assert(below(row.clone(), size.clone()))],
        };
        let facts: Vec<String> = facts(&script).iter().map(ToString::to_string).collect();
        assert_eq!(
            facts,
            [
                "(=> (and (>= w 0) (< tid tcount)) (<= (+ (* tid w) w) (* w tcount)))",
                "(=> (and (>= w 0) (<= tid tcount)) (<= (* tid w) (* w tcount)))",
                "(=> (and (>= w 0) (< tcount tid)) (<= (+ (* w tcount) w) (* tid w)))",
                "(=> (and (>= w 0) (<= tcount tid)) (<= (* w tcount) (* tid w)))",
            ]
        );
    }

    #[test]
    fn products_under_a_binder_of_theirs_of_reals_or_of_a_literal_get_no_fact() {
        let (w, x) = (Term::symbol("w"), Term::symbol("x"));
        let bound = Term::Quantifier {
            forall: true,
            bound: vec![("j".into(), Sort::Int)],
            patterns: Vec::new(),
            body: Box::new(below(times(Term::symbol("j"), w.clone()), times(w.clone(), w.clone()))),
        };
        let real = below(times(x.clone(), x.clone()), times(x.clone(), Term::symbol("y")));
        let literal = below(times(Term::Int(2.into()), w.clone()), times(Term::Int(3.into()), w.clone()));
        let script = Script {
            commands: vec![
                int("w"),
                Command::DeclareConst("x".into(), Sort::Real),
                Command::DeclareConst("y".into(), Sort::Real),
                Command::Assert(bound),
                Command::Assert(real),
                Command::Assert(literal),
            ],
        };
        // `w * w` is the only ground integer product, and it shares its factor with no other.
        assert_eq!(facts(&script), Vec::<Term>::new());
    }

    #[test]
    fn products_of_values_read_from_memory_get_no_fact() {
        let alpha = Term::symbol("alpha");
        let read = |index: i64| Term::app(Op::Select, vec![Term::symbol("H"), Term::Int(index.into())]);
        let script = Script {
            commands: vec![
                int("alpha"),
                Command::DeclareConst("H".into(), Sort::Array(Box::new(Sort::Int), Box::new(Sort::Int))),
                Command::Assert(below(times(alpha.clone(), read(0)), times(alpha, read(1)))),
            ],
        };
        assert_eq!(facts(&script), Vec::<Term>::new());
    }
}
