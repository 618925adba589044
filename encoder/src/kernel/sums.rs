//! `\sum` comprehensions (`proofs/kernel.md`, E18).
//!
//! `\sum(int j; lo <= j < hi; e)` becomes `sum_k(lo, hi, p1, ..., pn)`, where `sum_k` is one IVL
//! function per distinct body: the body translated with `j` bound, whose free names (heaps, the
//! thread's ids, private variables, sizes) become the parameters `p1 ... pn`. Two sums whose
//! bodies differ only in those names share the function, so a sum in a barrier contract and the
//! same sum in the postcondition are one function applied to the heaps of two states.
//!
//! The function is uninterpreted; what it is comes from its lemmas, each a theorem of the
//! definition `sum(lo, hi) = 0` for `hi <= lo`, `sum(lo, hi) = sum(lo, hi - 1) + e[hi - 1]`
//! otherwise (E18): *empty* (`hi <= lo ==> sum == 0`), *single* (`hi == lo + 1 ==> sum == e[lo]`),
//! *peel* at either end, *split* (`sum(a, b) + sum(b, d) == sum(a, d)`), and *frame* (two sums over
//! the same range whose bodies agree on every `j` in it are equal, which carries a sum across a
//! barrier or a write elsewhere). All are lemmas ([`Declaration::Lemma`]), instantiated by the VC
//! generator at the sums each query names and never left to the solver: peel and split would
//! unfold for ever, and an axiom quantified over heaps (arrays) leaves z3 unable to build the
//! model a failure needs.

use crate::ivl::{self, BinaryOp, Binding, Declaration, Expr, Quantifier, Type};
use std::collections::HashMap;

/// The sum functions of one kernel's encoding, made as translation meets them.
#[derive(Default)]
pub struct Sums {
    functions: Vec<SumFunction>,
}

/// One sum function: the body over the summed variable [`BOUND`] and the parameters.
struct SumFunction {
    name: String,
    params: Vec<Binding>,
    body: Expr,
}

/// The summed variable in a sum function's body.
const BOUND: &str = "j";
const LOWER: &str = "lo";
const UPPER: &str = "hi";

impl Sums {
    /// The term of `\sum(j; lower <= j < upper; body)`, with `body` translated and `bound` the IVL
    /// name of `j` in it. Each free name of the body is passed as an argument, with its type from
    /// `types` (an integer when not there).
    pub fn application(
        &mut self,
        lower: Expr,
        upper: Expr,
        bound: &str,
        body: &Expr,
        types: &HashMap<String, Type>,
    ) -> Expr {
        let (lower, upper, body) = match shifted(bound, body) {
            Some((op, k, plain)) => (Expr::binary(op, lower, k.clone()), Expr::binary(op, upper, k), plain),
            None => (lower, upper, body.clone()),
        };
        let body = &body;
        let mut free = Vec::new();
        free_names(body, &mut vec![bound.to_string()], &mut free);
        let mut renaming: HashMap<String, Expr> = HashMap::from([(bound.to_string(), Expr::var(BOUND))]);
        let params: Vec<Binding> = free
            .iter()
            .enumerate()
            .map(|(index, name)| {
                let param = format!("p{index}");
                renaming.insert(name.clone(), Expr::var(&param));
                Binding::new(param, types.get(name).cloned().unwrap_or(Type::Int))
            })
            .collect();
        let body = ivl::substitute(body, &renaming);
        let position =
            match self.functions.iter().position(|function| function.body == body && function.params == params) {
                Some(position) => position,
                None => {
                    let name = format!("sum_{}", self.functions.len());
                    self.functions.push(SumFunction { name, params, body });
                    self.functions.len() - 1
                }
            };
        let args = [lower, upper].into_iter().chain(free.iter().map(Expr::var)).collect();
        Expr::Call(self.functions[position].name.clone(), args)
    }

    /// Every sum function with its axioms and lemmas (E18).
    pub fn declarations(&self) -> Vec<Declaration> {
        self.functions.iter().flat_map(SumFunction::declarations).collect()
    }
}

