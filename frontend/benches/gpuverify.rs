//! GPUVerify's OpenCL suite as a benchmark (issue 16): every kernel the suite expects something
//! of, verified with no annotation for lockstep (its permissions inferred), one `lockstep verify`
//! process after another, as a user or a CI job runs them. Prints the agreement with the suite's
//! expected outcomes and the whole-process time per kernel: median, 90th percentile, maximum and
//! total. Target: a median under 100 ms (GPUVerify takes seconds per kernel).
//!
//! `cargo bench -p lockstep --bench gpuverify` prints the figures and exits 1 when the median
//! misses its target. Each solver check may take 2 s (`--timeout 2`); past it, the check is
//! undecided.

#[path = "../tests/support/gpuverify_suite.rs"]
mod gpuverify_suite;

use std::path::Path;

const MEDIAN_TARGET_SECONDS: f64 = 0.100;

fn main() {
    let folder = gpuverify_suite::folder();
    if !folder.is_dir() {
        eprintln!("the suite is read from {} (next to the repository)", folder.display());
        std::process::exit(2);
    }
    let kernels = gpuverify_suite::kernels(&folder);
    let solver = ["--timeout".to_string(), "2".to_string()];
    let outcomes = gpuverify_suite::judge_all(Path::new(env!("CARGO_BIN_EXE_lockstep")), &kernels, &solver, 1);
    print!("{}", gpuverify_suite::report(&kernels, &outcomes));
    let median = gpuverify_suite::Times::of(&outcomes).median;
    if median >= MEDIAN_TARGET_SECONDS {
        println!("missed: the median is not under {:.0} ms", MEDIAN_TARGET_SECONDS * 1000.0);
        std::process::exit(1);
    }
}
