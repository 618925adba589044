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
