//! The accesses to memory a run has made ([`AccessLog`]), kept so that a new access finds the
//! first earlier one it races with, or the write it reads stale, in constant time.
//!
//! A race is reported with the first earlier access (in the order of the run) that conflicts.
//! Listing every access of a cell and scanning the list at each new one costs time quadratic in
//! the threads that touch the cell, as when all threads read one cell. The earlier accesses that
//! conflict with a new one are the reads or the writes of a few sets (the other groups' accesses,
//! the group's in the same barrier interval, the group's since its last barrier that fences the
//! cell's memory), less those of the new access's own thread or group; and the first of a set
//! outside one thread (or group) is either the set's first access or its first of another thread
//! (group) than that one's ([`Earliest`]). So two accesses per set suffice. The cells' histories
//! lie in a vector indexed as memory is, rather than in a hash map: every access looks one up.

use super::{Access, Location};
use crate::fences::MemoryModel;
use std::collections::HashMap;
use std::marker::PhantomData;

/// What an access meets among the earlier ones to its location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Conflict {
    /// The first earlier access of another thread that nothing orders before this one.
    Race(Access),
    /// The write of another thread of the group this read may not see: no barrier since it
    /// fences the location's memory.
    StaleRead(Access),
}

/// The accesses so far, by location.
#[derive(Clone, Debug)]
pub(super) struct AccessLog {
    /// How many accesses were recorded: the position of the next one in the run's order.
    recorded: u64,
    /// Per array, where its cells start in `cells` and how many it has (per group, for local
    /// memory).
    arrays: Vec<(usize, usize)>,
    /// Every location's accesses, a local array's group after group; boxed, so that a cell never
    /// touched costs a pointer.
    cells: Vec<Option<Box<CellHistory>>>,
    /// By cell and group, the accesses of the groups that did not touch the cell first: only
    /// global memory is shared by groups, and seldom.
    in_other_groups: HashMap<(usize, u32), GroupHistory>,
}

/// The accesses to one location.
#[derive(Clone, Debug, Default)]
struct CellHistory {
    /// Over all groups: reads, then writes.
    accesses: [Earliest<ByGroup>; 2],
    last_write: Option<Access>,
    /// The accesses of the group that touched the location first (the others' are in
    /// [`AccessLog::in_other_groups`]).
    first_group: u32,
    in_first_group: GroupHistory,
}

/// One group's accesses to one location, since its last barrier and since its last barrier that
/// fences the location's memory: reads, then writes.
#[derive(Clone, Debug, Default)]
struct GroupHistory {
    /// The barriers the group had passed at the accesses recorded here, and those of them that
    /// fence the location's memory.
    interval: u32,
    fenced: u32,
    in_interval: [Earliest<ByThread>; 2],
    since_fence: [Earliest<ByThread>; 2],
}

impl GroupHistory {
    /// Forgets the accesses before the group's last barrier, and before its last barrier that
    /// fences the location's memory.
    fn advance(&mut self, interval: u32, fenced: u32) {
        if interval != self.interval {
            self.interval = interval;
            self.in_interval = Default::default();
        }
        if fenced != self.fenced {
            self.fenced = fenced;
            self.since_fence = Default::default();
        }
    }
}

/// An access with its position in the run's order.
#[derive(Clone, Copy, Debug)]
struct Recorded {
    order: u64,
    access: Access,
}

/// What tells the accesses of an [`Earliest`] set apart: their threads, or their groups.
trait Key {
    fn of(access: &Access) -> u32;
}

#[derive(Clone, Copy, Debug, Default)]
struct ByThread;

