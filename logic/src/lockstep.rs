//! Lock-step safety (seed section 5.3, PO-13 and PO-14): which private variables have the same
//! value in every thread of a group at every barrier, and which barriers all threads of a group
//! reach together.
//!
//! An expression is lock-step safe when it reads neither `tid` nor `lid`, no memory (another
//! thread may have written it), and no private variable that is not itself lock-step safe. A
//! private variable is lock-step safe when every assignment to it (its initialisation included)
//! assigns a safe value under conditions that are all safe; the set is the greatest fixed point,
//! found by removing variables until nothing changes. A barrier is reached in lock step when every
//! `if` and `while` condition around it is safe; otherwise the threads of a group may diverge.
//!
//! A private variable is *determined* when its declaration is its only assignment and gives it a
//! value computed from the thread's ids, the sizes, kernel parameters, literals, pure functions and
//! other determined variables (`int t := lid;`): wherever it is in scope it equals that expression
//! of the thread's ids, in every thread, so another thread's copy is known too (DESIGN.md, the
//! decisions on barrier contracts).

use crate::{ArrayId, Block, Builtin, Expr, ExprKind, Kernel, Span, StmtKind, VarId, VarKind};
use std::collections::{HashMap, HashSet};

/// The result of the analysis: the private variables that are not lock-step safe, and the
/// determined ones with their values in terms of the thread's ids.
#[derive(Clone, Debug)]
pub struct LockStep {
    unsafe_variables: HashSet<VarId>,
    determined: HashMap<VarId, Expr>,
    /// The builtins whose values differ between the threads compared: `tid` and `lid` for
    /// the threads of a group.
    varying: fn(Builtin) -> bool,
    /// The arrays whose cells read alike in the threads compared (none for barriers).
    stable: HashSet<ArrayId>,
}

impl LockStep {
    /// Analyses a kernel.
    pub fn of(kernel: &Kernel) -> LockStep {
        LockStep::over(kernel, Builtin::is_thread_specific, HashSet::new())
    }

    /// Analyses a kernel for threads between which the builtins `varying` says differ, and which
    /// read the cells of the `stable` arrays alike ([`crate::benign`]).
    pub fn over(kernel: &Kernel, varying: fn(Builtin) -> bool, stable: HashSet<ArrayId>) -> LockStep {
        let mut analysis = LockStep { unsafe_variables: HashSet::new(), determined: HashMap::new(), varying, stable };
        loop {
            let mut unsafe_now = Vec::new();
            visit_assignments(&kernel.body, &mut Vec::new(), &mut |var, value, conditions| {
                let all_safe = value.is_none_or(|value| analysis.is_safe(value))
                    && conditions.iter().all(|condition| analysis.is_safe(condition));
                if !all_safe {
                    unsafe_now.push(var);
                }
            });
            let before = analysis.unsafe_variables.len();
            analysis.unsafe_variables.extend(unsafe_now);
            if analysis.unsafe_variables.len() == before {
                analysis.determined = determined(kernel);
                return analysis;
            }
        }
    }

    /// The value of a determined private variable in terms of the thread's ids, sizes, kernel
    /// parameters and literals (no private variable left in it).
    pub fn determined(&self, var: VarId) -> Option<&Expr> {
        self.determined.get(&var)
    }

    /// The expression with every determined private variable replaced by its value.
    pub fn expand(&self, expr: &Expr) -> Expr {
        expr.substitute(&self.determined)
    }

    /// Whether a private variable has the same value in every thread of a group.
    pub fn is_safe_variable(&self, kernel: &Kernel, var: VarId) -> bool {
        kernel.var(var).kind == VarKind::Private && !self.unsafe_variables.contains(&var)
    }

    /// Whether every thread of a group computes the same value for the expression.
    pub fn is_safe(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Result => true,
            ExprKind::Builtin(builtin) => !(self.varying)(*builtin),
            // Kernel parameters are uniform; a bound variable is as safe as its range.
            ExprKind::Var(var) => !self.unsafe_variables.contains(var),
            ExprKind::Read { array, index } => self.stable.contains(array) && self.is_safe(index),
            // Each thread's increment returns a value of its own.
            ExprKind::Ticket { .. } => false,
            ExprKind::Unary { operand, .. }
            | ExprKind::Old(operand)
            | ExprKind::InRange { value: operand, .. }
            | ExprKind::PrivateIndex { index: operand, .. } => self.is_safe(operand),
            ExprKind::Binary { lhs, rhs, .. } => self.is_safe(lhs) && self.is_safe(rhs),
            ExprKind::Cond { cond, then_value, else_value } => {
                self.is_safe(cond) && self.is_safe(then_value) && self.is_safe(else_value)
            }
            ExprKind::Call { args, .. } => args.iter().all(|arg| self.is_safe(arg)),
            ExprKind::Quantifier { range, body, .. } => self.is_safe(range) && self.is_safe(body),
            ExprKind::Sum { lower, upper, body, .. } => {
                self.is_safe(lower) && self.is_safe(upper) && self.is_safe(body)
            }
        }
    }

    /// Every barrier under a condition that is not lock-step safe, with the outermost such condition.
    pub fn divergent_barriers(&self, kernel: &Kernel) -> Vec<Divergence> {
        let mut found = Vec::new();
        visit_barriers(&kernel.body, &mut Vec::new(), &mut |barrier, conditions| {
            if let Some(condition) = conditions.iter().find(|condition| !self.is_safe(condition)) {
                found.push(Divergence { barrier, condition: condition.span });
            }
        });
        found
    }

    /// The collective calls ([`crate::Collective`]) whose threads may disagree on one of the
    /// values they agree on, or reach them divergently.
    pub fn divergent_collectives<'k>(&self, kernel: &'k Kernel) -> Vec<&'k crate::Collective> {
        let disagree =
            |collective: &&crate::Collective| collective.agreed.iter().any(|var| !self.is_safe_variable(kernel, *var));
        kernel.collectives.iter().filter(disagree).collect()
    }
}

