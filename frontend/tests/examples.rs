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
