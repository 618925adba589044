//! GPUVerify's OpenCL suite (`../shared/suites/gpuverify-opencl/`, read where it lies, never
//! copied) as lockstep judges it: each kernel's expected outcome (its first line), its launch (its
//! second line, in GPUVerify's flags), lockstep's verdict with the kernel's permissions inferred,
//! and the agreement of the two. Shared by the `suites` test (which holds the agreement) and the
//! `gpuverify` bench (which prints it with the time per kernel).
//!
//! GPUVerify reads OpenCL's integers as bit-vectors, so every kernel is verified with
//! `--wrapping-integers`: signed overflow wraps, as it does on every GPU, instead of failing as
//! C's undefined behaviour. GPUVerify's `--invariants-as-candidates` is lockstep's; its
//! `--no-annotations` and `--only-requires` (the loop invariants ignored) are read as it too, which
//! keeps a written invariant that holds. Benign races are accepted (`--benign-races`) unless a
//! kernel asks `--no-benign-tolerance`, as GPUVerify does; `--only-intra-group`,
//! `--only-divergence`, `--only-log` and `--kernel-args` are lockstep's too. GPUVerify's flags that lockstep has no
//! counterpart for (`--no-inline`, `--warp-sync`, ...) are dropped and counted.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the suite expects of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Expected {
    /// `//pass`: GPUVerify proves it free of races and divergence, and its assertions hold.
    Pass,
    /// `//xfail:NOT_ALL_VERIFIED`: racy, divergent, or an assertion fails.
    NotAllVerified,
    /// `//xfail:` an error of GPUVerify's own tool chain (Clang, Bugle, the command line).
    ToolError,
}

/// One kernel of the suite.
pub struct Kernel {
    /// The path inside the suite, `barrier_interval_tests/test1/kernel.cl` say.
    pub name: String,
    pub path: PathBuf,
    pub expected: Expected,
    /// The launch, as lockstep's options (`--local_size=64`, `--num_groups=2`), and
    /// `--invariants-as-candidates`.
    pub launch: Vec<String>,
    /// GPUVerify's other flags, which lockstep does not read.
    pub dropped: Vec<String>,
}

/// The suite's folder, next to the repository.
pub fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/suites/gpuverify-opencl")
}

/// Every kernel of the suite, in the order of their names.
pub fn kernels(folder: &Path) -> Vec<Kernel> {
    let mut paths = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|name| name == "kernel.cl") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = String::from_utf8_lossy(&std::fs::read(&path).expect("a readable kernel")).into_owned();
            let mut lines = text.lines();
            let expected = expected(lines.next().unwrap_or(""));
            let (launch, dropped) = launch(lines.next().unwrap_or(""));
            let name = path.strip_prefix(folder).unwrap_or(&path).to_string_lossy().into_owned();
            Kernel { name, path, expected, launch, dropped }
        })
        .collect()
}

fn expected(first_line: &str) -> Expected {
    let mark = first_line.trim().trim_start_matches("//").trim().to_ascii_lowercase();
    if mark == "pass" {
        Expected::Pass
    } else if mark == "xfail:not_all_verified" {
        Expected::NotAllVerified
    } else {
        Expected::ToolError
    }
}

/// GPUVerify's flags on a kernel's second line, split into the launch lockstep reads and the rest.
/// GPUVerify accepts benign races unless told `--no-benign-tolerance`; lockstep when told
/// `--benign-races`.
fn launch(second_line: &str) -> (Vec<String>, Vec<String>) {
    let mut launch = Vec::new();
    let mut dropped = Vec::new();
    if !second_line.contains("--no-benign-tolerance") {
        launch.push("--benign-races".to_string());
    }
    for flag in second_line.split_whitespace() {
        let flag = flag.trim_start_matches("//");
        if flag.is_empty() {
            continue;
        }
        let name = flag.split('=').next().unwrap_or(flag);
        match name {
            // `*` leaves the extent free, as lockstep does when it is not given.
            "--local_size" | "--num_groups" | "--global_size" if flag.ends_with("=*") => {}
            "--local_size" | "--num_groups" | "--global_size" => launch.push(flag.to_string()),
            // GPUVerify then reads the written loop invariants as candidates, or not at all; lockstep
            // keeps each that holds, which for these kernels is the same.
            "--invariants-as-candidates" | "--no-annotations" | "--only-requires" => {
                launch.push("--invariants-as-candidates".to_string())
            }
            "--no-benign-tolerance" => {}
            // Which obligations are checked: lockstep's flags of the same names.
            "--only-intra-group" | "--only-divergence" | "--only-log" | "--kernel-args" => {
                launch.push(flag.to_string())
            }
            _ => dropped.push(name.to_string()),
        }
    }
    (launch, dropped)
}

