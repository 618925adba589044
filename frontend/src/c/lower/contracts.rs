//! The clauses of annotations: VerCors's (`assert` and `assume` between statements, the contracts
//! of barriers, the invariants of loops) and GPUVerify's, written as calls (`__assert`,
//! `__requires`, `__invariant`, ...), whose integer formulas hold where they are not 0. GPUVerify's
//! hints over its two-thread encoding, which lockstep does not have, are left out with a warning
//! where they only help a proof.

use super::barrier_invariants;
use super::logs;
use super::{Lengths, Lowerer, Place};
use crate::c::ast;
use crate::c::integers::CType;
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;

impl Lowerer<'_> {
    pub(super) fn misplaced_clause(&mut self, kind: ast::SpecKind, span: Span, place: &str) {
        self.diagnostics.push(
            Diagnostic::error(Code::StrayClause, format!("a `{}` in {place}", kind.keyword()), span, "not allowed here")
                .with_help("contracts of kernels and barriers hold `requires`, `ensures` and `context`; `loop_invariant` stands before a loop; `assert` and `assume` between statements"),
        );
    }

    pub(super) fn unknown_clause(&mut self, keyword: &surface::Ident, span: Span) {
        self.unsupported(
            span,
            format!("the annotation `{}`", keyword.name),
            "lockstep reads `requires`, `ensures`, `context`, `loop_invariant`, `assert` and `assume` in annotations",
        );
    }

    /// The `assert`s and `assume`s of an annotation between statements.
    pub(super) fn assertions(
        &mut self,
        annotation: &ast::Annotation,
        lengths: &Lengths,
        out: &mut Vec<surface::Stmt>,
    ) -> bool {
        let mut ok = true;
        for clause in &annotation.clauses {
            match clause {
                ast::SpecClause::Clause {
                    kind: kind @ (ast::SpecKind::Assert | ast::SpecKind::Assume),
                    formula,
                    span,
                } => {
                    let Some(formula) = self.expr(formula, Place::Annotation, lengths) else {
                        ok = false;
                        continue;
                    };
                    let kind = if *kind == ast::SpecKind::Assert {
                        surface::StmtKind::Assert(formula)
                    } else {
                        surface::StmtKind::Assume(formula)
                    };
                    match self.surface_stmt(kind, *span) {
                        Some(stmt) => out.push(stmt),
                        None => ok = false,
                    }
                }
                ast::SpecClause::Clause { kind, span, .. } => {
                    self.misplaced_clause(*kind, *span, "an annotation that is not before a kernel, barrier or loop");
                    ok = false;
                }
                ast::SpecClause::Unknown { keyword, span } => {
                    self.unknown_clause(keyword, *span);
                    ok = false;
                }
            }
        }
        ok
    }

    /// The clauses of an annotation before a barrier or a loop, of the kinds it takes.
    pub(super) fn contract_clauses(
        &mut self,
        annotation: Option<&ast::Annotation>,
        lengths: &Lengths,
        for_loop: bool,
    ) -> Option<Vec<surface::Clause>> {
        let mut clauses = Vec::new();
        let mut ok = true;
        for clause in annotation.map(|annotation| annotation.clauses.as_slice()).unwrap_or_default() {
            match clause {
                ast::SpecClause::Clause { kind, formula, span } => {
                    let kind = match (kind, for_loop) {
                        (ast::SpecKind::LoopInvariant, true) => surface::ClauseKind::Invariant,
                        (ast::SpecKind::Requires, false) => surface::ClauseKind::Requires,
                        (ast::SpecKind::Ensures, false) => surface::ClauseKind::Ensures,
                        (ast::SpecKind::Context, false) => surface::ClauseKind::Context,
                        (other, _) => {
                            let place = if for_loop { "the annotation of a loop" } else { "a barrier's contract" };
                            self.misplaced_clause(*other, *span, place);
                            ok = false;
                            continue;
                        }
                    };
                    match self.expr(formula, Place::Annotation, lengths) {
                        Some(formula) => {
                            clauses.push(surface::Clause { level: surface::Level::Thread, kind, formula, span: *span })
                        }
                        None => ok = false,
                    }
                }
                ast::SpecClause::Unknown { keyword, span } => {
                    self.unknown_clause(keyword, *span);
                    ok = false;
                }
            }
        }
        ok.then_some(clauses)
    }

    /// Leaves out a GPUVerify proof hint, with a `warning::left-out` saying why.
    pub(super) fn left_out(&mut self, span: Span, what: String, why: impl Into<String>) {
        self.diagnostics.push(
            Diagnostic::warning(Code::LeftOut, format!("{what} is left out"), span, "neither assumed nor checked")
                .with_help(why),
        );
    }

    /// Leaves out (with a warning) a hint that speaks of GPUVerify's two-thread encoding, or of
    /// its access logs unless `logs_kept`, and says whether it did: see [`TWO_THREAD_PREDICATES`].
    pub(super) fn hint_left_out(&mut self, formula: &ast::Expr, span: Span, what: &str, logs_kept: bool) -> bool {
        let Some(predicate) = two_thread_predicate(formula, logs_kept) else { return false };
        let why = if logs::LOG_QUERIES.contains(&predicate) {
            "GPUVerify's access logs serve its race check, where lockstep's permissions say what a thread may access; lockstep keeps them for `__assert` and helpers' contracts only"
        } else {
            "it speaks of the other thread of GPUVerify's pair; lockstep checks each thread on its own"
        };
        self.left_out(span, format!("{what}, over GPUVerify's two-thread encoding (`{predicate}`),"), why);
        true
    }

    /// The formula of a GPUVerify annotation (`__assert(e)`, ...): a specification, whose integer
    /// holds where it is not 0, as a C condition does.
    pub(super) fn gpuverify_formula(&mut self, formula: &ast::Expr, lengths: &Lengths) -> Option<surface::Expr> {
        let formula = all_threads_dropped(formula);
        let value = self.typed(&formula, Place::Annotation, lengths)?;
        self.converted(value, CType::Bool, Place::Annotation, formula.span)
    }

    /// A GPUVerify claim (`what`: an assertion, a postcondition) that speaks of the other thread
    /// of its pair (`predicate`), which lockstep, checking one thread at a time, cannot state:
    /// `assert c` of a `c` declared with no value. It never verifies where it is reached, and its
    /// failure is reported undecided ([`lockstep_logic::Kernel::unstated_claims`]); nothing after
    /// it is assumed but `c`, which no other code reads.
    pub(super) fn unstated_claim(&mut self, predicate: &str, what: &str, span: Span) -> Option<surface::Stmt> {
        let why = format!(
            "{what} speaks of the other thread of GPUVerify's pair (`{predicate}`), which lockstep, checking one thread at a time, cannot state"
        );
        self.diagnostics.push(
            Diagnostic::warning(Code::UnstatedClaim, format!("{what} over GPUVerify's two-thread encoding (`{predicate}`) is not checked"), span, "reported undecided")
                .with_help("lockstep checks each thread on its own: state the claim of one thread, with `get_local_id(0)` for the thread's id"),
        );
        self.unstated_claims.push((span, why));
        self.fresh += 1;
        let name = format!("\\unstated@{}", self.fresh);
        let declare = surface::StmtKind::Declare {
            ty: CType::Bool.surface(),
            ty_span: span,
            name: surface::Ident { name: name.clone(), span },
            init: None,
        };
        let declare = self.surface_stmt(declare, span)?;
        let claim = self.node(surface::ExprKind::Name(name), span)?;
        let assert = self.surface_stmt(surface::StmtKind::Assert(claim), span)?;
        self.block_of(vec![declare, assert], span)
    }

    /// GPUVerify's loop invariants, `__invariant(e)` written before a loop's condition (and its
    /// function-wide ones, [`Lowerer::function_wide_invariants`]); a candidate's clause is a
    /// [`surface::ClauseKind::CandidateInvariant`].
    pub(super) fn gpuverify_invariants(
        &mut self,
        invariants: &[&ast::Expr],
        lengths: &Lengths,
    ) -> Option<Vec<surface::Clause>> {
        let mut clauses = Vec::new();
        let mut ok = true;
        for invariant in invariants {
            let ast::ExprKind::Call { function, args } = &invariant.kind else { continue };
            let [formula] = args.as_slice() else {
                self.argument_count(&function.name, 1, args.len(), invariant.span);
                ok = false;
                continue;
            };
            let claim = matches!(function.name.as_str(), "__assert" | "__global_assert");
            if let (true, Some(query)) = (claim, two_thread_predicate(formula, false)) {
                // A claim is never left out; the logs are not kept at a loop's head.
                self.unsupported(
                    invariant.span,
                    format!("an `{}` over the access logs (`{query}`) at a loop's head", function.name),
                    "assert it in the loop's body",
                );
                ok = false;
                continue;
            }
            if self.hint_left_out(formula, invariant.span, "this loop invariant", false) {
                continue;
            }
            let kind =
                if function.name.starts_with("__candidate") || function.name == "__function_wide_candidate_invariant" {
                    surface::ClauseKind::CandidateInvariant
                } else {
                    surface::ClauseKind::Invariant
                };
            match self.gpuverify_formula(formula, lengths) {
                Some(formula) => {
                    clauses.push(surface::Clause { level: surface::Level::Thread, kind, formula, span: invariant.span })
                }
                None => ok = false,
            }
        }
        ok.then_some(clauses)
    }
}