impl SumFunction {
    fn declarations(&self) -> Vec<Declaration> {
        let int = |name: &str| Binding::new(name, Type::Int);
        let (lo, hi) = (Expr::var(LOWER), Expr::var(UPPER));
        let own = |lower: Expr, upper: Expr| self.apply(lower, upper, &self.params);
        let whole = own(lo.clone(), hi.clone());
        let bounds_and_params =
            |names: [&str; 2]| names.iter().map(|name| int(name)).chain(self.params.iter().cloned()).collect();
        let forall = |bound: Vec<Binding>, triggers: Vec<Vec<Expr>>, body: Expr| Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound,
            triggers,
            body: Box::new(body),
        };
        let on_whole = |body: Expr| forall(bounds_and_params([LOWER, UPPER]), vec![vec![whole.clone()]], body);
        let plus = |left: Expr, right: Expr| Expr::binary(BinaryOp::Add, left, right);
        let one = || Expr::int(1);
        let last = Expr::binary(BinaryOp::Sub, hi.clone(), one());
        let nonempty = Expr::binary(BinaryOp::Lt, lo.clone(), hi.clone());
        let mut declarations = vec![
            Declaration::Function(ivl::Function {
                name: self.name.clone(),
                params: bounds_and_params([LOWER, UPPER]),
                result: Type::Int,
                body: None,
            }),
            // Empty: a sum over no index is 0.
            Declaration::Lemma(on_whole(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::Le, hi.clone(), lo.clone()),
                Expr::binary(BinaryOp::Eq, whole.clone(), Expr::int(0)),
            ))),
            // Single: a sum over one index is the body there.
            Declaration::Lemma(on_whole(Expr::binary(
                BinaryOp::Implies,
                Expr::binary(BinaryOp::Eq, hi.clone(), plus(lo.clone(), one())),
                Expr::binary(BinaryOp::Eq, whole.clone(), self.term(lo.clone())),
            ))),
            // Peel the last index.
            Declaration::Lemma(on_whole(Expr::binary(
                BinaryOp::Implies,
                nonempty.clone(),
                Expr::binary(BinaryOp::Eq, whole.clone(), plus(own(lo.clone(), last.clone()), self.term(last))),
            ))),
            // Peel the first index.
            Declaration::Lemma(on_whole(Expr::binary(
                BinaryOp::Implies,
                nonempty,
                Expr::binary(
                    BinaryOp::Eq,
                    whole.clone(),
                    plus(self.term(lo.clone()), own(plus(lo.clone(), one()), hi.clone())),
                ),
            ))),
        ];
        // Split: sum(a, b) + sum(c, d) == sum(a, d) where b == c and a <= b <= d.
        let [a, b, c, d] = ["a", "b", "c", "d"].map(Expr::var);
        let (left, right) = (own(a.clone(), b.clone()), own(c.clone(), d.clone()));
        let ordered = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, a.clone(), b.clone()),
            Expr::binary(
                BinaryOp::And,
                Expr::binary(BinaryOp::Eq, b.clone(), c),
                Expr::binary(BinaryOp::Le, b, d.clone()),
            ),
        );
        let bound = ["a", "b", "c", "d"].map(int).into_iter().chain(self.params.iter().cloned()).collect();
        declarations.push(Declaration::Lemma(forall(
            bound,
            vec![vec![left.clone(), right.clone()]],
            Expr::binary(BinaryOp::Implies, ordered, Expr::binary(BinaryOp::Eq, plus(left, right), own(a, d))),
        )));
        if !self.params.is_empty() {
            declarations.push(Declaration::Lemma(self.frame()));
        }
        declarations
    }

    /// Frame: `(forall j :: lo <= j < hi ==> e(j, p) == e(j, q)) ==> sum(lo, hi, p) == sum(lo, hi, q)`,
    /// triggered by any two sums of the function (the second's bounds only in the trigger).
    fn frame(&self) -> Expr {
        let others: Vec<Binding> =
            self.params.iter().map(|param| Binding::new(format!("{}_other", param.name), param.ty.clone())).collect();
        let (lo, hi) = (Expr::var(LOWER), Expr::var(UPPER));
        let renaming: HashMap<String, Expr> = self
            .params
            .iter()
            .zip(&others)
            .map(|(param, other)| (param.name.clone(), Expr::var(&other.name)))
            .collect();
        let other_term = ivl::substitute(&self.body, &renaming);
        let j = Expr::var(BOUND);
        let in_range = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, lo.clone(), j.clone()),
            Expr::binary(BinaryOp::Lt, j, hi.clone()),
        );
        let agree = Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound: vec![Binding::new(BOUND, Type::Int)],
            triggers: Vec::new(),
            body: Box::new(Expr::binary(
                BinaryOp::Implies,
                in_range,
                Expr::binary(BinaryOp::Eq, self.body.clone(), other_term),
            )),
        };
        let mine = self.apply(lo.clone(), hi.clone(), &self.params);
        let theirs = self.apply(lo, hi, &others);
        let trigger_other = self.apply(Expr::var("lo_other"), Expr::var("hi_other"), &others);
        let bound = [LOWER, UPPER, "lo_other", "hi_other"]
            .map(|name| Binding::new(name, Type::Int))
            .into_iter()
            .chain(self.params.iter().cloned())
            .chain(others.iter().cloned())
            .collect();
        Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound,
            triggers: vec![vec![mine.clone(), trigger_other]],
            body: Box::new(Expr::binary(BinaryOp::Implies, agree, Expr::binary(BinaryOp::Eq, mine, theirs))),
        }
    }

    fn apply(&self, lower: Expr, upper: Expr, params: &[Binding]) -> Expr {
        let args = [lower, upper].into_iter().chain(params.iter().map(|param| Expr::var(&param.name))).collect();
        Expr::Call(self.name.clone(), args)
    }

    /// The body at index `at`.
    fn term(&self, at: Expr) -> Expr {
        ivl::substitute(&self.body, &HashMap::from([(BOUND.to_string(), at)]))
    }
}

