//! What a barrier's fences order (DESIGN.md, "Decisions that close the seed's gaps"), and the
//! barrier intervals a write can reach a barrier through.
//!
//! A barrier always waits for the whole group; its fences decide which memory it orders. Under the
//! seed's rule ([`MemoryModel::Seed`], the default for PVL), a write before a barrier is ordered
//! with another thread's access after it only if some barrier in between fences the written
//! memory (the launch orders everything); a read before a barrier is complete when the barrier
//! returns, so a location that was only read may be written by another thread after any barrier
//! (the seed's `barrier(2,)` in Fig. 5.9). Under OpenCL's rule ([`MemoryModel::OpenCl`]), any access
//! before a barrier that does not fence its memory conflicts with another thread's write after it.
//!
//! Which accesses can precede a barrier is decidable from the contracts: within one barrier
//! interval permissions do not move between threads, so a thread can access in an interval only
//! what it held at the interval's start (the launch, or the barrier that opened it), and write
//! only what it held entirely there. [`Intervals`] finds, for each barrier, the intervals that can
//! end at it, and from those the intervals whose accesses a barrier that does not fence some
//! memory leaves unordered.

use crate::{BarrierId, Block, Kernel, Memory, StmtKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// Which accesses before a barrier that does not fence their memory conflict with another
/// thread's accesses after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    /// The seed's rule: a write conflicts with any later access of another thread, a read with
    /// nothing.
    #[default]
    Seed,
    /// OpenCL's rule: a write conflicts with any later access of another thread, and a read with
    /// a later write of another thread.
    OpenCl,
}

impl MemoryModel {
    /// Whether an access before a barrier that does not fence its memory conflicts with another
    /// thread's access after it, given which of the two writes.
    pub fn conflict(self, earlier_writes: bool, later_writes: bool) -> bool {
        earlier_writes || (self == MemoryModel::OpenCl && later_writes)
    }

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Seed => "seed",
            MemoryModel::OpenCl => "opencl",
        }
    }
}

/// Where a barrier interval starts: at the launch, which orders everything, or when a barrier
/// returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Start {
    Launch,
    Barrier(BarrierId),
}

/// The private variables a thread may have assigned since an interval start, on some path.
pub type Assigned = BTreeSet<VarId>;

/// The barrier intervals of a kernel: for each barrier, the interval starts from which control
/// reaches it without passing another barrier, with the private variables assigned on the way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals {
    ending_at: Vec<BTreeMap<Start, Assigned>>,
}

impl Intervals {
    /// The intervals of a kernel's body. Loops are followed to a fixed point, so a barrier in a
    /// loop is also reached from itself (the previous iteration) and from the barriers after it.
    pub fn of(kernel: &Kernel) -> Intervals {
        let mut intervals = Intervals { ending_at: vec![BTreeMap::new(); kernel.barriers.len()] };
        let launch = BTreeMap::from([(Start::Launch, Assigned::new())]);
        intervals.block(&kernel.body, launch);
        intervals
    }

    /// The intervals that end at `barrier`.
    pub fn ending_at(&self, barrier: BarrierId) -> &BTreeMap<Start, Assigned> {
        &self.ending_at[barrier.index()]
    }

    /// The intervals whose accesses to `memory` are not ordered with the accesses after `barrier`
    /// when `barrier` does not fence `memory`: those that end at it, and, through every barrier
    /// before them that does not fence `memory` either, those that end there, back to a barrier
    /// that fences `memory` or the launch (whose intervals count too: their accesses are ordered
    /// only with what precedes them). Each comes with the private variables assigned between its
    /// start and `barrier` on some path.
    pub fn unordered(&self, kernel: &Kernel, barrier: BarrierId, memory: Memory) -> BTreeMap<Start, Assigned> {
        let mut found: BTreeMap<Start, Assigned> = BTreeMap::new();
        let mut work: Vec<(Start, Assigned)> =
            self.ending_at(barrier).iter().map(|(start, assigned)| (*start, assigned.clone())).collect();
        while let Some((start, assigned)) = work.pop() {
            let grew = match found.get_mut(&start) {
                None => {
                    found.insert(start, assigned.clone());
                    true
                }
                Some(known) => {
                    let before = known.len();
                    known.extend(assigned.iter().copied());
                    known.len() > before
                }
            };
            if !grew {
                continue;
            }
            let assigned = found[&start].clone();
            if let Start::Barrier(earlier) = start {
                if !kernel.barrier(earlier).fences.fences(memory) {
                    for (start, more) in self.ending_at(earlier) {
                        work.push((*start, assigned.union(more).copied().collect()));
                    }
                }
            }
        }
        found
    }

    /// Follows a block from the given open intervals; returns those open at its end.
    fn block(&mut self, block: &Block, mut open: BTreeMap<Start, Assigned>) -> BTreeMap<Start, Assigned> {
        for stmt in &block.stmts {
            open = match &stmt.kind {
                StmtKind::Declare { var, .. } | StmtKind::Assign { var, .. } => {
                    open.values_mut().for_each(|assigned| {
                        assigned.insert(*var);
                    });
                    open
                }
                StmtKind::Barrier(barrier) => {
                    merge(&mut self.ending_at[barrier.index()], open);
                    BTreeMap::from([(Start::Barrier(*barrier), Assigned::new())])
                }
                StmtKind::If { then_branch, else_branch, .. } => {
                    let mut after = self.block(then_branch, open.clone());
                    let otherwise = match else_branch {
                        Some(else_branch) => self.block(else_branch, open),
                        None => open,
                    };
                    merge(&mut after, otherwise);
                    after
                }
                StmtKind::While { body, .. } => {
                    // The loop head is reached from before the loop and from the end of every
                    // iteration; what is open there leaves the loop.
                    let mut head = open;
                    loop {
                        let end = self.block(body, head.clone());
                        let mut next = head.clone();
                        merge(&mut next, end);
                        if next == head {
                            break head;
                        }
                        head = next;
                    }
                }
                StmtKind::Block(inner) => self.block(inner, open),
                StmtKind::Write { .. } | StmtKind::Assert(_) | StmtKind::Assume(_) => open,
            };
        }
        open
    }
}

/// Adds the intervals of `more` to `into`, with the union of their assigned variables.
fn merge(into: &mut BTreeMap<Start, Assigned>, more: BTreeMap<Start, Assigned>) {
    for (start, assigned) in more {
        into.entry(start).or_default().extend(assigned);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_before_an_unfenced_barrier_conflicts_only_under_opencl() {
        assert!(!MemoryModel::Seed.conflict(false, true));
        assert!(MemoryModel::OpenCl.conflict(false, true));
        for model in [MemoryModel::Seed, MemoryModel::OpenCl] {
            assert!(model.conflict(true, false));
            assert!(model.conflict(true, true));
            assert!(!model.conflict(false, false));
        }
    }
}