/// GPUVerify's loop invariants: `__invariant(e)` and `__global_invariant(e)` (which holds for every
/// thread, so for this one) are checked invariants; `__candidate_invariant(e)` and
/// `__candidate_global_invariant(e)` are guesses that GPUVerify keeps only where they hold, as
/// lockstep's Houdini does where it infers permissions (and leaves them out elsewhere). An
/// `__assert(e)` there is checked each time the condition is, as a checked invariant is (at the
/// entry and after each iteration), and holds after, as an invariant does.
const GPUVERIFY_INVARIANTS: &[&str] = &[
    "__invariant",
    "__global_invariant",
    "__candidate_invariant",
    "__candidate_global_invariant",
    "__assert",
    "__global_assert",
];

/// An `__assert` or `__global_assert` at a loop's head that speaks of GPUVerify's pair of threads:
/// its predicate ([`Lowerer::unstated_claim`]).
pub(super) fn unstated_at_loop_head(invariant: &ast::Expr) -> Option<&str> {
    match &invariant.kind {
        ast::ExprKind::Call { function, args } if matches!(function.name.as_str(), "__assert" | "__global_assert") => {
            args.first().and_then(|formula| two_thread_predicate(formula, true))
        }
        _ => None,
    }
}

/// GPUVerify's predicates over the other thread of its two-thread encoding (`__other_int(x)`:
/// `x` there; `__uniform_int(x)`: `x` is the same in both), which lockstep, checking one thread
/// at a time, does not have. A hint that uses them and only helps a proof (a loop invariant, a
/// precondition, an `__assume`) is left out, neither assumed nor checked, which loses no check;
/// a claim (`__assert`, a helper's `__ensures`) that uses them is an [`Lowerer::unstated_claim`],
/// reported undecided. So are the hints over the access
/// logs ([`crate::c::lower::logs`]) where lockstep does not use them: loop invariants, assumptions and a
/// kernel's preconditions.
const TWO_THREAD_PREDICATES: &[&str] = &[
    "__other_int",
    "__other_bool",
    "__uniform_int",
    "__uniform_bool",
    "__distinct_int",
    "__distinct_bool",
    "__exclusive",
    "__reads_from",
    "__writes_to",
];

