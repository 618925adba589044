//! The concrete executor's benchmark (issue 6): `lockstep run` on the seed examples with 8 threads
//! and exhaustive schedules, end to end (the binary, process start included) and in this process,
//! the median of a few runs; it prints how many schedules were explored and how many interleavings
//! they cover. Target: under 1 s. Also the naive enumeration of every interleaving on the demo with
//! 3 threads, to show what the reduction saves.
//!
//! And how a run scales with the threads (issue 20): the tree reduction `reduction/sum_ones.pvl`
//! on 4 groups of 256, 1024 and 4096 threads, end to end, the launches taking turns so that a
//! change in the machine's load falls on all of them alike. Targets: 4 groups of 1024 threads in
//! at most 0.5 s, and 4 times the threads in at most 5 times the time. Each thread of the kernel
//! loops once per halving of its group, so the steps grow a little faster than the threads
//! (about 4.7 times from 1024 to 4096 threads per group).
//!
//! `cargo bench -p lockstep --bench run` prints the figures and exits 1 when a target is missed.

use lockstep_frontend::check_bytes;
use lockstep_frontend::run::{self, Options};
use lockstep_logic::execute::{self, Outcome, Schedule};
use lockstep_logic::fences::MemoryModel;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RUNS: usize = 11;
const TARGET: Duration = Duration::from_secs(1);
/// Rounds of the scaling launches, the largest taking about 0.6 s.
const SCALING_RUNS: usize = 9;
const SCALING_TARGET: Duration = Duration::from_millis(500);
/// The most 4 times the threads may cost, in times the time.
const SCALING_RATIO: f64 = 5.0;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median time of running the example in this process, and the outcome.
fn in_process(path: &Path, gsize: u32, schedule: &Schedule) -> (Duration, Outcome) {
    let bytes = std::fs::read(path).expect("readable");
    let mut outcome = None;
    let times = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let program = check_bytes("bench.pvl", bytes.clone()).program.expect("well formed");
            let kernel = &program.kernels[0];
            let options = Options { groups: 1.into(), gsize: gsize.into(), ..Options::default() };
            let launch = run::launch(&program, kernel, &options).expect("a launch");
            outcome = Some(execute::run(&program, kernel, &launch, schedule, MemoryModel::Seed).expect("the run ends"));
            start.elapsed()
        })
        .collect();
    (median(times), outcome.expect("ran"))
}

/// The wall time of one `lockstep run` of the example, and its summary line.
fn run_once(path: &Path, args: &[&str]) -> (Duration, String) {
    let start = Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("run")
        .arg(path)
        .args(args)
        .output()
        .expect("the lockstep binary runs");
    (start.elapsed(), String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The median wall time of `lockstep run` on the example, and its summary line.
fn end_to_end(path: &Path, args: &[&str]) -> (Duration, String) {
    let mut line = String::new();
    let times = (0..RUNS)
        .map(|_| {
            let (elapsed, summary) = run_once(path, args);
            line = summary;
            elapsed
        })
        .collect();
    (median(times), line)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed");
    let mut missed = false;
    for name in ["demo.pvl", "binomial.pvl"] {
        let path = root.join(name);
        let (wall, line) = end_to_end(&path, &["--gsize", "8", "--schedule", "exhaustive"]);
        let (inside, outcome) = in_process(&path, 8, &Schedule::Canonical);
        println!("{line}");
        println!(
            "  seed/{name}, 8 threads, exhaustive: {:.1} ms end to end, {:.2} ms in process; {} schedule explored, {} interleavings covered (target < {} ms)",
            wall.as_secs_f64() * 1e3,
            inside.as_secs_f64() * 1e3,
            outcome.schedules,
            outcome.interleavings.approximate(),
            TARGET.as_millis()
        );
        missed |= wall >= TARGET || outcome.bug.is_some();
    }
    // The seed's binomial at 64 threads: its contracts call the naive `binom` recursion, which the
    // run's memo of pure calls keeps polynomial.
    let (wide, outcome) = in_process(&root.join("binomial.pvl"), 64, &Schedule::Canonical);
    println!(
        "  seed/binomial.pvl, 64 threads, canonical: {:.1} ms in process (target < {} ms)",
        wide.as_secs_f64() * 1e3,
        TARGET.as_millis()
    );
    missed |= wide >= TARGET || outcome.bug.is_some();
    let demo = root.join("demo.pvl");
    let (naive, outcome) = in_process(&demo, 3, &Schedule::Exhaustive { limit: u64::MAX });
    println!(
        "  seed/demo.pvl, 3 threads, every interleaving one by one: {} schedules in {:.1} ms",
        outcome.schedules,
        naive.as_secs_f64() * 1e3
    );
    missed |= scaling();
    if missed {
        println!("a target was missed");
        std::process::exit(1);
    }
}

/// `sum_ones` with 2048 and 4096 among the group sizes its precondition and invariant allow: the
/// example's proof stops at 1024 threads per group, and a run refuses a launch its precondition
/// rules out. Up to 1024 threads per group it runs as the example does, the longer disjunctions
/// stopping at the same disjunct.
fn sum_ones_up_to_4096(example: &Path) -> PathBuf {
    let text = std::fs::read_to_string(example).expect("readable");
    let widened = text
        .replace("gsize == 1024;", "gsize == 1024 || gsize == 2048 || gsize == 4096;")
        .replace("n == 1024;", "n == 1024 || n == 2048 || n == 4096;");
    assert_eq!(widened.matches("== 4096").count(), 2, "the precondition and the invariant of sum_ones are widened");
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sum_ones_up_to_4096.pvl");
    std::fs::write(&path, widened).expect("the target's directory is writable");
    path
}

/// `sum_ones` on 4 groups of 256, 1024 and 4096 threads; whether a target was missed.
fn scaling() -> bool {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/reduction/sum_ones.pvl");
    let widened = sum_ones_up_to_4096(&example);
    let launches = [(256, &example), (1024, &example), (4096, &widened)];
    let mut times = vec![Vec::new(); launches.len()];
    let mut missed = false;
    for _ in 0..SCALING_RUNS {
        for ((gsize, path), times) in launches.iter().zip(&mut times) {
            let (elapsed, line) = run_once(path, &["--groups", "4", "--gsize", &gsize.to_string()]);
            missed |= !line.contains("no bug found");
            times.push(elapsed);
        }
    }
    let medians: Vec<Duration> = times.into_iter().map(median).collect();
    for ((gsize, path), wall) in launches.iter().zip(&medians) {
        let how = if *path == &widened { ", its precondition widened" } else { "" };
        let target =
            if *gsize == 1024 { format!(" (target at most {} ms)", SCALING_TARGET.as_millis()) } else { String::new() };
        println!(
            "  reduction/sum_ones.pvl{how}, 4 groups of {gsize} threads: {:.1} ms end to end{target}",
            wall.as_secs_f64() * 1e3
        );
    }
    let ratio = |more: usize, fewer: usize| medians[more].as_secs_f64() / medians[fewer].as_secs_f64();
    let ratios = [ratio(1, 0), ratio(2, 1)];
    println!(
        "  4 times the threads per group: from 256 to 1024 {:.2} times the time, from 1024 to 4096 {:.2} times (target at most {SCALING_RATIO})",
        ratios[0], ratios[1]
    );
    missed || medians[1] > SCALING_TARGET || ratios.iter().any(|&ratio| ratio > SCALING_RATIO)
}