impl Key for ByThread {
    fn of(access: &Access) -> u32 {
        access.thread.tid
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct ByGroup;

impl Key for ByGroup {
    fn of(access: &Access) -> u32 {
        access.thread.gid
    }
}

/// Of a set of accesses, the first one, and the first one of another thread (or group) than the
/// first's: the first access of the set outside any one thread (group) is one of these two. The
/// second is boxed: most sets never have one (a second thread's write would race, and most cells
/// have one reader at a time), and a run keeps six sets for each cell it touches.
#[derive(Clone, Debug, Default)]
struct Earliest<K: Key> {
    first: Option<Recorded>,
    first_of_another: Option<Box<Recorded>>,
    key: PhantomData<K>,
}

impl<K: Key> Earliest<K> {
    /// Adds an access, later than all in the set.
    fn note(&mut self, recorded: Recorded) {
        match self.first {
            None => self.first = Some(recorded),
            Some(first) if self.first_of_another.is_none() && K::of(&first.access) != K::of(&recorded.access) => {
                self.first_of_another = Some(Box::new(recorded))
            }
            Some(_) => {}
        }
    }

    /// The first access of the set that is not of the thread (group) of `access`.
    fn first_besides(&self, access: &Access) -> Option<Recorded> {
        match self.first {
            Some(first) if K::of(&first.access) == K::of(access) => self.first_of_another.as_deref().copied(),
            first => first,
        }
    }
}

impl AccessLog {
    /// An empty log for arrays of these many cells, in this many copies (one per group for local
    /// memory), by [`crate::ArrayId`].
    pub(super) fn new(arrays: impl IntoIterator<Item = (usize, usize)>) -> AccessLog {
        let mut cells = 0;
        let arrays = arrays
            .into_iter()
            .map(|(size, copies)| {
                let first_cell = cells;
                cells += size * copies;
                (first_cell, size)
            })
            .collect();
        AccessLog { recorded: 0, arrays, cells: vec![None; cells], in_other_groups: HashMap::new() }
    }

    /// The conflict a new access meets, if any; else records it. The access's `interval` and
    /// `fenced` are its group's barriers so far, which no earlier access of the group exceeds.
    ///
    /// It races with the first earlier access of another thread, one of the two a write, that lies
    /// in another group, or in the same barrier interval, or only behind barriers that do not fence
    /// the location's memory when this one writes and the memory model says they conflict
    /// ([`MemoryModel::conflict`]). A read of another thread's write behind such barriers is stale.
    pub(super) fn record(&mut self, location: Location, access: Access, memory_model: MemoryModel) -> Option<Conflict> {
        let (first_cell, size) = self.arrays[location.array.index()];
        let index = first_cell + location.group.unwrap_or(0) as usize * size + location.index;
        let gid = access.thread.gid;
        let cell =
            self.cells[index].get_or_insert_with(|| Box::new(CellHistory { first_group: gid, ..Default::default() }));
        let CellHistory { accesses, last_write, first_group, in_first_group } = &mut **cell;
        let group =
            if gid == *first_group { in_first_group } else { self.in_other_groups.entry((index, gid)).or_default() };
        group.advance(access.interval, access.fenced);
        // The first earlier access of each set that conflicts with this one, but for this one's
        // group or thread.
        let write = access.write;
        let first = [false, true]
            .into_iter()
            .flat_map(|earlier_writes| {
                let kind = usize::from(earlier_writes);
                let either_writes = earlier_writes || write;
                let unfenced = write && memory_model.conflict(earlier_writes, write);
                [
                    either_writes.then(|| accesses[kind].first_besides(&access)),
                    either_writes.then(|| group.in_interval[kind].first_besides(&access)),
                    unfenced.then(|| group.since_fence[kind].first_besides(&access)),
                ]
            })
            .flatten()
            .flatten()
            .min_by_key(|recorded| recorded.order);
        if let Some(first) = first {
            return Some(Conflict::Race(first.access));
        }
        let stale = |last: &Access| !write && last.thread.tid != access.thread.tid && last.fenced == access.fenced;
        if let Some(last) = last_write.filter(stale) {
            return Some(Conflict::StaleRead(last));
        }
        let recorded = Recorded { order: self.recorded, access };
        self.recorded += 1;
        let kind = usize::from(write);
        group.in_interval[kind].note(recorded);
        group.since_fence[kind].note(recorded);
        accesses[kind].note(recorded);
        if write {
            *last_write = Some(access);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::{SplitMix64, ThreadIds};
    use crate::{ArrayId, Span};

    /// The log as a list scanned at every access, as the run kept it before: the specification.
    #[derive(Default)]
    struct Listed {
        seen: Vec<Access>,
        last_write: Option<Access>,
    }

    impl Listed {
        fn record(&mut self, access: Access, memory_model: MemoryModel) -> Option<Conflict> {
            let (ids, write) = (access.thread, access.write);
            let conflict = self.seen.iter().find(|other| {
                other.thread.tid != ids.tid
                    && (other.write || write)
                    && (other.thread.gid != ids.gid
                        || other.interval == access.interval
                        || (other.fenced == access.fenced && write && memory_model.conflict(other.write, write)))
            });
            if let Some(first) = conflict {
                return Some(Conflict::Race(*first));
            }
            if let Some(last) =
                self.last_write.filter(|last| !write && last.thread.tid != ids.tid && last.fenced == access.fenced)
            {
                return Some(Conflict::StaleRead(last));
            }
            if write {
                self.last_write = Some(access);
            }
            self.seen.push(access);
            None
        }
    }

    /// Random runs of accesses to one cell by a few threads of a few groups, whose barriers fence
    /// the cell's memory or not: the log meets the conflicts the list does, with the same accesses.
    #[test]
    fn the_log_finds_the_conflicts_a_scan_of_every_access_finds() {
        let location = Location { array: ArrayId(0), group: None, index: 0 };
        let mut conflicts = 0;
        for seed in 0..4000u64 {
            let mut random = SplitMix64(seed);
            let (groups, gsize) = (1 + random.next() % 3, 1 + random.next() % 4);
            let memory_model = if seed % 2 == 0 { MemoryModel::Seed } else { MemoryModel::OpenCl };
            // Barriers passed by each group, and those fencing the cell's memory.
            let mut barriers = vec![(0u32, 0u32); groups as usize];
            let (mut log, mut listed) = (AccessLog::new([(1, 1)]), Listed::default());
            for step in 0..30 {
                let gid = (random.next() % groups) as u32;
                let (interval, fenced) = &mut barriers[gid as usize];
                match random.next() % 8 {
                    0 => *interval += 1,
                    1 => (*interval, *fenced) = (*interval + 1, *fenced + 1),
                    _ => {}
                }
                let lid = (random.next() % gsize) as u32;
                let access = Access {
                    thread: ThreadIds { tid: gid * gsize as u32 + lid, gid, lid },
                    write: random.next().is_multiple_of(3),
                    span: Span { start: step, end: step + 1 },
                    interval: *interval,
                    after: None,
                    fenced: *fenced,
                };
                let expected = listed.record(access, memory_model);
                assert_eq!(log.record(location, access, memory_model), expected, "seed {seed}, step {step}");
                if expected.is_some() {
                    conflicts += 1;
                    break;
                }
            }
        }
        assert!(conflicts > 1000, "the runs meet conflicts of every kind: {conflicts}");
    }
}
