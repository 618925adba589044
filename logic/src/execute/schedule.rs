//! The orders in which a [`Machine`]'s threads take their steps: the canonical schedule (which
//! decides a launch, `proofs/run.md`), random schedules, and every interleaving one by one.

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
            let running: Vec<usize> =
                (0..self.threads.len()).filter(|&thread| self.threads[thread].state == State::Running).collect();
            if running.is_empty() {
                for group in 0..self.launch.groups {
                    self.synchronise(group)?;
                }
                if self.threads.iter().all(|thread| thread.state == State::Finished) {
                    return self.finish();
                }
                continue;
            }
            let thread = running[(random.next() % running.len() as u64) as usize];
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
