//! `check --format sarif` and `verify --format sarif`: the logs validate against the SARIF 2.1.0
//! schema (OASIS's, in `support/sarif-schema-2.1.0.json`) over the whole corpus, and say what the
//! human output says: the rule, the place, the second place, the counterexample.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every kernel file under `dir`, sorted.
fn kernel_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("a readable folder").map(|entry| entry.expect("an entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            kernel_files(&path, found);
        } else if path.extension().is_some_and(|extension| ["pvl", "cl", "cu"].iter().any(|known| extension == *known))
        {
            found.push(path);
        }
    }
}

/// The corpus: the examples, the kernels the tests verify and those they reject.
fn corpus() -> Vec<PathBuf> {
    let mut found = Vec::new();
    kernel_files(&repository().join("examples"), &mut found);
    kernel_files(&repository().join("frontend/tests/verify"), &mut found);
    kernel_files(&repository().join("frontend/tests/reject"), &mut found);
    found
}

fn lockstep(arguments: &[&str], files: &[PathBuf]) -> (Option<i32>, Value) {
    let output =
        Command::new(env!("CARGO_BIN_EXE_lockstep")).args(arguments).args(files).output().expect("lockstep runs");
    let log = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("not JSON ({error}): {}", String::from_utf8_lossy(&output.stdout)));
    (output.status.code(), log)
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repository().join("frontend/tests/support/sarif-schema-2.1.0.json"))
        .expect("the schema is in the repository");
    // The schema as published writes the pattern of a run's `language` with a stray `]`, which
    // is not a valid ECMA-262 expression, so that the validator refuses to compile the schema:
    // it is read as the pattern it means (a language code, then a region code if any).
    let text = text.replace(r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#, r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#);
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::options().should_validate_formats(true).build(&schema).expect("the schema compiles")
}

fn assert_valid(validator: &jsonschema::Validator, log: &Value) {
    let errors: Vec<String> =
        validator.iter_errors(log).take(10).map(|error| format!("{} at {}", error, error.instance_path())).collect();
    assert!(errors.is_empty(), "the SARIF log does not validate:\n{}", errors.join("\n"));
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("a run with results")
}

/// Every result names a rule the tool lists, at the index it gives, and a place in a file.
fn assert_results_are_consistent(log: &Value) {
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
    for result in results(log) {
        let index = result["ruleIndex"].as_u64().expect("a rule index") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result}");
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().is_some_and(|line| line >= 1), "{result}");
    }
}

#[test]
fn verify_and_check_logs_of_the_whole_corpus_validate() {
    let validator = validator();
    let files = corpus();
    assert!(files.len() > 300, "the corpus is there: {} files", files.len());

    let (status, log) = lockstep(&["verify", "--format", "sarif"], &files);
    assert_eq!(status, Some(2), "some test kernels are rejected");
    assert_valid(&validator, &log);
    assert_results_are_consistent(&log);
    let kinds: std::collections::BTreeSet<&str> =
        results(&log).iter().filter_map(|result| result["kind"].as_str()).collect();
    assert!(kinds.contains("pass") && kinds.contains("fail"), "{kinds:?}");
    assert_eq!(log["runs"][0]["invocations"][0]["executionSuccessful"], false);

    let (status, log) = lockstep(&["check", "--format", "sarif"], &files);
    assert_eq!(status, Some(2));
    assert_valid(&validator, &log);
    assert_results_are_consistent(&log);
    assert!(results(&log).iter().all(|result| result["kind"] == "fail"));
}

/// The validation can fail: a log with a level SARIF does not have is refused.
#[test]
fn the_schema_refuses_what_is_not_sarif() {
    let validator = validator();
    let (_, mut log) =
        lockstep(&["check", "--format", "sarif"], &[repository().join("frontend/tests/reject/missing_semicolon.pvl")]);
    assert_valid(&validator, &log);
    log["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&log));
}

#[test]
fn a_failure_gives_its_rule_its_two_places_and_its_counterexample() {
    let demo = std::fs::read_to_string(repository().join("examples/seed/demo.pvl")).expect("the demo");
    let broken = demo.replace("barrier(global)", "barrier(local)");
    assert_ne!(broken, demo);
    let directory = std::env::temp_dir().join(format!("lockstep-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("a temporary folder");
    let path = directory.join("broken demo.pvl");
    std::fs::write(&path, &broken).expect("writable");
    let (status, log) = lockstep(&["verify", "--format", "sarif"], std::slice::from_ref(&path));
    std::fs::remove_dir_all(&directory).expect("removable");

    assert_eq!(status, Some(1));
    let failed: Vec<&Value> = results(&log).iter().filter(|result| result["kind"] == "fail").collect();
    let functional = failed
        .iter()
        .find(|result| result["ruleId"] == "barrier.functional")
        .unwrap_or_else(|| panic!("barrier.functional fails: {failed:?}"));
    assert_eq!(functional["level"], "error");
    let barrier_line =
        broken.lines().position(|line| line.contains("ensures a[")).expect("the functional postcondition") + 1;
    let location = &functional["locations"][0]["physicalLocation"];
    assert!(location["artifactLocation"]["uri"].as_str().expect("a uri").ends_with("broken%20demo.pvl"));
    assert_eq!(location["region"]["startLine"].as_u64(), Some(barrier_line as u64), "{functional}");
    assert!(functional["relatedLocations"][0]["message"]["text"].as_str().is_some_and(|text| text.contains("fences")));
    let counterexample = functional["properties"]["counterexample"].as_array().expect("a counterexample");
    assert!(counterexample.iter().any(|value| value["name"] == "tid"), "{counterexample:?}");
    assert!(functional["message"]["text"].as_str().is_some_and(|text| text.contains("Counterexample: tid = ")));
    // The rest verified, and says so.
    assert!(results(&log).iter().any(|result| result["kind"] == "pass" && result["level"] == "none"));
}
