//! The language server's answer time (issue 17): how long after the change of
//! `barrier(global)` into `barrier(local)` in `examples/seed/demo.pvl` an editor shows the
//! `barrier.functional` diagnostic. That time includes the pause the server waits for typing to
//! stop (300 ms) before it verifies.
//!
//! `cargo bench -p lockstep --bench lsp` breaks and repairs the demo ten times in one server and
//! prints the median and the slowest time from change to diagnostic. It exits 1 when the
//! diagnostic does not come, or the median exceeds 2 s.

#[path = "../tests/support/lsp_client.rs"]
mod client;

use client::Client;
use std::time::{Duration, Instant};

const ROUNDS: i64 = 10;
const TARGET: Duration = Duration::from_secs(2);
const URI: &str = "file:///bench/demo.pvl";

fn main() {
    let demo =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/seed/demo.pvl")).expect("the demo");
    let broken = demo.replace("barrier(global)", "barrier(local)");
    let mut client = Client::start();
    client.open(URI, &demo);
    client.verified_diagnostics(1);
    let mut times = Vec::new();
    for round in 0..ROUNDS {
        let version = 2 + 2 * round;
        let changed = Instant::now();
        client.change(URI, version, &broken);
        client.wait_for(|message| {
            message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["version"] == version
                && message["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|diagnostics| diagnostics.iter().any(|d| d["code"] == "barrier.functional"))
        });
        times.push(changed.elapsed());
        client.change(URI, version + 1, &demo);
        let (verdicts, _) = client.verified_diagnostics(version + 1);
        assert_eq!(verdicts["kernels"][0]["verdict"], "verified");
    }
    client.shut_down();
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "lsp: barrier(global) -> barrier(local) in the demo: barrier.functional shown {} ms after the change (median of {ROUNDS}; slowest {} ms; target {} ms)",
        median.as_millis(),
        times.last().expect("rounds").as_millis(),
        TARGET.as_millis()
    );
    if median > TARGET {
        std::process::exit(1);
    }
}
