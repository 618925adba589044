//! Every example in the repository is well formed.
//!
//! The examples are the project's main test corpus (`examples/**/*.pvl`); later stages add their
//! verdicts. Here: `lockstep check` accepts each of them, through the library and the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn example_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            example_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "pvl") {
            found.push(path);
        }
    }
}

fn all_examples() -> Vec<PathBuf> {
    let mut found = Vec::new();
    example_files(&examples_root(), &mut found);
    found
}

#[test]
fn the_seed_examples_are_there() {
    let names: Vec<String> = all_examples().iter().map(|path| path.display().to_string()).collect();
    for seed in ["seed/demo.pvl", "seed/binomial.pvl"] {
        assert!(names.iter().any(|name| name.ends_with(seed)), "missing {seed} in {names:?}");
    }
}

#[test]
fn every_example_is_well_formed() {
    for path in all_examples() {
        let bytes = std::fs::read(&path).expect("example is readable");
        let checked = lockstep_frontend::check_bytes(&path.display().to_string(), bytes);
        let rendered: Vec<String> =
            checked.diagnostics.iter().map(|diagnostic| diagnostic.render(&checked.file)).collect();
        assert!(checked.program.is_some(), "{} is rejected:\n{}", path.display(), rendered.join("\n"));
        assert!(checked.diagnostics.is_empty(), "{} has warnings:\n{}", path.display(), rendered.join("\n"));
    }
}

#[test]
fn lockstep_check_accepts_all_examples_at_once() {
    let output = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("check")
        .args(all_examples())
        .output()
        .expect("the lockstep binary runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert_eq!(stdout.lines().count(), all_examples().len());
    assert!(stdout.lines().all(|line| line.contains(": well formed (")), "{stdout}");
}

/// The obligations an example's markers expect to fail: `//:: fails ID[, ID]` at the end of a line.
fn expected_failures(text: &str) -> std::collections::BTreeSet<(String, u64)> {
    let mut expected = std::collections::BTreeSet::new();
    for (index, line) in text.lines().enumerate() {
        if let Some(ids) = line.split("//:: fails ").nth(1) {
            for id in ids.split(',') {
                expected.insert((id.trim().to_string(), index as u64 + 1));
            }
        }
    }
    expected
}

/// Every example gets the verdict its `//:: verdict` header names (exit status 0 for `verified`, 1
/// for `failed`), and exactly the obligations its `//:: fails` markers name fail, on the marked
/// lines: none is undecided.
#[test]
fn every_example_gets_its_verdict_and_fails_where_marked() {
    let mut mismatches = Vec::new();
    for path in all_examples() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let output = Command::new(env!("CARGO_BIN_EXE_lockstep"))
            .args(["verify", "--format", "json"])
            .arg(&path)
            .output()
            .expect("the lockstep binary runs");
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON output");
        let kernels = report["files"][0]["kernels"].as_array().cloned().unwrap_or_default();
        let failed: std::collections::BTreeSet<(String, u64)> = kernels
            .iter()
            .flat_map(|kernel| kernel["obligations"].as_array().cloned().unwrap_or_default())
            .filter(|obligation| obligation["status"] != "verified")
            .inspect(|obligation| assert_eq!(obligation["status"], "failed", "{}: {obligation}", path.display()))
            .map(|obligation| {
                (obligation["id"].as_str().unwrap_or("").to_string(), obligation["line"].as_u64().unwrap_or(0))
            })
            .collect();
        let expected = expected_failures(&text);
        let verdict = text.lines().find_map(|line| line.strip_prefix("//:: verdict ")).unwrap_or("verified").trim();
        let wanted_status = if verdict == "verified" { 0 } else { 1 };
        if failed != expected || output.status.code() != Some(wanted_status) {
            mismatches.push(format!(
                "{}: expected verdict {verdict} and failures {expected:?}, got exit {:?} and {failed:?}",
                path.display(),
                output.status.code()
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// What `lockstep verify --format json` says of a file: its exit status and every obligation
/// that is not verified, as (id, line, status).
fn verify(path: &Path, extra: &[&str]) -> (Option<i32>, std::collections::BTreeSet<(String, u64, String)>) {
    let output = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(["verify", "--format", "json"])
        .args(extra)
        .arg(path)
        .output()
        .expect("the lockstep binary runs");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON output");
    let kernels = report["files"][0]["kernels"].as_array().cloned().unwrap_or_default();
    let not_verified = kernels
        .iter()
        .flat_map(|kernel| kernel["obligations"].as_array().cloned().unwrap_or_default())
        .filter(|obligation| obligation["status"] != "verified")
        .map(|obligation| {
            (
                obligation["id"].as_str().unwrap_or("").to_string(),
                obligation["line"].as_u64().unwrap_or(0),
                obligation["status"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (output.status.code(), not_verified)
}

/// Stability: ten solver seeds give every example the same verdict and the same failures.
#[test]
fn verdicts_do_not_depend_on_the_solver_seed() {
    let mismatches = for_each_example(|path| {
        let reference = verify(path, &[]);
        (1..=10)
            .filter_map(|seed| {
                let seeded = verify(path, &["--seed", &seed.to_string()]);
                (seeded != reference)
                    .then(|| format!("{} with seed {seed}: {seeded:?}, without: {reference:?}", path.display()))
            })
            .collect()
    });
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Runs `check` on every example, a few at a time (each runs the `lockstep` binary), and gathers
/// what it reports.
fn for_each_example(check: impl Fn(&Path) -> Vec<String> + Sync) -> Vec<String> {
    let examples = all_examples();
    let workers = std::thread::available_parallelism().map_or(2, |count| count.get()).min(4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(path) = examples.get(index) else { break };
                let reports = check(path);
                found.lock().expect("no worker panicked").extend(reports);
            });
        }
    });
    let mut found = found.into_inner().expect("no worker panicked");
    found.sort();
    found
}

/// Real Boogie, run on the same encoding, agrees with the built-in engine on every example: the
/// same exit status and the same failing obligations.
#[test]
fn real_boogie_agrees_with_the_built_in_engine() {
    if Command::new(std::env::var("LOCKSTEP_BOOGIE").unwrap_or_else(|_| "boogie".into()))
        .arg("/version")
        .output()
        .is_err()
    {
        assert!(std::env::var_os("CI").is_none(), "CI must have Boogie (`.ci/run` installs it)");
        eprintln!("skipped: no `boogie` on this machine (`apt-get install boogie`)");
        return;
    }
    let mismatches = for_each_example(|path| {
        let built_in = verify(path, &[]);
        let boogie = verify(path, &["--backend", "boogie"]);
        if boogie == built_in {
            Vec::new()
        } else {
            vec![format!("{}: Boogie {boogie:?}, built-in {built_in:?}", path.display())]
        }
    });
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
