//! Lemmas instantiated at the ground terms of a query (V9 in `proofs/vcgen.md`).
//!
//! A lemma ([`crate::ivl::Declaration::Lemma`]) is a quantified theorem whose instances make new
//! terms of the kind that triggers it, such as `sum(lo, hi) == sum(lo, hi - 1) + e[hi - 1]`.
//! Handed to the solver it would unfold for ever; here it is instantiated once, for every tuple
//! of ground terms of the query that matches one of its trigger sets syntactically, and each
//! instance is stated as a fact. Only terms of the query itself count (no variable bound by a
//! quantifier in them, and none of the instances' own terms), so the number of instances is
//! bounded by the query's size. An instance of a theorem is a theorem: no answer changes, the
//! solver only starts from more facts.

use super::substitute;
use crate::smt::{Op, Script, Term};
use std::cell::Cell;
use std::collections::HashMap;

/// A lemma stops being instantiated after this many instances in one query: a query naming
/// hundreds of sums of one function would otherwise get the square of that many facts.
const MAX_INSTANCES: usize = 400;

/// The instances of the lemmas at the ground applications among the script's assertions.
pub(super) fn instances(script: &Script, lemmas: &[Term]) -> Vec<Term> {
    let mut heads = Vec::new();
    for lemma in lemmas {
        if let Term::Quantifier { patterns, .. } = lemma {
            for term in patterns.iter().flatten() {
                if let Term::App(Op::Apply(name), _) = term {
                    heads.push(name.as_str());
                }
            }
        }
    }
    if heads.is_empty() {
        return Vec::new();
    }
    let mut applications: Vec<&Term> = Vec::new();
    for term in script.assertions() {
        collect(term, &heads, &mut Vec::new(), &mut applications);
    }
    let fresh = Cell::new(0);
    let mut facts = Vec::new();
    for lemma in lemmas {
        let Term::Quantifier { forall: true, bound, patterns, body } = lemma else { continue };
        let variables: Vec<&str> = bound.iter().map(|(name, _)| name.as_str()).collect();
        let mut matches = Vec::new();
        for pattern in patterns {
            matching(pattern, &applications, &variables, vec![None; variables.len()], &mut matches);
        }
        // Matches that differ only in variables the body does not use (those only a trigger
        // names) give the same instance, once.
        let used: Vec<bool> = variables.iter().map(|variable| body.mentions(&[variable])).collect();
        let mut seen: Vec<Vec<Option<&Term>>> = Vec::new();
        matches.retain(|bindings| {
            let key: Vec<Option<&Term>> =
                bindings.iter().zip(&used).map(|(term, used)| term.filter(|_| *used)).collect();
            let fresh = !seen.contains(&key);
            seen.push(key);
            fresh
        });
        for bindings in matches.into_iter().take(MAX_INSTANCES) {
            let replacements: HashMap<String, Term> = variables
                .iter()
                .zip(bindings)
                .filter_map(|(name, term)| term.map(|term| (name.to_string(), term.clone())))
                .collect();
            if replacements.len() == variables.len() {
                let instance = substitute(body, &replacements, &fresh);
                if !concludes_the_obvious(&instance) {
                    facts.push(instance);
                }
            }
        }
    }
    facts
}

/// Whether an instance ends in `x == x` (such as the frame of a sum with itself), which tells the
/// solver nothing.
fn concludes_the_obvious(instance: &Term) -> bool {
    match instance {
        Term::App(Op::Implies, args) => args.last().is_some_and(concludes_the_obvious),
        Term::App(Op::Eq, args) => args.len() == 2 && args[0] == args[1],
        _ => false,
    }
}

/// Every binding of the variables (by position) under which the pattern's terms are all among
/// the ground applications, extending `bindings`.
fn matching<'t>(
    pattern: &[Term],
    applications: &[&'t Term],
    variables: &[&str],
    bindings: Vec<Option<&'t Term>>,
    out: &mut Vec<Vec<Option<&'t Term>>>,
) {
    let Some((first, rest)) = pattern.split_first() else {
        out.push(bindings);
        return;
    };
    for application in applications {
        let mut extended = bindings.clone();
        if unify(first, application, variables, &mut extended) {
            matching(rest, applications, variables, extended, out);
        }
        if out.len() >= MAX_INSTANCES {
            return;
        }
    }
}

