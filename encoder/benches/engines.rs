//! The built-in engine against real Boogie on the IVL corpus (`tests/ivl`): wall-clock time per
//! program, from text to verdicts. Run with `cargo bench -p lockstep-encoder --bench engines`.
//! Boogie needs about half a second per run on Mono start-up alone; the built-in engine should be
//! at least ten times faster.

use lockstep_encoder::ivl;
use lockstep_encoder::run::{self, Backend};
use lockstep_encoder::smt::Limits;
use std::time::{Duration, Instant};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ivl");
    let mut files: Vec<_> =
        std::fs::read_dir(dir).expect("tests/ivl").map(|entry| entry.expect("entry").path()).collect();
    files.retain(|path| path.extension().is_some_and(|extension| extension == "bpl"));
    files.sort();
    let limits = Limits::default();
    let (mut built_in_total, mut boogie_total) = (Duration::ZERO, Duration::ZERO);
    println!("{:<48} {:>12} {:>12} {:>8}", "program", "built-in", "boogie", "ratio");
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let time = |backend: Backend, runs: usize| {
            median(
                (0..runs)
                    .map(|_| {
                        let start = Instant::now();
                        let program = ivl::parse::program(&text).expect("parses");
                        ivl::check::program(&program).expect("well typed");
                        run::program(&program, backend, &limits).expect("the backend runs");
                        start.elapsed()
                    })
                    .collect(),
            )
        };
        let built_in = time(Backend::Z3, 5);
        let boogie = time(Backend::Boogie, 1);
        built_in_total += built_in;
        boogie_total += boogie;
        let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        println!(
            "{name:<48} {:>10.2}ms {:>10.1}ms {:>7.0}x",
            built_in.as_secs_f64() * 1e3,
            boogie.as_secs_f64() * 1e3,
            boogie.as_secs_f64() / built_in.as_secs_f64()
        );
    }
    println!(
        "{:<48} {:>10.2}ms {:>10.1}ms {:>7.0}x",
        format!("total ({} programs)", files.len()),
        built_in_total.as_secs_f64() * 1e3,
        boogie_total.as_secs_f64() * 1e3,
        boogie_total.as_secs_f64() / built_in_total.as_secs_f64()
    );
}