/// lockstep's answer on one kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified,
    /// The failed obligations' ids, each once, in the order of the report.
    Failed(Vec<String>),
    Undecided,
    /// Refused as input (exit 2): the frontend does not read the kernel, or its launch.
    Refused,
}

/// A verdict with the time the whole `lockstep verify` process took.
pub struct Outcome {
    pub verdict: Verdict,
    pub seconds: f64,
}

/// How long one kernel's `lockstep verify` may take before it is stopped and counted undecided:
/// a few kernels' inferred contracts cost minutes (`misc/pass/misc6`, `shuffle/shuffle2`), and
/// every kernel that verifies takes a few seconds at most, so the stop never takes a verdict
/// away from a kernel in time.
pub const KERNEL_SECONDS: u64 = 60;

/// Runs `lockstep verify` on one kernel with its launch, `--wrapping-integers`, and `solver`
/// (`--timeout`, `--resource-limit`); undecided if it runs past [`KERNEL_SECONDS`].
pub fn judge(binary: &Path, kernel: &Kernel, solver: &[String]) -> Outcome {
    let start = Instant::now();
    let mut child = Command::new(binary)
        .arg("verify")
        .args(["--format", "json", "--wrapping-integers"])
        .args(&kernel.launch)
        .args(solver)
        .arg(&kernel.path)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the lockstep binary runs");
    // The report is read while the process runs, so that a full pipe never stops it.
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).map(|_| bytes)
    });
    let mut stderr = child.stderr.take().expect("piped");
    let error_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stderr.read_to_end(&mut bytes).map(|_| bytes)
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("the process can be waited for") {
            break Some(status);
        }
        if start.elapsed() > Duration::from_secs(KERNEL_SECONDS) {
            child.kill().expect("the process can be stopped");
            child.wait().expect("the process can be waited for");
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().expect("the reader ends").expect("the report is readable");
    let stderr = error_reader.join().expect("the reader ends").expect("the errors are readable");
    let seconds = start.elapsed().as_secs_f64();
    let verdict = match status.map(|status| status.code()) {
        None => Verdict::Undecided,
        Some(Some(0)) => Verdict::Verified,
        Some(Some(1)) => Verdict::Failed(failed_ids(&stdout)),
        Some(Some(2)) => Verdict::Refused,
        Some(Some(3)) => Verdict::Undecided,
        Some(other) => panic!("{}: lockstep exited with {other:?}\n{}", kernel.name, String::from_utf8_lossy(&stderr)),
    };
    Outcome { verdict, seconds }
}

fn failed_ids(json: &[u8]) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_slice(json).expect("one JSON document");
    let mut ids: Vec<String> = Vec::new();
    for file in report["files"].as_array().into_iter().flatten() {
        for kernel in file["kernels"].as_array().into_iter().flatten() {
            for obligation in kernel["obligations"].as_array().into_iter().flatten() {
                let id = obligation["id"].as_str().unwrap_or("").to_string();
                if obligation["status"] == "failed" && !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
    }
    ids
}

/// Judges every kernel the suite expects something of (a tool-chain error of GPUVerify's own is
/// no expectation of lockstep), on `workers` threads; outcomes in the order of `kernels`.
pub fn judge_all(binary: &Path, kernels: &[Kernel], solver: &[String], workers: usize) -> Vec<Option<Outcome>> {
    let next = Mutex::new(0usize);
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new(kernels.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().expect("no worker panicked");
                    let index = *next;
                    *next += 1;
                    index
                };
                let Some(kernel) = kernels.get(index) else { break };
                if kernel.expected != Expected::ToolError {
                    let outcome = judge(binary, kernel, solver);
                    outcomes.lock().expect("no worker panicked")[index] = Some(outcome);
                }
            });
        }
    });
    outcomes.into_inner().expect("no worker panicked")
}

/// The counts of one expectation's verdicts.
#[derive(Default)]
pub struct Tally {
    pub verified: usize,
    pub failed: usize,
    pub undecided: usize,
    pub refused: usize,
}

impl Tally {
    pub fn accepted(&self) -> usize {
        self.verified + self.failed + self.undecided
    }
}

pub fn tally(kernels: &[Kernel], outcomes: &[Option<Outcome>], expected: Expected) -> Tally {
    let mut tally = Tally::default();
    for (kernel, outcome) in kernels.iter().zip(outcomes) {
        let Some(outcome) = outcome.as_ref().filter(|_| kernel.expected == expected) else { continue };
        match outcome.verdict {
            Verdict::Verified => tally.verified += 1,
            Verdict::Failed(_) => tally.failed += 1,
            Verdict::Undecided => tally.undecided += 1,
            Verdict::Refused => tally.refused += 1,
        }
    }
    tally
}

