//! The outline of a kernel: every obligation lockstep proves of it, as data (seed chapter 5).
//!
//! - the specifications of the kernel and of its work groups, written or generated from the
//!   thread contract (seed section 5.4: `G_res(gid) = ⊛ lid ∈ group. T_res(gid, lid)`, and so on);
//! - the global obligations ([`Global`]): the resources of the threads fit in what the group and
//!   the kernel own, at the launch and at every barrier (with the fence rule); each barrier's
//!   postcondition follows from the preconditions it may use; the written levels' contracts
//!   imply one another (seed PO-1 to PO-8);
//! - the per-thread Hoare triple ([`Command`]): the kernel body, in which each barrier is a call
//!   (check its precondition, give up all permission, forget the heap, take its postcondition),
//!   with the local checks of every statement and contract;
//! - the obligations of the pure functions, and the barriers the threads of a group might reach
//!   divergently (decided here, without a solver).
//!
//! Every obligation is numbered ([`Outline::obligations`]); the commands and global obligations
//! refer to obligations by number. The encoder translates an outline and decides nothing about
//! what must hold; `lockstep explain` prints one.

mod checks;
mod functions;
mod global;
mod thread;

pub use checks::{Check, Place, Reads, Requirement, Termination};
pub use functions::FunctionOutline;
pub use global::{
    clauses, level_atoms, named, resources_written, Entailment, Formula, Global, Holders, Level, Named, Owner, Side,
    Threads,
};
pub use thread::{Command, Part};

use crate::fences::MemoryModel;
use crate::lockstep::LockStep;
use crate::{Builtin, Expr, ExprKind, Function, Kernel, Obligation, ObligationId, Program, Span};

/// The obligations of one kernel of a program.
#[derive(Clone, Debug)]
pub struct Outline<'k> {
    pub kernel: &'k Kernel,
    pub functions: &'k [Function],
    /// Every obligation a solver discharges, numbered: the numbers the commands and global
    /// obligations use.
    pub obligations: Vec<Obligation>,
    /// The barriers the threads of a group might reach divergently: failed without a solver
    /// (PO-13, PO-14).
    pub divergence: Vec<Obligation>,
    /// The obligations of each pure function of the program, in order.
    pub function_outlines: Vec<FunctionOutline>,
    /// The kernel's and the groups' specifications.
    pub kernel_spec: Spec,
    pub group_spec: Spec,
    /// The per-thread triple: the kernel body with its barriers as calls.
    pub thread: Vec<Command>,
    /// The global obligations, in the order they are numbered.
    pub globals: Vec<Global>,
}

/// Whether a level's specification is the one the user wrote or the one generated from the
/// thread contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Written,
    Generated,
}

/// A level's specification `(res, pre, post)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub origin: Origin,
    pub resources: Formula,
    pub pre: Formula,
    pub post: Formula,
}

impl<'k> Outline<'k> {
    /// The outline of one kernel of a program, under a memory model (which decides what the fence
    /// rule forbids).
    pub fn of(program: &'k Program, kernel: &'k Kernel, memory_model: MemoryModel) -> Outline<'k> {
        let lockstep = LockStep::of(kernel);
        let mut numbering = Numbering::default();
        let function_outlines = functions::outlines(kernel, &program.functions, &mut numbering);
        let thread = thread::triple(kernel, &program.functions, &mut numbering);
        let globals = global::obligations(kernel, &program.functions, memory_model, &mut numbering);
        let divergence = lockstep.divergent_barriers(kernel).into_iter().map(|divergence| Obligation {
            id: ObligationId::BarrierDivergence,
            span: divergence.barrier,
            related: Some((divergence.condition, "this condition may differ between the threads of a group".into())),
            message: "the threads of a group might reach this barrier divergently".into(),
            help: Some("a barrier's enclosing conditions must have the same value in all threads of a group: they may not depend on `tid`, `lid`, memory, or variables assigned differently per thread".into()),
        });
        let collectives = lockstep.divergent_collectives(kernel).into_iter().map(|collective| Obligation {
            id: ObligationId::BarrierDivergence,
            span: collective.span,
            related: None,
            message: format!("the threads of a group might call `{}` divergently, or with different arguments", collective.call),
            help: Some(format!("the threads of a group call `{}` together, with the same arguments: neither they nor the conditions around the call may depend on `tid`, `lid`, memory, or variables assigned differently per thread", collective.call)),
        });
        let divergence = divergence.chain(collectives);
        Outline {
            kernel,
            functions: &program.functions,
            obligations: numbering.obligations,
            divergence: divergence.collect(),
            function_outlines,
            kernel_spec: global::spec(kernel, Level::Kernel),
            group_spec: global::spec(kernel, Level::Group),
            thread,
            globals,
        }
    }
}

/// The obligations made so far, numbered in order.
#[derive(Clone, Debug, Default)]
pub struct Numbering {
    obligations: Vec<Obligation>,
}