/// A barrier that threads of one group may reach divergently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The barrier.
    pub barrier: Span,
    /// The thread-dependent condition of an enclosing `if` or `while`.
    pub condition: Span,
}

/// The determined private variables with their values, expanded. Candidates are the variables
/// assigned once, by an initialised declaration; a candidate whose value reads memory, a quantifier,
/// `\old` or a variable that is not a candidate is dropped, until nothing changes.
fn determined(kernel: &Kernel) -> HashMap<VarId, Expr> {
    let mut sites: HashMap<VarId, (usize, Option<&Expr>)> = HashMap::new();
    visit_assignments(&kernel.body, &mut Vec::new(), &mut |var, value, _| {
        let site = sites.entry(var).or_insert((0, value));
        site.0 += 1;
    });
    let mut candidates: HashMap<VarId, &Expr> = sites
        .into_iter()
        .filter_map(|(var, (count, value))| (count == 1).then_some(value).flatten().map(|value| (var, value)))
        .collect();
    loop {
        let dropped: Vec<VarId> = candidates
            .iter()
            .filter(|(_, value)| !is_id_function(kernel, value, &|var| candidates.contains_key(&var)))
            .map(|(var, _)| *var)
            .collect();
        if dropped.is_empty() {
            break;
        }
        dropped.iter().for_each(|var| {
            candidates.remove(var);
        });
    }
    // Declarations come before their uses, so expanding in declaration order expands every value.
    let mut order: Vec<VarId> = candidates.keys().copied().collect();
    order.sort();
    let mut expanded = HashMap::new();
    for var in order {
        let value = candidates[&var].substitute(&expanded);
        expanded.insert(var, value);
    }
    expanded
}

/// Whether an expression computes a value from the thread's ids, sizes, kernel parameters,
/// literals, pure functions and the private variables `admitted` allows.
fn is_id_function(kernel: &Kernel, expr: &Expr, admitted: &dyn Fn(VarId) -> bool) -> bool {
    let recurse = |expr: &Expr| is_id_function(kernel, expr, admitted);
    match &expr.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Builtin(_) => true,
        ExprKind::Var(var) => kernel.var(*var).kind == VarKind::KernelParam || admitted(*var),
        ExprKind::Unary { operand, .. }
        | ExprKind::InRange { value: operand, .. }
        | ExprKind::PrivateIndex { index: operand, .. }
        | ExprKind::Ticket { cell: operand, .. } => recurse(operand),
        ExprKind::Binary { lhs, rhs, .. } => recurse(lhs) && recurse(rhs),
        ExprKind::Cond { cond, then_value, else_value } => recurse(cond) && recurse(then_value) && recurse(else_value),
        ExprKind::Call { args, .. } => args.iter().all(recurse),
        ExprKind::Read { .. }
        | ExprKind::Quantifier { .. }
        | ExprKind::Sum { .. }
        | ExprKind::Old(_)
        | ExprKind::Result => false,
    }
}

fn visit_assignments<'k>(
    block: &'k Block,
    conditions: &mut Vec<&'k Expr>,
    visit: &mut impl FnMut(VarId, Option<&'k Expr>, &[&'k Expr]),
) {
    for stmt in &block.stmts {
        match &stmt.kind {
            StmtKind::Declare { var, init } => visit(*var, init.as_ref(), conditions),
            StmtKind::Assign { var, value } => visit(*var, Some(value), conditions),
            StmtKind::If { cond, then_branch, else_branch } => {
                conditions.push(cond);
                visit_assignments(then_branch, conditions, visit);
                if let Some(else_branch) = else_branch {
                    visit_assignments(else_branch, conditions, visit);
                }
                conditions.pop();
            }
            StmtKind::While { cond, body, .. } => {
                conditions.push(cond);
                visit_assignments(body, conditions, visit);
                conditions.pop();
            }
            StmtKind::Block(inner) => visit_assignments(inner, conditions, visit),
            StmtKind::Write { .. } | StmtKind::Barrier(_) | StmtKind::Assert(_) | StmtKind::Assume(_) => {}
        }
    }
}

fn visit_barriers<'k>(block: &'k Block, conditions: &mut Vec<&'k Expr>, visit: &mut impl FnMut(Span, &[&'k Expr])) {
    for stmt in &block.stmts {
        match &stmt.kind {
            StmtKind::Barrier(_) => visit(stmt.span, conditions),
            StmtKind::If { cond, then_branch, else_branch } => {
                conditions.push(cond);
                visit_barriers(then_branch, conditions, visit);
                if let Some(else_branch) = else_branch {
                    visit_barriers(else_branch, conditions, visit);
                }
                conditions.pop();
            }
            StmtKind::While { cond, body, .. } => {
                conditions.push(cond);
                visit_barriers(body, conditions, visit);
                conditions.pop();
            }
            StmtKind::Block(inner) => visit_barriers(inner, conditions, visit),
            _ => {}
        }
    }
}