/// Shift: a body that names its variable `j` only as `j + k` (or `k + j`, or `j - k`), the same `k`
/// throughout, is summed as the plain body over the range moved by `k`, since
/// `\sum(j; lo <= j < hi; a[j + k]) == \sum(j; lo + k <= j < hi + k; a[j])` (E18): sums that differ
/// by such a shift then share one function, and the other lemmas join them. Gives the operator, `k`
/// and the plain body; `None` when the body is not of that form.
fn shifted(bound: &str, body: &Expr) -> Option<(BinaryOp, Expr, Expr)> {
    let mut offset = None;
    let plain = unshift(body, bound, &mut offset)?;
    offset.map(|(op, k)| (op, k, plain))
}

/// `expr` with each `bound + k` (`bound - k`) replaced by `bound`, recording the one offset; `None`
/// where `bound` stands bare, under a binder of its name, or with two different offsets.
fn unshift(expr: &Expr, bound: &str, offset: &mut Option<(BinaryOp, Expr)>) -> Option<Expr> {
    let is_bound = |side: &Expr| matches!(side, Expr::Var(name) if name == bound);
    let mentions = |term: &Expr| {
        let mut found = false;
        term.walk(&mut |inner| found |= is_bound(inner));
        found
    };
    if let Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs) = expr {
        let found = match (is_bound(lhs), is_bound(rhs), op) {
            (true, false, _) => Some((*op, (**rhs).clone())),
            (false, true, BinaryOp::Add) => Some((BinaryOp::Add, (**lhs).clone())),
            _ => None,
        };
        if let Some((op, k)) = found.filter(|(_, k)| !mentions(k)) {
            return (offset.get_or_insert_with(|| (op, k.clone())) == &(op, k)).then(|| Expr::var(bound));
        }
    }
    let go = |inner: &Expr, offset: &mut Option<(BinaryOp, Expr)>| unshift(inner, bound, offset).map(Box::new);
    Some(match expr {
        Expr::Var(name) if name == bound => return None,
        Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) | Expr::Var(_) => expr.clone(),
        Expr::Unary(op, operand) => Expr::Unary(*op, go(operand, offset)?),
        Expr::Old(operand) => Expr::Old(go(operand, offset)?),
        Expr::Binary(op, lhs, rhs) => Expr::Binary(*op, go(lhs, offset)?, go(rhs, offset)?),
        Expr::Select(map, index) => Expr::Select(go(map, offset)?, go(index, offset)?),
        Expr::Store(map, index, value) => Expr::Store(go(map, offset)?, go(index, offset)?, go(value, offset)?),
        Expr::IfThenElse(cond, then_value, else_value) => {
            Expr::IfThenElse(go(cond, offset)?, go(then_value, offset)?, go(else_value, offset)?)
        }
        Expr::Call(name, args) => {
            Expr::Call(name.clone(), args.iter().map(|arg| unshift(arg, bound, offset)).collect::<Option<_>>()?)
        }
        // A binder could shadow the variable; such bodies are summed as they are.
        Expr::Lambda { .. } | Expr::Quantified { .. } => return (!mentions(expr)).then(|| expr.clone()),
    })
}

/// The names free in `expr` outside `bound`, in the order they first occur, each once.
fn free_names(expr: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    match expr {
        Expr::Var(name) => {
            if !bound.contains(name) && !out.contains(name) {
                out.push(name.clone());
            }
        }
        Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) => {}
        Expr::Unary(_, operand) | Expr::Old(operand) => free_names(operand, bound, out),
        Expr::Binary(_, lhs, rhs) | Expr::Select(lhs, rhs) => {
            free_names(lhs, bound, out);
            free_names(rhs, bound, out);
        }
        Expr::Store(first, second, third) | Expr::IfThenElse(first, second, third) => {
            for inner in [first, second, third] {
                free_names(inner, bound, out);
            }
        }
        Expr::Call(_, args) => args.iter().for_each(|arg| free_names(arg, bound, out)),
        Expr::Lambda { bound: binding, body } => {
            bound.push(binding.name.clone());
            free_names(body, bound, out);
            bound.pop();
        }
        Expr::Quantified { bound: bindings, triggers, body, .. } => {
            let depth = bound.len();
            bound.extend(bindings.iter().map(|binding| binding.name.clone()));
            triggers.iter().flatten().for_each(|term| free_names(term, bound, out));
            free_names(body, bound, out);
            bound.truncate(depth);
        }
    }
}
