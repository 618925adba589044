//! Hunting for soundness holes: kernels that `verify` calls verified while a concrete `run` finds
//! a bug in them. A verified kernel is free of races, divergence, out-of-bounds accesses and broken
//! contracts for every launch, so a run that meets one of those in a verified kernel is a
//! counterexample to lockstep itself: either a hole in the logic or the encoding, or a bug of the
//! run. Cases come from two sources: random small kernels ([`generate`]) and the examples with
//! one token changed ([`mutate`]). Each is [`judge`]d: verified under a deterministic resource
//! limit, then run over a sweep of launches, memories, parameters and schedules. A disagreement is
//! [`shrink`]ed to a minimal kernel that still disagrees.
//!
//! The tests run a fixed slice (`tests/hunt.rs`); `cargo run --release --bin lockstep-hunt` runs
//! as long as asked and saves every disagreement it finds. The hunt never decides a verdict of its
//! own: it only compares the two the product gives.

pub mod generate;
pub mod mutate;

use crate::run::{self, Init, Options};
use crate::verify::{self, Verdict};
use lockstep_encoder::smt::Limits;
use lockstep_logic::execute::{self, Schedule};
use lockstep_logic::fences::MemoryModel;
use num_bigint::BigInt;
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

/// The hunt's random choices, drawn from the run's [`execute::SplitMix64`]: the same seed gives
/// the same kernels on every machine and with every version of the dependencies, which a saved
/// seed needs.
pub struct Rng(execute::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(execute::SplitMix64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next()
    }

    /// A number in `0..bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[self.below(choices.len())]
    }
}

/// What the hunt found out about one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The text is not a well-formed kernel (a mutant that no longer parses or type-checks).
    Refused,
    /// `verify` and `run` are consistent: the verdict, and whether some run found a bug.
    Agree { verdict: Outcome, run_found_bug: bool },
    /// `verify` says verified and a run finds a bug, or a command panicked: what happened.
    Disagree(String),
}

/// `verify`'s verdict on a whole file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Verified,
    Failed,
    Undecided,
}

/// How a judgement verifies and runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The solver's limits: a resource limit, so that the same case gets the same verdict on a
    /// loaded machine.
    pub limits: Limits,
    /// The launches, as (groups, gsize).
    pub launches: Vec<(u32, u32)>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            limits: Limits { timeout: Duration::from_secs(60), resource_limit: 3_000_000, seed: 0, cancel: None },
            launches: [1, 2, 3].into_iter().flat_map(|groups| [1, 2, 3, 4].map(|gsize| (groups, gsize))).collect(),
        }
    }
}

/// Verifies the text, and runs it on every launch of the settings with zero, random and ascending
/// memory, with the parameters drawn at random and set to 0, in the canonical schedule and a
/// random one. A panic anywhere is a disagreement too: no input may crash lockstep.
pub fn judge(text: &str, settings: &Settings) -> Judgement {
    match panic::catch_unwind(AssertUnwindSafe(|| judge_unguarded(text, settings))) {
        Ok(judgement) => judgement,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|text| text.to_string()))
                .unwrap_or_default();
            Judgement::Disagree(format!("lockstep panicked: {message}"))
        }
    }
}

fn judge_unguarded(text: &str, settings: &Settings) -> Judgement {
    let verification_settings = verify::Settings { limits: settings.limits.clone(), ..Default::default() };
    let verification = verify::file("hunt.pvl", text.as_bytes().to_vec(), &verification_settings);
    let Some(verdicts) = verification.kernels else { return Judgement::Refused };
    let Some(program) = verification.checked.program else { return Judgement::Refused };
    let verdict = match verdicts {
        Err(_) => Outcome::Undecided,
        Ok(kernels) => {
            let verdicts: Vec<Verdict> = kernels.iter().map(verify::KernelResult::verdict).collect();
            if verdicts.contains(&Verdict::Failed) {
                Outcome::Failed
            } else if verdicts.iter().all(|verdict| *verdict == Verdict::Verified) {
                Outcome::Verified
            } else {
                Outcome::Undecided
            }
        }
    };
    let mut run_found_bug = false;
    for kernel in &program.kernels {
        'launches: for options in launches(kernel, settings) {
            let Ok(launch) = run::launch(&program, kernel, &options) else { continue };
            for schedule in [Schedule::Canonical, Schedule::Random { seed: 1 }] {
                let outcome = match execute::run(&program, kernel, &launch, &schedule, MemoryModel::Seed) {
                    Ok(outcome) => outcome,
                    // A run that gives up (most often a loop that never ends) would give up on
                    // every launch, each after millions of steps: the kernel's runs say nothing.
                    Err(execute::RunError::GaveUp { .. }) => break 'launches,
                    Err(_) => continue,
                };
                let Some((bug, steps)) = outcome.bug else { continue };
                run_found_bug = true;
                if verdict == Outcome::Verified {
                    let finding = run::finding(kernel, &bug, &steps, "hunt");
                    let memory = match (&options.init[..], options.random_memory) {
                        ([], None) => "zero memory".to_string(),
                        ([], Some(seed)) => format!("random memory {seed}"),
                        _ => "ascending memory".to_string(),
                    };
                    return Judgement::Disagree(format!(
                        "verify says verified, and run ({} x {}, {memory}, params {:?}, {schedule:?}) finds {}: {}",
                        options.groups, options.gsize, options.params, finding.code, finding.message
                    ));
                }
            }
        }
    }
    Judgement::Agree { verdict, run_found_bug }
}

