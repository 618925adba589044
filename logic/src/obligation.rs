//! The obligations of `DESIGN.md`, with their stable ids. The ids are part of the user interface:
//! diagnostics, JSON output and the expectations written in example files name them.

use crate::Span;

/// What must hold, one kind per row of the obligation table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObligationId {
    /// The global-memory resources of all groups fit together (PO-1).
    KernelResources,
    /// The resources of the threads of one group fit in what the group owns (PO-2).
    GroupResources,
    /// What a barrier hands out to the threads of a group fits in what the group owns (PO-3).
    BarrierResources,
    KernelPre,
    GroupPre,
    GroupPost,
    KernelPost,
    /// A barrier's postcondition follows from the preconditions it may use (PO-8).
    BarrierFunctional,
    /// The thread's barrier precondition holds when it reaches the barrier (PO-10).
    BarrierPre,
    AccessRead,
    AccessWrite,
    /// An index or permission atom inside the array's declared size.
    AccessBounds,
    ThreadPost,
    LoopInvariantEntry,
    LoopInvariantPreserved,
    Assert,
    /// A pure function's precondition at a call.
    CallPre,
    /// A pure function's postcondition follows from its body.
    FunctionPost,
    /// A recursive pure function's calls decrease its measure, so it terminates.
    FunctionTermination,
    DivisionByZero,
    /// An operation on signed machine integers stays in its type's range (OpenCL and CUDA code:
    /// signed overflow is undefined behaviour).
    ArithOverflow,
    /// A permission amount that depends on the launch (`write \ gsize`) is positive.
    AmountPositive,
    /// A contract reads only memory its own resources (given earlier) hold (PO-12).
    Frame,
    /// A barrier or an assignment to a lock-step-safe variable under a thread-dependent condition
    /// (PO-13, PO-14).
    BarrierDivergence,
}

impl ObligationId {
    pub const ALL: [ObligationId; 24] = [
        ObligationId::KernelResources,
        ObligationId::GroupResources,
        ObligationId::BarrierResources,
        ObligationId::KernelPre,
        ObligationId::GroupPre,
        ObligationId::GroupPost,
        ObligationId::KernelPost,
        ObligationId::BarrierFunctional,
        ObligationId::BarrierPre,
        ObligationId::AccessRead,
        ObligationId::AccessWrite,
        ObligationId::AccessBounds,
        ObligationId::ThreadPost,
        ObligationId::LoopInvariantEntry,
        ObligationId::LoopInvariantPreserved,
        ObligationId::Assert,
        ObligationId::CallPre,
        ObligationId::FunctionPost,
        ObligationId::FunctionTermination,
        ObligationId::DivisionByZero,
        ObligationId::ArithOverflow,
        ObligationId::AmountPositive,
        ObligationId::Frame,
        ObligationId::BarrierDivergence,
    ];

    /// The stable id, as users see and write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ObligationId::KernelResources => "kernel.resources",
            ObligationId::GroupResources => "group.resources",
            ObligationId::BarrierResources => "barrier.resources",
            ObligationId::KernelPre => "kernel.pre",
            ObligationId::GroupPre => "group.pre",
            ObligationId::GroupPost => "group.post",
            ObligationId::KernelPost => "kernel.post",
            ObligationId::BarrierFunctional => "barrier.functional",
            ObligationId::BarrierPre => "barrier.pre",
            ObligationId::AccessRead => "access.read",
            ObligationId::AccessWrite => "access.write",
            ObligationId::AccessBounds => "access.bounds",
            ObligationId::ThreadPost => "thread.post",
            ObligationId::LoopInvariantEntry => "loop.invariant.entry",
            ObligationId::LoopInvariantPreserved => "loop.invariant.preserved",
            ObligationId::Assert => "assert",
            ObligationId::CallPre => "call.pre",
            ObligationId::FunctionPost => "function.post",
            ObligationId::FunctionTermination => "function.termination",
            ObligationId::DivisionByZero => "division.by.zero",
            ObligationId::ArithOverflow => "arith.overflow",
            ObligationId::AmountPositive => "amount.positive",
            ObligationId::Frame => "frame",
            ObligationId::BarrierDivergence => "barrier.divergence",
        }
    }

    /// What must hold, in a sentence (DESIGN.md's obligation table).
    pub fn summary(self) -> &'static str {
        match self {
            ObligationId::KernelResources => {
                "the global-memory resources of all work groups fit together (no race between groups)"
            }
            ObligationId::GroupResources => {
                "the resources of the threads of a group fit in what the group owns (no race inside a group)"
            }
            ObligationId::BarrierResources => {
                "what a barrier hands out to the threads of a group fits in what the group owns"
            }
            ObligationId::KernelPre => "the kernel precondition implies every group's precondition",
            ObligationId::GroupPre => "the group precondition implies every thread's precondition",
            ObligationId::GroupPost => "the threads' postconditions imply the group postcondition",
            ObligationId::KernelPost => "the groups' postconditions imply the kernel postcondition",
            ObligationId::BarrierFunctional => {
                "a barrier's postcondition follows from the preconditions of the threads it may use"
            }
            ObligationId::BarrierPre => "a thread's barrier precondition holds when it reaches the barrier",
            ObligationId::AccessRead => "every read holds a positive permission",
            ObligationId::AccessWrite => "every write holds the full permission",
            ObligationId::AccessBounds => "every array access and permission lies inside the array's declared size",
            ObligationId::ThreadPost => "the thread's postcondition holds when its body ends",
            ObligationId::LoopInvariantEntry => "a loop invariant holds when the loop is entered",
            ObligationId::LoopInvariantPreserved => "a loop invariant is preserved by every iteration",
            ObligationId::Assert => "an assert holds",
            ObligationId::CallPre => "a pure function's precondition holds where it is called",
            ObligationId::FunctionPost => "a pure function's postcondition follows from its body",
            ObligationId::FunctionTermination => "a recursive pure function's calls decrease its measure",
            ObligationId::DivisionByZero => "no division or remainder by zero",
            ObligationId::ArithOverflow => "an operation on signed machine integers stays in its type's range",
            ObligationId::AmountPositive => "a permission amount that depends on the launch is positive",
            ObligationId::Frame => "a contract reads only memory its own resources hold",
            ObligationId::BarrierDivergence => {
                "barriers and lock-step-safe assignments are reached by all threads of a group alike"
            }
        }
    }

    pub fn parse(text: &str) -> Option<ObligationId> {
        ObligationId::ALL.into_iter().find(|id| id.as_str() == text)
    }
}

/// One obligation of a kernel: what must hold, where, and why, in words a user can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obligation {
    pub id: ObligationId,
    /// The clause, statement or expression the obligation is about.
    pub span: Span,
    /// A second place involved, such as the barrier whose precondition an ensures does not follow from.
    pub related: Option<(Span, String)>,
    pub message: String,
    /// How the user might fix a failure, where a likely fix is known.
    pub help: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_back_and_are_distinct() {
        for id in ObligationId::ALL {
            assert_eq!(ObligationId::parse(id.as_str()), Some(id));
        }
        let distinct: std::collections::HashSet<_> = ObligationId::ALL.iter().map(|id| id.as_str()).collect();
        assert_eq!(distinct.len(), ObligationId::ALL.len());
        assert_eq!(ObligationId::parse("no.such"), None);
    }
}