/// The first use of one of GPUVerify's [`TWO_THREAD_PREDICATES`] in an expression, or of
/// `__same_group` (the pair's threads are in one group), or of the access logs unless
/// `logs_kept`.
pub(super) fn two_thread_predicate(expr: &ast::Expr, logs_kept: bool) -> Option<&str> {
    match &expr.kind {
        ast::ExprKind::Call { function, .. }
            if TWO_THREAD_PREDICATES.contains(&function.name.as_str())
                || (!logs_kept && logs::LOG_QUERIES.contains(&function.name.as_str())) =>
        {
            Some(&function.name)
        }
        ast::ExprKind::Name(name) if name == "__same_group" => Some(name),
        kind => kind.children().into_iter().find_map(|child| two_thread_predicate(child, logs_kept)),
    }
}

/// `formula` with GPUVerify's `__all(e)` (`e` holds in every thread) read as `e` where it stands
/// alone or under `&&`. Claimed, `e` of an arbitrary thread is `e` of all; assumed, `e` of this
/// thread is less than `e` of all, which is sound. Elsewhere (`!__all(e)`, `__implies(a,
/// __all(e))`, which speaks of other threads than the one where `a` holds) it stays, and is
/// refused as a call.
fn all_threads_dropped(formula: &ast::Expr) -> ast::Expr {
    match &formula.kind {
        ast::ExprKind::Call { function, args } if function.name == "__all" && args.len() == 1 => {
            all_threads_dropped(&args[0])
        }
        ast::ExprKind::Binary { op: ast::BinaryOp::And, lhs, rhs } => {
            let kind = ast::ExprKind::Binary {
                op: ast::BinaryOp::And,
                lhs: Box::new(all_threads_dropped(lhs)),
                rhs: Box::new(all_threads_dropped(rhs)),
            };
            ast::Expr { kind, ..formula.clone() }
        }
        _ => formula.clone(),
    }
}

