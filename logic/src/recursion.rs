//! Which pure functions recurse, and on what: the call graph of a program's functions.
//!
//! A function calls the functions named in its body, its `requires` and its `decreases`. It is
//! recursive when it calls itself, directly or through others. The functions that call each other
//! form a strongly connected component of the graph, a *cycle*; each function on a cycle has a
//! [`measure`], and every call from a function on a cycle to one on the same cycle must pass a
//! smaller non-negative measure (`function.termination`, `proofs/kernel.md` E5): one measure
//! decreasing along every call of the cycle, so no chain of calls goes on forever.

use crate::{BinaryOp, Expr, ExprKind, Function, FunctionId, Type};
use num_bigint::BigInt;

/// The calls between the functions of a program, and its cycles.
#[derive(Clone, Debug)]
pub struct CallGraph {
    /// The functions each function calls (by index, with repetitions).
    callees: Vec<Vec<usize>>,
    /// The strongly connected component of each function: functions that call each other,
    /// directly or through others, share one.
    component: Vec<usize>,
    /// How many functions each component holds.
    sizes: Vec<usize>,
}

impl CallGraph {
    pub fn of(functions: &[Function]) -> CallGraph {
        let callees: Vec<Vec<usize>> = functions.iter().map(callees).collect();
        let component = components(&callees);
        let mut sizes = vec![0; component.iter().max().map_or(0, |&most| most + 1)];
        for &of in &component {
            sizes[of] += 1;
        }
        CallGraph { callees, component, sizes }
    }

    /// Whether the function calls itself, directly or through others.
    pub fn recursive(&self, function: FunctionId) -> bool {
        let index = function.index();
        self.through_others(function) || self.callees[index].contains(&index)
    }

    /// Whether the function calls itself through another function: it shares a cycle of calls
    /// with another function.
    fn through_others(&self, function: FunctionId) -> bool {
        self.sizes[self.component[function.index()]] > 1
    }

    /// The functions on a cycle of calls through `function`, itself included, in the program's
    /// order (only itself when it is on none).
    pub fn cycle(&self, function: FunctionId) -> impl Iterator<Item = FunctionId> + '_ {
        let component = self.component[function.index()];
        (0..self.component.len())
            .filter(move |&other| self.component[other] == component)
            .map(|other| FunctionId(other as u32))
    }

    /// Whether a call from `caller` to `callee` lies on a cycle of calls: its termination must be
    /// shown by a smaller measure.
    pub fn on_cycle(&self, caller: FunctionId, callee: FunctionId) -> bool {
        self.component[caller.index()] == self.component[callee.index()] && self.recursive(callee)
    }

    /// Which functions are among `start` or called by them, directly or through others, by index.
    pub fn reachable(&self, start: impl IntoIterator<Item = FunctionId>) -> Vec<bool> {
        let mut seen = vec![false; self.callees.len()];
        let mut work: Vec<usize> = start.into_iter().map(FunctionId::index).collect();
        while let Some(next) = work.pop() {
            if !std::mem::replace(&mut seen[next], true) {
                work.extend(&self.callees[next]);
            }
        }
        seen
    }
}

/// The functions a function's body, precondition and measure call.
fn callees(function: &Function) -> Vec<usize> {
    calls(function).map(|(callee, _)| callee.index()).collect()
}

/// The calls in a function's body, precondition and measure: the callee and the arguments.
fn calls(function: &Function) -> impl Iterator<Item = (FunctionId, &Vec<Expr>)> {
    let mut exprs: Vec<&Expr> = vec![&function.body];
    exprs.extend(&function.requires);
    exprs.extend(&function.decreases);
    std::iter::from_fn(move || {
        while let Some(expr) = exprs.pop() {
            expr.children(&mut exprs);
            if let ExprKind::Call { function, args } = &expr.kind {
                return Some((*function, args));
            }
        }
        None
    })
}