/// The launch options of a judgement: each launch with zero memory, random memory and every global
/// array ascending (`a[i] = i`), the parameters random (the run's choice) or all 0.
fn launches(kernel: &lockstep_logic::Kernel, settings: &Settings) -> Vec<Options> {
    let ascending: Vec<(String, Init)> = kernel
        .arrays
        .iter()
        .filter(|array| array.memory == lockstep_logic::Memory::Global)
        .map(|array| (array.name.clone(), Init::Iota))
        .collect();
    let zero_params: Vec<(String, BigInt)> = kernel
        .params
        .iter()
        .filter(|&&param| kernel.vars[param.index()].ty == lockstep_logic::Type::Int)
        .map(|&param| (kernel.vars[param.index()].name.clone(), BigInt::from(0)))
        .collect();
    let mut all = Vec::new();
    for &(groups, gsize) in &settings.launches {
        for params in [Vec::new(), zero_params.clone()] {
            for (init, random_memory) in [(Vec::new(), None), (Vec::new(), Some(1)), (ascending.clone(), None)] {
                all.push(Options {
                    groups: groups.into(),
                    gsize: gsize.into(),
                    params: params.clone(),
                    init,
                    random_memory,
                });
            }
        }
    }
    all
}

/// The smallest text, by deleting whole lines and then single tokens, on which `keeps` still
/// holds (`keeps(text)` must hold). Each pass tries every deletion once, and passes repeat until
/// none succeeds, so the result is minimal for single deletions.
pub fn shrink(text: &str, keeps: impl Fn(&str) -> bool) -> String {
    let mut best = text.to_string();
    loop {
        let before = best.clone();
        best = shrink_pieces(&best, &keeps, lines);
        best = shrink_pieces(&best, &keeps, tokens);
        if best == before {
            return best;
        }
    }
}

/// One pass: try deleting each piece (a byte range) from the last to the first.
fn shrink_pieces(text: &str, keeps: &impl Fn(&str) -> bool, pieces: fn(&str) -> Vec<(usize, usize)>) -> String {
    let mut best = text.to_string();
    let mut index = pieces(&best).len();
    while index > 0 {
        index -= 1;
        let current = pieces(&best);
        let Some(&(start, end)) = current.get(index) else { continue };
        let candidate = format!("{}{}", &best[..start], &best[end..]);
        if keeps(&candidate) {
            best = candidate;
        }
    }
    best
}

/// The byte ranges of the lines, each with its line break.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        ranges.push((start, start + line.len()));
        start += line.len();
    }
    ranges
}

/// The byte ranges of the tokens.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    crate::pvl::lexer::lex(text).0.into_iter().map(|(start, _, end)| (start, end)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_source_is_the_same_everywhere() {
        let mut rng = Rng::new(7);
        let drawn: Vec<u64> = (0..3).map(|_| rng.next_u64() % 1000).collect();
        let mut again = Rng::new(7);
        assert_eq!(drawn, (0..3).map(|_| again.next_u64() % 1000).collect::<Vec<_>>());
        assert_ne!(Rng::new(8).next_u64(), Rng::new(7).next_u64());
    }

    #[test]
    fn shrinking_keeps_only_what_the_property_needs() {
        let text = "kernel k {\n  global int[tcount] a;\n  requires Perm(a[tid], write);\n  void main() { a[tid] := 1 + 2; }\n}\n";
        let shrunk = shrink(text, |candidate| candidate.contains("Perm") && candidate.contains("+"));
        assert_eq!(shrunk.split_whitespace().collect::<Vec<_>>(), ["Perm", "+"], "{shrunk:?}");
    }
}
