//! Issue 16's last line: every verified example, its annotations stripped ([`strip`]), verifies
//! with the permissions `verify` infers, and `lockstep infer` prints contracts that verify as
//! written when pasted back. Slow (three runs of each example), so `#[ignore]`d in debug and run
//! in release by `.ci/test`.

#[path = "support/strip.rs"]
mod strip;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How many stripped examples verify both ways, at least: this number may only grow.
const STRIPPED_VERIFIED: usize = 99;

fn lockstep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep")).args(args).env("NO_COLOR", "1").output().expect("lockstep runs")
}

/// The verdicts of a file's kernels, joined, or `rejected`.
fn verdict(path: &Path, extra: &[&str]) -> String {
    // A deterministic limit on each check, as the suite test has: the count does not depend on
    // the machine's speed (the timeout only stops a runaway).
    let mut args = vec!["verify", "--format", "json", "--resource-limit", "2000000", "--timeout", "600"];
    args.extend(extra);
    let path = path.to_str().unwrap();
    args.push(path);
    let output = lockstep(&args);
    let json = String::from_utf8_lossy(&output.stdout).into_owned();
    let verdicts: Vec<&str> = json
        .match_indices("\"verdict\": \"")
        .map(|(at, found)| {
            let rest = &json[at + found.len()..];
            &rest[..rest.find('"').unwrap_or(0)]
        })
        .collect();
    if verdicts.is_empty() {
        "rejected".to_string()
    } else {
        verdicts.join(",")
    }
}

fn examples(folder: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            examples(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "pvl" || ext == "cl" || ext == "cu") {
            let text = std::fs::read_to_string(&path).unwrap();
            let verdict = text.lines().find_map(|line| line.strip_prefix("//:: verdict ")).unwrap_or("verified");
            if verdict.trim() == "verified" {
                out.push(path);
            }
        }
    }
}

#[test]
#[ignore = "slow: run in release by .ci/test"]
fn stripped_examples_verify_with_inferred_contracts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files = Vec::new();
    examples(&root, &mut files);
    files.sort();
    let dir = std::env::temp_dir().join(format!("lockstep-stripped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some(path) = files.get(index) else { break };
                let name = path.strip_prefix(&root).unwrap().display().to_string();
                let flat = name.replace('/', "__");
                let text = std::fs::read_to_string(path).unwrap();
                let stripped = dir.join(&flat);
                std::fs::write(&stripped, strip::stripped(&name, &text)).unwrap();
                let as_stripped = verdict(&stripped, &[]);
                let infer = lockstep(&["infer", stripped.to_str().unwrap()]);
                let pasted = dir.join(format!("inferred__{flat}"));
                std::fs::write(&pasted, &infer.stdout).unwrap();
                let as_pasted = verdict(&pasted, &["--no-infer"]);
                results.lock().unwrap().push((name, as_stripped, as_pasted));
            });
        }
    });
    std::fs::remove_dir_all(&dir).unwrap();
    let mut results = results.into_inner().unwrap();
    results.sort();
    let both = |(_, stripped, pasted): &&(String, String, String)| {
        stripped.split(',').all(|v| v == "verified") && pasted.split(',').all(|v| v == "verified")
    };
    let verified = results.iter().filter(both).count();
    println!(
        "stripped examples that verify, and whose inferred contracts verify pasted back: {verified} of {}",
        results.len()
    );
    for (name, stripped, pasted) in results.iter().filter(|result| !both(result)) {
        println!("       {name}: stripped {stripped}, pasted back {pasted}");
    }
    assert!(verified >= STRIPPED_VERIFIED, "{verified} stripped examples verify, fewer than {STRIPPED_VERIFIED}");
}