/// GPUVerify's binary barrier invariants (`__barrier_invariant_binary_N`, over pairs of threads): a
/// hint to GPUVerify's encoding that lockstep leaves out. Its unary barrier invariants are read
/// ([`crate::c::lower::barrier_invariants`]).
pub(super) fn is_proof_hint(name: &str) -> bool {
    barrier_invariants::is_binary_barrier_invariant(name)
}

/// GPUVerify's function-wide invariants: `__function_wide_invariant(e)` is an invariant of every
/// loop of the function, `__function_wide_candidate_invariant(e)` a candidate of each.
pub(super) const FUNCTION_WIDE_INVARIANTS: &[&str] =
    &["__function_wide_invariant", "__function_wide_candidate_invariant"];

/// GPUVerify writes loop invariants into the loop's condition: `__invariant(a), __invariant(b), c`.
/// The invariants, and the condition.
/// Anything else before a comma stays, and is refused with the comma.
pub(super) fn split_invariants(cond: &ast::Expr) -> (Vec<&ast::Expr>, &ast::Expr) {
    let is_invariant = |expr: &ast::Expr| matches!(&expr.kind, ast::ExprKind::Call { function, .. } if GPUVERIFY_INVARIANTS.contains(&function.name.as_str()));
    let mut parts = Vec::new();
    let mut rest = cond;
    while let ast::ExprKind::Comma(first, last) = &rest.kind {
        parts.push(&**last);
        rest = first;
    }
    parts.push(rest);
    parts.reverse();
    let Some((condition, invariants)) = parts.split_last() else { return (Vec::new(), cond) };
    if invariants.iter().all(|part| is_invariant(part)) {
        (invariants.to_vec(), condition)
    } else {
        (Vec::new(), cond)
    }
}

/// GPUVerify's `__requires(e);` or `__ensures(e);`: the clause, its formula, and its name.
pub(super) fn gpuverify_clause(stmt: &ast::Stmt) -> Option<(surface::ClauseKind, &ast::Expr, &str)> {
    let (name, formula) = stmt.gpuverify_clause()?;
    // A `__global_` clause holds in every thread, so in this one.
    let kind = if name.ends_with("requires") { surface::ClauseKind::Requires } else { surface::ClauseKind::Ensures };
    Some((kind, formula, name))
}
