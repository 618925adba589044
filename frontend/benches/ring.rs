//! The ring benchmark (issue 12): a rotation round a ring in local memory with K barriers, for K in
//! 2, 4, 8, 16 and 32. At barrier k each thread gives up `a[(lid + k) % gsize]`, which it has just
//! written, takes `a[(lid + k + 1) % gsize]` and is promised its right neighbour's id there
//! (`examples/ring/ring_rotate.pvl` is K = 4). The offsets grow with K, so the benchmark shows
//! whether `(lid + c) % gsize` costs the same for every `c` (proofs/kernel.md, E9).
//!
//! `cargo bench -p lockstep --bench ring` prints, for each K, the median end-to-end time (check,
//! encode, solve with z3 in-process) of five runs and the number of obligations. It exits 1 when a
//! kernel is not verified (undecided included) or when 32 barriers take more than ten times as
//! long as 4.

#[path = "../tests/support/ring.rs"]
mod family;

use family::ring;
use lockstep_frontend::verify::{self, Verdict};
use std::time::{Duration, Instant};

const RUNS: usize = 5;
const BARRIERS: [usize; 5] = [2, 4, 8, 16, 32];
/// How much slower 32 barriers may be than 4.
const RATIO_TARGET: f64 = 10.0;

/// The median time of verifying `text`, its obligation count, and the verdicts that are not
/// `verified`.
fn measure(name: &str, text: &str) -> (Duration, usize, Vec<Verdict>) {
    let mut times = Vec::new();
    let mut obligations = 0;
    let mut wrong = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let verification = verify::file(name, text.as_bytes().to_vec(), &verify::Settings::default());
        let results = verification.kernels.expect("the ring kernel is well formed").expect("verification runs");
        times.push(start.elapsed());
        obligations = results.iter().map(|kernel| kernel.results.len()).sum();
        wrong = results.iter().map(|kernel| kernel.verdict()).filter(|verdict| *verdict != Verdict::Verified).collect();
    }
    times.sort();
    (times[RUNS / 2], obligations, wrong)
}

fn main() {
    let mut missed = Vec::new();
    let mut medians = Vec::new();
    for barriers in BARRIERS {
        let (time, obligations, wrong) = measure(&format!("ring{barriers}.pvl"), &ring(barriers));
        println!("ring with {barriers:>2} barriers: {:>6} ms, {obligations:>4} obligations", time.as_millis());
        if !wrong.is_empty() {
            missed.push(format!("ring with {barriers} barriers is not verified: {wrong:?}"));
        }
        medians.push((barriers, time));
    }
    let time_of =
        |wanted: usize| medians.iter().find(|(barriers, _)| *barriers == wanted).map(|(_, time)| time.as_secs_f64());
    if let (Some(four), Some(thirty_two)) = (time_of(4), time_of(32)) {
        let ratio = thirty_two / four;
        println!("32 barriers take {ratio:.1} times as long as 4 (target at most {RATIO_TARGET})");
        if ratio > RATIO_TARGET {
            missed.push(format!("32 barriers take {ratio:.1} times as long as 4"));
        }
    }
    if !missed.is_empty() {
        println!("a target is missed:\n{}", missed.join("\n"));
        std::process::exit(1);
    }
}
