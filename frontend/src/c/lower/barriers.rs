//! Barriers and fences: `__syncthreads()` fences local and global memory, and OpenCL's
//! `barrier(flags)` the memories its flags name (a flag that is a variable fences none, with a
//! warning); OpenCL's memory fences (`mem_fence`, ...) change nothing.

use super::Lowerer;
use crate::c::ast;
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::Span;
use num_traits::ToPrimitive;

impl Lowerer<'_> {
    pub(super) fn fences(&mut self, fences: Fences, span: Span) -> Option<Vec<surface::FenceName>> {
        let name = |name: &str| surface::Ident { name: name.to_string(), span };
        match fences {
            Fences::Both => Some(vec![name("local"), name("global")]),
            Fences::Flags(flags) => {
                let mut names = Vec::new();
                let mut ok = true;
                for flag in flags_of(flags) {
                    if let Some(bits) = fence_bits(flag) {
                        if bits & 1 != 0 {
                            names.push(name("local"));
                        }
                        if bits & 2 != 0 {
                            names.push(name("global"));
                        }
                        continue;
                    }
                    match &flag.kind {
                        ast::ExprKind::Name(word) if !word.starts_with("CLK_") => {
                            // A variable: which memories it fences depends on its value, and
                            // fencing fewer than it may is sound (a race or a permission that
                            // moves across the barrier is then reported, never hidden).
                            self.diagnostics.push(
                                Diagnostic::warning(
                                    Code::VariableFlags,
                                    format!("the barrier flag `{word}` is a variable, taken to fence no memory"),
                                    flag.span,
                                    "fences nothing",
                                )
                                .with_help("write the flags as constants, `CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE`, for the barrier to fence them"),
                            );
                        }
                        _ => {
                            self.diagnostics.push(
                                Diagnostic::error(Code::UnknownFence, "a barrier flag lockstep does not know", flag.span, "not a fence flag")
                                    .with_help("OpenCL's barriers take `CLK_LOCAL_MEM_FENCE`, `CLK_GLOBAL_MEM_FENCE` or both, joined by `|`"),
                            );
                            ok = false;
                        }
                    }
                }
                ok.then_some(names)
            }
        }
    }
}

/// What a barrier call fences.
#[derive(Clone, Copy)]
pub(super) enum Fences<'e> {
    /// `__syncthreads()`: local and global memory.
    Both,
    /// `barrier(flags)`.
    Flags(&'e ast::Expr),
}

/// The fences of a barrier call statement, if the expression is one.
pub(super) fn barrier_fences(expr: &ast::Expr) -> Option<Fences<'_>> {
    let ast::ExprKind::Call { function, args } = &expr.kind else { return None };
    match (function.name.as_str(), args.as_slice()) {
        ("__syncthreads", []) => Some(Fences::Both),
        ("barrier" | "work_group_barrier", [flags]) => Some(Fences::Flags(flags)),
        _ => None,
    }
}

/// Whether a statement is a barrier that fences local memory.
pub(super) fn fences_local(stmt: &ast::Stmt) -> bool {
    let ast::StmtKind::Expr(expr) = &stmt.kind else { return false };
    match barrier_fences(expr) {
        Some(Fences::Both) => true,
        Some(Fences::Flags(flags)) => {
            flags_of(flags).iter().any(|flag| fence_bits(flag).is_some_and(|bits| bits & 1 != 0))
        }
        None => false,
    }
}

/// The flags of `a | b | c`.
fn flags_of(expr: &ast::Expr) -> Vec<&ast::Expr> {
    match &expr.kind {
        ast::ExprKind::Binary { op: ast::BinaryOp::BitOr, lhs, rhs } => {
            let mut flags = flags_of(lhs);
            flags.extend(flags_of(rhs));
            flags
        }
        _ => vec![expr],
    }
}

/// OpenCL's memory fences and CUDA's `__threadfence`s, which order one thread's own accesses
/// to memory as the others see them: lockstep's semantics runs each thread's accesses in order
/// already, and orders nothing between threads but barriers, so they change nothing.
pub(super) const MEMORY_FENCES: &[&str] =
    &["mem_fence", "read_mem_fence", "write_mem_fence", "__threadfence", "__threadfence_block", "__threadfence_system"];

/// The memories a fence flag names, as the bits of `cl_mem_fence_flags` (1 local, 2 global): a
/// flag's name, or its value where a macro of the file's own spelled it (Clang expands macros).
fn fence_bits(flag: &ast::Expr) -> Option<u32> {
    match &flag.kind {
        ast::ExprKind::Name(word) => fence_flag_value(word),
        ast::ExprKind::Int { value, .. } => value.to_u32().filter(|bits| bits & !3 == 0),
        _ => None,
    }
}

/// The value of an OpenCL fence flag (`cl_mem_fence_flags`), as OpenCL's headers define it.
pub(super) fn fence_flag_value(name: &str) -> Option<u32> {
    match name {
        "CLK_LOCAL_MEM_FENCE" => Some(1),
        "CLK_GLOBAL_MEM_FENCE" => Some(2),
        _ => None,
    }
}

pub(super) fn is_barrier(stmt: &ast::Stmt) -> bool {
    matches!(&stmt.kind, ast::StmtKind::Expr(expr) if barrier_fences(expr).is_some())
}
