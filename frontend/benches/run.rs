//! The concrete executor's benchmark (issue 6): `lockstep run` on the seed examples with 8 threads
//! and exhaustive schedules, end to end (the binary, process start included) and in this process,
//! the median of a few runs; it prints how many schedules were explored and how many interleavings
//! they cover. Target: under 1 s. Also the naive enumeration of every interleaving on the demo with
//! 3 threads, to show what the reduction saves.
//!
//! `cargo bench -p lockstep --bench run` prints the figures and exits 1 when a target is missed.

use lockstep_frontend::check_bytes;
use lockstep_frontend::run::{self, Options};
use lockstep_logic::execute::{self, Outcome, Schedule};
use lockstep_logic::fences::MemoryModel;
use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 11;
const TARGET: Duration = Duration::from_secs(1);

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

/// The median wall time of `lockstep run` on the example, and its summary line.
fn end_to_end(path: &Path, args: &[&str]) -> (Duration, String) {
    let mut line = String::new();
    let times = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_lockstep"))
                .arg("run")
                .arg(path)
                .args(args)
                .output()
                .expect("the lockstep binary runs");
            let elapsed = start.elapsed();
            line = String::from_utf8_lossy(&output.stdout).trim().to_string();
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
    if missed {
        println!("a target was missed");
        std::process::exit(1);
    }
}
