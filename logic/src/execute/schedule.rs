//! The orders in which a [`Machine`]'s threads take their steps: the canonical schedule (which
//! decides a launch, `proofs/run.md`), random schedules, and every interleaving one by one; and
//! the set of threads that can run ([`Runnable`]), from which a random schedule draws.

use super::{Machine, Outcome, RunError, State};

impl Machine<'_> {
    /// Each thread in turn (in `order`) to its next barrier, then the barriers open.
    pub(super) fn run_canonical(mut self) -> Result<Outcome, RunError> {
        let result = (|| loop {
            for thread in self.order.clone() {
                while self.threads[thread].state == State::Running {
                    self.step(thread)?;
                }
            }
            for group in self.group_order.clone() {
                self.synchronise(group)?;
            }
            if self.threads.iter().all(|thread| thread.state == State::Finished) {
                return self.finish();
            }
        })();
        result.or_else(|stop| self.outcome(stop))
    }

    pub(super) fn run_random(mut self, seed: u64) -> Result<Outcome, RunError> {
        let mut random = SplitMix64(seed);
        let result = (|| loop {
            let running = self.runnable.count();
            if running == 0 {
                for group in 0..self.launch.groups {
                    self.synchronise(group)?;
                }
                if self.threads.iter().all(|thread| thread.state == State::Finished) {
                    return self.finish();
                }
                continue;
            }
            let thread = self.runnable.nth((random.next() % running as u64) as usize);
            self.step(thread)?;
            if self.threads[thread].state != State::Running {
                self.synchronise(self.ids(thread).gid)?;
            }
        })();
        result.or_else(|stop| self.outcome(stop))
    }

    /// Every interleaving, depth first: at each point, each thread that can run takes the next step
    /// in its own copy of the machine.
    pub(super) fn run_exhaustive(self, limit: u64) -> Result<Outcome, RunError> {
        let mut pending = vec![self];
        let mut explored = 0u64;
        let mut last = None;
        while let Some(mut machine) = pending.pop() {
            let running: Vec<usize> =
                (0..machine.threads.len()).filter(|&thread| machine.threads[thread].state == State::Running).collect();
            if running.is_empty() {
                let synchronised = (0..machine.launch.groups).try_for_each(|group| machine.synchronise(group));
                let outcome = match synchronised {
                    Err(stop) => Some(machine.outcome(stop)?),
                    Ok(()) if machine.threads.iter().all(|thread| thread.state == State::Finished) => {
                        Some(match machine.finish() {
                            Ok(outcome) => outcome,
                            Err(stop) => machine.outcome(stop)?,
                        })
                    }
                    Ok(()) => {
                        pending.push(machine);
                        None
                    }
                };
                if let Some(mut outcome) = outcome {
                    explored += 1;
                    outcome.schedules = explored;
                    if outcome.bug.is_some() {
                        return Ok(outcome);
                    }
                    last = Some(outcome);
                    if explored >= limit && !pending.is_empty() {
                        let detail = format!("more than {limit} schedules");
                        return Err(RunError::GaveUp { detail, span: None });
                    }
                }
                continue;
            }
            // The last thread's branch takes the machine itself; the others, copies.
            let (last_thread, others) = running.split_last().expect("some thread runs");
            let branches = others.iter().map(|&thread| (thread, machine.clone())).collect::<Vec<_>>();
            for (thread, mut next) in branches.into_iter().chain([(*last_thread, machine)]) {
                if let Err(stop) = next.step(thread) {
                    let mut outcome = next.outcome(stop)?;
                    outcome.schedules = explored + 1;
                    return Ok(outcome);
                }
                pending.push(next);
            }
        }
        let mut outcome = last.expect("a launch has at least one schedule");
        outcome.schedules = explored;
        Ok(outcome)
    }
}

/// The threads that can run, by index: counted per group, and in a Fenwick tree, so that a random
/// schedule draws the `k`-th of them in logarithmic time rather than listing them at every step.
#[derive(Clone, Debug)]
pub(super) struct Runnable {
    /// `tree[i]` counts the runnable threads of indices `i - lowest_bit(i)` to `i - 1` (`tree[0]`
    /// is unused).
    tree: Vec<u32>,
    count: u32,
    in_group: Vec<u32>,
    gsize: usize,
}

impl Runnable {
    /// Every thread of `groups` groups of `gsize` threads (by index, a group's together).
    pub(super) fn all(groups: usize, gsize: usize) -> Runnable {
        let threads = groups * gsize;
        let tree = (0..=threads).map(|index| (index & index.wrapping_neg()) as u32).collect();
        Runnable { tree, count: threads as u32, in_group: vec![gsize as u32; groups], gsize }
    }

    /// Makes a thread runnable or not, as it was not.
    pub(super) fn set(&mut self, thread: usize, runnable: bool) {
        let adjust = |count: &mut u32| if runnable { *count += 1 } else { *count -= 1 };
        let mut index = thread + 1;
        while index < self.tree.len() {
            adjust(&mut self.tree[index]);
            index += index & index.wrapping_neg();
        }
        adjust(&mut self.in_group[thread / self.gsize]);
        adjust(&mut self.count);
    }

    pub(super) fn count(&self) -> usize {
        self.count as usize
    }

    pub(super) fn in_group(&self, group: u32) -> u32 {
        self.in_group[group as usize]
    }

    /// The runnable thread with `k` runnable threads of smaller index (`k` below [`Self::count`]).
    pub(super) fn nth(&self, k: usize) -> usize {
        // Descends the tree to the longest run of threads, from the first, with at most `k`
        // runnable ones: the thread after it is the one.
        let (mut below, mut passed) = (0, 0);
        let mut step = (self.tree.len() - 1).checked_next_power_of_two().unwrap_or(0);
        while step > 0 {
            let next = below + step;
            if next < self.tree.len() && passed + self.tree[next] as usize <= k {
                below = next;
                passed += self.tree[next] as usize;
            }
            step /= 2;
        }
        below
    }
}

/// A small, fast generator of pseudo-random numbers whose sequence for a seed never changes, so a
/// schedule is reproduced from its seed on any machine and in any version (Steele, Lea and Flood's
/// SplitMix64).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runnable_threads_are_counted_and_drawn_in_index_order() {
        for (groups, gsize) in [(1, 1), (1, 5), (3, 4), (2, 64), (7, 3)] {
            let mut runnable = Runnable::all(groups, gsize);
            let mut listed = vec![true; groups * gsize];
            let mut random = SplitMix64(groups as u64 * 100 + gsize as u64);
            for _ in 0..500 {
                let thread = (random.next() % listed.len() as u64) as usize;
                listed[thread] = !listed[thread];
                runnable.set(thread, listed[thread]);
                let running: Vec<usize> = (0..listed.len()).filter(|&thread| listed[thread]).collect();
                assert_eq!(runnable.count(), running.len());
                for (k, &thread) in running.iter().enumerate() {
                    assert_eq!(runnable.nth(k), thread, "{groups} groups of {gsize}");
                }
                for group in 0..groups {
                    let in_group = running.iter().filter(|&&thread| thread / gsize == group).count();
                    assert_eq!(runnable.in_group(group as u32) as usize, in_group);
                }
            }
        }
    }
}