/// The strongly connected components of the call graph (Tarjan's algorithm, with an explicit
/// stack so that a long chain of calls cannot overflow the thread's): the component of each node.
fn components(callees: &[Vec<usize>]) -> Vec<usize> {
    const UNVISITED: usize = usize::MAX;
    let count = callees.len();
    let mut order = vec![UNVISITED; count];
    let mut low = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut stack = Vec::new();
    let mut component = vec![UNVISITED; count];
    let mut visited = 0;
    let mut found = 0;
    for root in 0..count {
        if order[root] != UNVISITED {
            continue;
        }
        // Each frame: a node and how many of its callees have been looked at.
        let mut frames = vec![(root, 0)];
        order[root] = visited;
        low[root] = visited;
        visited += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(frame) = frames.last_mut() {
            let node = frame.0;
            if let Some(&next) = callees[node].get(frame.1) {
                frame.1 += 1;
                if order[next] == UNVISITED {
                    order[next] = visited;
                    low[next] = visited;
                    visited += 1;
                    stack.push(next);
                    on_stack[next] = true;
                    frames.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(order[next]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == order[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = found;
                    if member == node {
                        break;
                    }
                }
                found += 1;
            }
        }
    }
    component
}

/// The measure of a recursive function: its written `decreases`, else the first int parameter
/// that every call of it from its cycle passes as `x - c` for a variable `x` and a positive literal
/// `c`, else its first int parameter (whose decrease the termination check then fails to show, and
/// says so). `None` when it has neither: every call of it on its cycle then fails the check.
pub fn measure(functions: &[Function], graph: &CallGraph, id: FunctionId) -> Option<Expr> {
    let function = &functions[id.index()];
    if let Some(written) = &function.decreases {
        return Some(written.clone());
    }
    let calls: Vec<&Vec<Expr>> = graph
        .cycle(id)
        .flat_map(|caller| calls(&functions[caller.index()]))
        .filter(|(callee, _)| *callee == id)
        .map(|(_, args)| args)
        .collect();
    let mut ints = function
        .params
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, param)| function.vars[param.index()].ty == Type::Int)
        .peekable();
    let first = ints.peek().copied();
    let decreasing = |position: usize| {
        calls.iter().all(|args| match args.get(position).map(|arg| &arg.kind) {
            Some(ExprKind::Binary { op: BinaryOp::Sub, lhs, rhs }) => {
                matches!(lhs.kind, ExprKind::Var(_))
                    && matches!(&rhs.kind, ExprKind::Int(value) if *value > BigInt::from(0))
            }
            _ => false,
        })
    };
    let (_, param) = ints.find(|(position, _)| decreasing(*position)).or(first)?;
    let var = &function.vars[param.index()];
    Some(Expr { kind: ExprKind::Var(param), ty: Type::Int, span: var.span })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Span, Var, VarId, VarKind};

    fn expr(kind: ExprKind, ty: Type) -> Expr {
        Expr { kind, ty, span: Span::default() }
    }

    fn n() -> Expr {
        expr(ExprKind::Var(VarId(0)), Type::Int)
    }

    fn call(callee: u32, arg: Expr) -> Expr {
        expr(ExprKind::Call { function: FunctionId(callee), args: vec![arg] }, Type::Int)
    }

    fn minus_one() -> Expr {
        let one = Box::new(expr(ExprKind::Int(1.into()), Type::Int));
        expr(ExprKind::Binary { op: BinaryOp::Sub, lhs: Box::new(n()), rhs: one }, Type::Int)
    }

    /// `pure int NAME(int n) = body;`
    fn function(name: &str, body: Expr) -> Function {
        Function {
            name: name.into(),
            span: Span::default(),
            params: vec![VarId(0)],
            vars: vec![Var { name: "n".into(), ty: Type::Int, kind: VarKind::FunctionParam, span: Span::default() }],
            result: Type::Int,
            requires: Vec::new(),
            ensures: Vec::new(),
            decreases: None,
            body,
        }
    }

    #[test]
    fn self_calls_recurse_directly_and_cycles_through_others() {
        // f0 calls itself; f1 and f2 call each other; f3 calls f0 and f1 but is on no cycle.
        let functions = [
            function("f0", call(0, minus_one())),
            function("f1", call(2, n())),
            function("f2", call(1, n())),
            function(
                "f3",
                expr(
                    ExprKind::Binary { op: BinaryOp::Add, lhs: Box::new(call(0, n())), rhs: Box::new(call(1, n())) },
                    Type::Int,
                ),
            ),
        ];
        let graph = CallGraph::of(&functions);
        let recursive: Vec<bool> = (0..4).map(|index| graph.recursive(FunctionId(index))).collect();
        let through_others: Vec<bool> = (0..4).map(|index| graph.through_others(FunctionId(index))).collect();
        assert_eq!(recursive, [true, true, true, false]);
        assert_eq!(through_others, [false, true, true, false]);
        assert_eq!(graph.cycle(FunctionId(1)).collect::<Vec<_>>(), [FunctionId(1), FunctionId(2)]);
        assert_eq!(graph.cycle(FunctionId(3)).collect::<Vec<_>>(), [FunctionId(3)]);
        assert!(graph.on_cycle(FunctionId(1), FunctionId(2)) && graph.on_cycle(FunctionId(0), FunctionId(0)));
        assert!(!graph.on_cycle(FunctionId(3), FunctionId(1)) && !graph.on_cycle(FunctionId(3), FunctionId(3)));
        assert_eq!(graph.reachable([FunctionId(3)]), [true, true, true, true]);
        assert_eq!(graph.reachable([FunctionId(0)]), [true, false, false, false]);
    }

    #[test]
    fn a_long_chain_of_calls_needs_no_deep_stack() {
        let count = 200_000;
        let functions: Vec<Function> = (0..count).map(|index| function("f", call((index + 1) % count, n()))).collect();
        let graph = CallGraph::of(&functions);
        assert!(graph.through_others(FunctionId(0)) && graph.through_others(FunctionId(count - 1)));
    }

    #[test]
    fn the_measure_is_written_or_the_int_parameter_the_calls_of_the_cycle_decrease() {
        let measured = |functions: &[Function], index: u32| {
            measure(functions, &CallGraph::of(functions), FunctionId(index)).map(|measure| measure.kind)
        };
        // f0 calls itself with n - 1.
        assert_eq!(measured(&[function("f0", call(0, minus_one()))], 0), Some(ExprKind::Var(VarId(0))));
        // even and odd call each other with n - 1; down and step with n, so n is only a guess
        // (the termination check fails it).
        let pair = [function("even", call(1, minus_one())), function("odd", call(0, minus_one()))];
        assert_eq!(measured(&pair, 1), Some(ExprKind::Var(VarId(0))));
        let pair = [function("down", call(1, n())), function("step", call(0, n()))];
        assert_eq!(measured(&pair, 0), Some(ExprKind::Var(VarId(0))));
        // A written measure wins.
        let mut written = function("f", call(0, n()));
        written.decreases = Some(expr(ExprKind::Int(7.into()), Type::Int));
        assert_eq!(measured(&[written], 0), Some(ExprKind::Int(7.into())));
        // No int parameter and none written: no measure.
        let mut flag = function("f", call(0, expr(ExprKind::Bool(true), Type::Bool)));
        flag.vars[0].ty = Type::Bool;
        assert_eq!(measured(&[flag], 0), None);
    }
}