/// Whether `ground` is `pattern` under some extension of `bindings` (syntactically).
fn unify<'t>(pattern: &Term, ground: &'t Term, variables: &[&str], bindings: &mut [Option<&'t Term>]) -> bool {
    match (pattern, ground) {
        (Term::Symbol(name), _) if variables.contains(&name.as_str()) => {
            let position = variables.iter().position(|variable| variable == name).unwrap_or_default();
            match bindings[position] {
                Some(bound) => bound == ground,
                None => {
                    bindings[position] = Some(ground);
                    true
                }
            }
        }
        (Term::App(op, args), Term::App(ground_op, ground_args)) => {
            op == ground_op
                && args.len() == ground_args.len()
                && args.iter().zip(ground_args).all(|(arg, ground_arg)| unify(arg, ground_arg, variables, bindings))
        }
        _ => pattern == ground,
    }
}

/// Gathers the applications of the functions `heads` names that no enclosing binder's variable
/// occurs in, each once.
fn collect<'t>(term: &'t Term, heads: &[&str], bound: &mut Vec<&'t str>, out: &mut Vec<&'t Term>) {
    match term {
        Term::App(op, args) => {
            if matches!(op, Op::Apply(name) if heads.contains(&name.as_str()))
                && !term.mentions(bound)
                && !out.contains(&term)
            {
                out.push(term);
            }
            for arg in args {
                collect(arg, heads, bound, out);
            }
        }
        Term::Quantifier { bound: names, body, .. } => {
            let depth = bound.len();
            bound.extend(names.iter().map(|(name, _)| name.as_str()));
            collect(body, heads, bound, out);
            bound.truncate(depth);
        }
        Term::Lambda { bound: (name, _), body } => {
            bound.push(name);
            collect(body, heads, bound, out);
            bound.pop();
        }
        Term::Bool(_) | Term::Int(_) | Term::Real(_) | Term::Symbol(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::{Command, Sort};

    fn f(args: Vec<Term>) -> Term {
        Term::app(Op::Apply("f".into()), args)
    }

    fn int(value: i64) -> Term {
        Term::Int(value.into())
    }

    /// `forall a, b :: {f(a, b)} f(a, b) == b - a`.
    fn lemma() -> Term {
        let (a, b) = (Term::symbol("a"), Term::symbol("b"));
        Term::Quantifier {
            forall: true,
            bound: vec![("a".into(), Sort::Int), ("b".into(), Sort::Int)],
            patterns: vec![vec![f(vec![a.clone(), b.clone()])]],
            body: Box::new(Term::eq(f(vec![a.clone(), b.clone()]), Term::app(Op::Sub, vec![b, a]))),
        }
    }

    #[test]
    fn a_lemma_is_instantiated_at_each_ground_application_once() {
        let bound_use = Term::Quantifier {
            forall: true,
            bound: vec![("x".into(), Sort::Int)],
            patterns: Vec::new(),
            body: Box::new(Term::eq(f(vec![Term::symbol("x"), int(3)]), int(0))),
        };
        let script = Script {
            commands: vec![
                Command::Assert(Term::eq(f(vec![int(1), int(2)]), f(vec![int(1), int(2)]))),
                Command::Assert(Term::app(Op::Lt, vec![f(vec![int(2), int(5)]), int(0)])),
                Command::Assert(bound_use),
            ],
        };
        let facts = instances(&script, &[lemma()]);
        let expected: Vec<Term> = [(1, 2), (2, 5)]
            .map(|(a, b)| Term::eq(f(vec![int(a), int(b)]), Term::app(Op::Sub, vec![int(b), int(a)])))
            .into();
        assert_eq!(facts, expected);
    }

    #[test]
    fn an_instance_that_concludes_an_identity_is_left_out() {
        let identity = Term::implies(Term::Bool(true), Term::eq(int(1), int(1)));
        assert!(concludes_the_obvious(&identity));
        assert!(!concludes_the_obvious(&Term::implies(Term::Bool(true), Term::eq(int(1), int(2)))));
    }
}
