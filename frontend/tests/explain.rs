//! `lockstep explain`: the outline of the seed's kernels, pinned as a reader sees it (human and
//! JSON), and with the verdicts `verify` gives. Run with `UPDATE_EXPECT=1` to accept a change.

use expect_test::{expect_file, ExpectFile};
use std::process::Command;

fn explain(arguments: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("explain")
        .args(arguments)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("the lockstep binary runs");
    assert!(output.status.success(), "explain {arguments:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn pin(arguments: &[&str], expected: ExpectFile) {
    expected.assert_eq(&explain(arguments));
}

#[test]
fn demo_is_explained() {
    pin(&["examples/seed/demo.pvl"], expect_file!["snapshots/demo.explain.txt"]);
}

#[test]
fn binomial_is_explained() {
    pin(&["examples/seed/binomial.pvl"], expect_file!["snapshots/binomial.explain.txt"]);
}

#[test]
fn demo_is_explained_in_json() {
    pin(&["examples/seed/demo.pvl", "--format", "json"], expect_file!["snapshots/demo.explain.json"]);
}

#[test]
fn binomial_is_explained_in_json() {
    pin(&["examples/seed/binomial.pvl", "--format", "json"], expect_file!["snapshots/binomial.explain.json"]);
}

#[test]
fn demo_is_explained_with_its_verdicts() {
    pin(&["examples/seed/demo.pvl", "--verdicts"], expect_file!["snapshots/demo.verdicts.txt"]);
}

#[test]
fn a_broken_demo_shows_its_failed_obligation_and_exits_1() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/seed/demo.pvl"))
        .expect("the demo is readable")
        .replace("barrier(global)", "barrier(local)");
    let path = std::env::temp_dir().join(format!("lockstep-explain-{}.pvl", std::process::id()));
    std::fs::write(&path, text).expect("a temporary file");
    let output = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(["explain", "--verdicts"])
        .arg(&path)
        .output()
        .expect("the lockstep binary runs");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let failed: Vec<&str> = stdout.lines().filter(|line| line.ends_with("[failed]")).collect();
    // The postcondition that reads another thread's unfenced write, and the hand-over of the cell
    // that thread wrote (the fence rule), and nothing else.
    assert_eq!(failed.len(), 2, "{stdout}");
    assert!(failed[0].contains("o25 barrier.functional 18:15"), "{stdout}");
    assert!(failed[1].contains("barrier.resources 17:15") && failed[1].contains("fences global memory"), "{stdout}");
}

#[test]
fn a_rejected_file_exits_2_with_its_diagnostics() {
    let path = std::env::temp_dir().join(format!("lockstep-explain-rejected-{}.pvl", std::process::id()));
    std::fs::write(&path, "kernel k { void main() { x := 1; } }").expect("a temporary file");
    let output = Command::new(env!("CARGO_BIN_EXE_lockstep")).arg("explain").arg(&path).output().expect("runs");
    let _ = std::fs::remove_file(&path);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("resolve::"), "a diagnostic with its code");
}