impl Numbering {
    /// Numbers an obligation at one place.
    pub fn add(&mut self, id: ObligationId, span: Span, message: String) -> usize {
        let help = help(id, &message);
        self.push(Obligation { id, span, related: None, message, help })
    }

    /// Numbers an `access.bounds` obligation, with the likely fix for what its index names.
    pub fn add_bounds(&mut self, span: Span, message: String, index: &Expr) -> usize {
        let help = Some(bounds_help(index));
        self.push(Obligation { id: ObligationId::AccessBounds, span, related: None, message, help })
    }

    /// Numbers an obligation that involves a second place.
    pub fn add_related(&mut self, id: ObligationId, span: Span, message: String, related: Span, note: String) -> usize {
        let help = help(id, &message);
        self.push(Obligation { id, span, related: Some((related, note)), message, help })
    }

    pub fn push(&mut self, obligation: Obligation) -> usize {
        self.obligations.push(obligation);
        self.obligations.len() - 1
    }

    /// How many obligations are numbered: the number the next one gets.
    pub fn len(&self) -> usize {
        self.obligations.len()
    }

    pub fn is_empty(&self) -> bool {
        self.obligations.is_empty()
    }
}

/// A likely fix for an index out of bounds: the usual slip with the linear ids where the index
/// names them, the per-axis layout where it names an axis's id, and the general rule otherwise.
fn bounds_help(index: &Expr) -> String {
    let names =
        |test: fn(Builtin) -> bool| index.any(|expr| matches!(expr.kind, ExprKind::Builtin(builtin) if test(builtin)));
    if names(|builtin| matches!(builtin, Builtin::Tid | Builtin::Lid)) {
        "`tid` counts the threads of all groups (up to `tcount`) and `lid` those of one group (up to `gsize`): index by `lid`, size the array by `tcount`, or, for one work group, add `requires tcount == gsize;`".into()
    } else if names(|builtin| matches!(builtin, Builtin::LocalId(_) | Builtin::GroupId(_))) {
        "a per-axis index reaches its largest value at the last id of every axis (`lid_x == gsize_x - 1`, ...): a row-major tile of rows of `w` cells needs `rows * w` cells, padding included".into()
    } else {
        "the index must stay below the array's declared length for every thread and every launch the contract allows: compare its largest value with the length, or restrict the launch with a `requires`".into()
    }
}

/// A likely fix for an obligation, for the ones whose usual cause is known.
fn help(id: ObligationId, message: &str) -> Option<String> {
    Some(match id {
        ObligationId::KernelResources | ObligationId::GroupResources | ObligationId::BarrierResources
            if message.contains("resources give") =>
        {
            "a written `kernel requires` permission is what the host hands over, and a written `group requires` permission what the kernel gives each group: the level below may hold only what they give (a `read` only `read`, an exact amount no more); widen the written resources or narrow the claim".into()
        }
        ObligationId::KernelResources | ObligationId::GroupResources if message.contains("give back") => {
            "a kernel or group gives back at the end only what its resources (the permissions of its `requires`) hold".into()
        }
        ObligationId::KernelResources if message.contains("group permission") || message.contains("the groups might") => {
            "the groups' written resources must not overlap: give each group its own block, for example `(\\forall* int i; gid * gsize <= i && i < gid * gsize + gsize; Perm(a[i], write))`, and share a location between groups only with `read`".into()
        }
        ObligationId::KernelResources | ObligationId::GroupResources
            if message.contains("two values of its bound variables") || message.contains("more than all of a location") && message.contains("resources might") =>
        {
            "a `\\forall*` names each location once only if its index differs for different values of its bound variables; exact amounts on one location add up to at most 1".into()
        }
        ObligationId::KernelResources if message.contains("threads of the kernel might") => {
            "every thread names such a location alike, so their shares add up over all `tcount` threads: `write \\ tcount` each is all of it, while `write \\ gsize` each is too much once there are several groups".into()
        }
        ObligationId::KernelResources => "threads of different groups name the same location: index global arrays by `tid` (unique in the kernel) rather than `lid`, or add `requires tcount == gsize;` for one work group".into(),
        ObligationId::GroupResources => "two threads of a group hold permission on one location that adds up to more than 1: give each thread its own cells, or share them with `read`".into(),
        ObligationId::BarrierResources => "a barrier can only redistribute what the group holds: every location's barrier permissions must add up to at most what the thread contracts gave".into(),
        ObligationId::BarrierFunctional if message.contains("postcondition") => "a barrier postcondition may use the thread's own barrier precondition, and other threads' only for memory the barrier fences (`barrier(local)`, `barrier(global)`, `barrier({local, global})`)".into(),
        ObligationId::AccessRead | ObligationId::AccessWrite => "a thread reads with any permission and writes with all of it: add the permission to the thread contract, a barrier's ensures, or the loop invariant".into(),
        ObligationId::FunctionTermination => "every call on a cycle of calls must pass a measure at least 0 and smaller than the caller's: by default an int parameter (for example `n - 1` under `n > 0`); write `decreases e;` to choose another".into(),
        _ => return None,
    })
}