/// The agreement table, the first failed obligation of the `//pass` kernels lockstep does not
/// verify by count, and every `//xfail` kernel it verifies.
pub fn report(kernels: &[Kernel], outcomes: &[Option<Outcome>]) -> String {
    let mut text = String::from("expected                 accepted  verified  failed  undecided  refused\n");
    for (expected, label) in [(Expected::Pass, "pass"), (Expected::NotAllVerified, "xfail:NOT_ALL_VERIFIED")] {
        let tally = tally(kernels, outcomes, expected);
        text += &format!(
            "{label:<24} {:>8}  {:>8}  {:>6}  {:>9}  {:>7}\n",
            tally.accepted(),
            tally.verified,
            tally.failed,
            tally.undecided,
            tally.refused
        );
    }
    let pass = tally(kernels, outcomes, Expected::Pass);
    text += &format!(
        "pass kernels verified: {} of {} accepted ({:.1} %)\n",
        pass.verified,
        pass.accepted(),
        100.0 * pass.verified as f64 / pass.accepted().max(1) as f64
    );
    let mut causes: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for (kernel, outcome) in kernels.iter().zip(outcomes) {
        if let (Expected::Pass, Some(Outcome { verdict: Verdict::Failed(ids), .. })) = (kernel.expected, outcome) {
            *causes.entry(ids.first().cloned().unwrap_or_default()).or_default() += 1;
        }
    }
    let mut causes: Vec<(String, usize)> = causes.into_iter().collect();
    causes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    text += "pass kernels failed, by first failed obligation:\n";
    for (id, count) in causes {
        text += &format!("{count:5}  {id}\n");
    }
    text += "pass kernels not verified:\n";
    for (kernel, outcome) in kernels.iter().zip(outcomes) {
        let Some(outcome) = outcome.as_ref().filter(|_| kernel.expected == Expected::Pass) else { continue };
        match &outcome.verdict {
            Verdict::Failed(ids) => text += &format!("       {}: failed {}\n", kernel.name, ids.join(", ")),
            Verdict::Undecided => text += &format!("       {}: undecided\n", kernel.name),
            Verdict::Verified | Verdict::Refused => {}
        }
    }
    let mut dropped: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for kernel in kernels.iter().filter(|kernel| kernel.expected != Expected::ToolError) {
        for flag in &kernel.dropped {
            *dropped.entry(flag).or_default() += 1;
        }
    }
    text += "GPUVerify flags lockstep does not read, by kernels:";
    for (flag, count) in dropped {
        text += &format!(" {flag} {count},");
    }
    text.pop();
    text += "\n";
    text += "xfail kernels verified:\n";
    for name in verified(kernels, outcomes, Expected::NotAllVerified) {
        text += &format!("       {name}\n");
    }
    let slowest_verified = kernels
        .iter()
        .zip(outcomes)
        .filter_map(|(kernel, outcome)| outcome.as_ref().map(|outcome| (kernel, outcome)))
        .filter(|(_, outcome)| outcome.verdict == Verdict::Verified)
        .max_by(|a, b| a.1.seconds.total_cmp(&b.1.seconds));
    if let Some((kernel, outcome)) = slowest_verified {
        text += &format!("slowest kernel verified: {:.1} s ({})\n", outcome.seconds, kernel.name);
    }
    let times = Times::of(outcomes);
    text += &format!(
        "time per accepted kernel ({} kernels, whole process): median {:.3} s, 90th percentile {:.3} s, maximum {:.1} s, total {:.1} s\n",
        times.count, times.median, times.p90, times.max, times.total
    );
    text
}

/// The whole-process times of the kernels lockstep accepts, in seconds.
pub struct Times {
    pub count: usize,
    pub median: f64,
    pub p90: f64,
    pub max: f64,
    pub total: f64,
}

impl Times {
    pub fn of(outcomes: &[Option<Outcome>]) -> Times {
        let mut seconds: Vec<f64> = outcomes
            .iter()
            .flatten()
            .filter(|outcome| outcome.verdict != Verdict::Refused)
            .map(|outcome| outcome.seconds)
            .collect();
        seconds.sort_by(f64::total_cmp);
        let at = |fraction: f64| {
            let last = seconds.len().saturating_sub(1);
            seconds.get((last as f64 * fraction).round() as usize).copied().unwrap_or(0.0)
        };
        Times { count: seconds.len(), median: at(0.5), p90: at(0.9), max: at(1.0), total: seconds.iter().sum() }
    }
}

/// The names of the kernels with an expectation that lockstep verifies.
pub fn verified<'k>(kernels: &'k [Kernel], outcomes: &[Option<Outcome>], expected: Expected) -> Vec<&'k str> {
    kernels
        .iter()
        .zip(outcomes)
        .filter(|(kernel, outcome)| {
            kernel.expected == expected && outcome.as_ref().is_some_and(|outcome| outcome.verdict == Verdict::Verified)
        })
        .map(|(kernel, _)| kernel.name.as_str())
        .collect()
}
