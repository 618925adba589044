//! The command-line contract: help, exit codes, JSON.

use std::path::Path;
use std::process::{Command, Output};

fn lockstep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the lockstep binary runs")
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON document")
}

#[test]
fn help_documents_every_command_and_option() {
    let help = String::from_utf8(lockstep(&["--help"]).stdout).unwrap();
    assert!(help.contains("check") && help.contains("Parse and type-check"), "{help}");
    let check_help = String::from_utf8(lockstep(&["check", "--help"]).stdout).unwrap();
    for needle in ["--format", "human", "json", "FILE", "Exit status"] {
        assert!(check_help.contains(needle), "`check --help` lacks {needle}:\n{check_help}");
    }
}

#[test]
fn a_well_formed_file_gives_exit_0_and_its_kernels_in_json() {
    let output = lockstep(&["check", "--format", "json", "examples/seed/demo.pvl"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    let file = &report["files"][0];
    assert_eq!(file["path"], "examples/seed/demo.pvl");
    assert_eq!(file["well_formed"], true);
    assert_eq!(file["kernels"][0]["name"], "demo");
    assert_eq!(file["kernels"][0]["line"], 6);
    assert_eq!(file["errors"], serde_json::json!([]));
}

#[test]
fn one_bad_file_among_good_ones_gives_exit_2_and_a_line_for_each() {
    let output = lockstep(&["check", "examples/seed/demo.pvl", "frontend/tests/reject/unknown_array.pvl"]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout,
        "examples/seed/demo.pvl: well formed (1 kernel: demo)\nfrontend/tests/reject/unknown_array.pvl: rejected (1 error)\n"
    );
}

#[test]
fn a_missing_file_is_reported_with_exit_2() {
    let output = lockstep(&["check", "--format", "json", "no/such/file.pvl"]);
    assert_eq!(output.status.code(), Some(2));
    let report = json(&output);
    assert_eq!(report["files"][0]["errors"][0]["code"], "source::unreadable");
    let human = lockstep(&["check", "no/such/file.pvl"]);
    assert_eq!(human.status.code(), Some(2));
    assert!(String::from_utf8(human.stderr).unwrap().contains("cannot read `no/such/file.pvl`"));
}

#[test]
fn an_assume_is_a_warning_not_an_error() {
    let dir = std::env::temp_dir().join(format!("lockstep-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("assume.pvl");
    std::fs::write(&path, "kernel k {\n  void main() {\n    assume gsize > 1;\n  }\n}\n").unwrap();
    let path = path.to_str().unwrap();
    let output = lockstep(&["check", "--format", "json", path]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    assert_eq!(report["files"][0]["warnings"][0]["code"], "warning::unchecked-assume");
    assert_eq!(report["files"][0]["warnings"][0]["line"], 3);
    let human = lockstep(&["check", path]);
    assert!(String::from_utf8(human.stdout).unwrap().ends_with("well formed (1 kernel: k), 1 warning\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_file_is_a_usage_error() {
    let output = lockstep(&["check"]);
    assert_eq!(output.status.code(), Some(2));
}

fn repository_file(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).expect("readable")
}

#[test]
fn the_readme_lists_every_diagnostic_code() {
    let readme = repository_file("README.md");
    for code in lockstep_frontend::diagnostics::Code::ALL {
        assert!(readme.contains(&format!("| `{}` |", code.as_str())), "README.md does not explain `{code}`");
    }
}

/// The README's first command is `cargo run -q -- verify ...`: with a second binary in the
/// package (`lockstep-hunt`), cargo can pick `lockstep` only when the manifest names it.
#[test]
fn cargo_run_runs_the_verifier() {
    let readme = repository_file("README.md");
    assert!(readme.contains("cargo run -q -- verify examples/seed/binomial.pvl"));
    let manifest = repository_file("frontend/Cargo.toml");
    let binaries = manifest.matches("[[bin]]").count();
    assert!(binaries < 2 || manifest.lines().any(|line| line == "default-run = \"lockstep\""), "{manifest}");
}

#[test]
fn ci_runs_the_test_command_the_readme_gives_and_it_installs_what_the_tests_use() {
    let readme = repository_file("README.md");
    let command = readme
        .lines()
        .find_map(|line| line.strip_suffix("# run the tests (what CI runs)"))
        .map(str::trim)
        .expect("the README gives a test command");
    assert!(repository_file(".ci/run").lines().any(|line| line == command), "`.ci/run` runs `{command}`");
    // On a fresh machine with only libz3-dev the tests need the solver executables and Boogie
    // (`lockstep_ivl_agrees_across_backends`, `real_boogie_agrees_with_the_built_in_engine`): the
    // command installs each one that is missing before it runs the tests.
    let script = command.strip_prefix("bash ").expect("the test command is a script");
    let script = repository_file(script);
    for needed in ["dpkg -s libz3-dev", "command -v z3", "command -v cvc5", "command -v boogie"] {
        assert!(script.contains(needed), "the test command does not check `{needed}`");
    }
    assert!(script.contains("apt-get install") && script.contains("cargo test --workspace --locked"));
}

#[test]
fn human_output_stops_after_a_hundred_diagnostics() {
    let dir = std::env::temp_dir().join(format!("lockstep-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("many.pvl");
    let body: String = (0..130).map(|i| format!("    y{i} := 1;\n")).collect();
    std::fs::write(&path, format!("kernel k {{\n  void main() {{\n{body}  }}\n}}\n")).unwrap();
    let path = path.to_str().unwrap();
    let human = lockstep(&["check", path]);
    let stderr = String::from_utf8(human.stderr).unwrap();
    assert_eq!(stderr.matches("resolve::unknown-name").count(), 100);
    assert!(stderr.contains("... and 30 more in"), "{stderr}");
    let report = json(&lockstep(&["check", "--format", "json", path]));
    assert_eq!(report["files"][0]["errors"].as_array().unwrap().len(), 130);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes `text` to a fresh temporary `.bpl` file.
fn temporary_bpl(name: &str, text: &str) -> std::path::PathBuf {
    temporary(name, "bpl", text)
}

/// Writes `text` to a fresh temporary file `name.extension`.
fn temporary(name: &str, extension: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("lockstep-{extension}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.{extension}"));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn lockstep_ivl_exit_codes_follow_the_verdicts() {
    let verified =
        temporary_bpl("verified", "procedure p(x: int) returns (y: int)\n  ensures y > x;\n{\n  y := x + 1;\n}\n");
    let failing = temporary_bpl(
        "failing",
        "procedure p(x: int) returns (y: int)\n{\n  assume 2 < x && x < 4;\n  y := x;\n  assert {:tag \"my.tag\"} y != 3;\n}\n",
    );
    let broken = temporary_bpl("broken", "procedure p() {\n  assert 1 +;\n}\n");
    let hard = temporary_bpl(
        "hard",
        "procedure p(x: int, y: int, z: int)\n{\n  assume x > 1 && y > 1 && z > 1;\n  assert x * x * x + y * y * y != z * z * z;\n}\n",
    );

    let output = lockstep(&["ivl", verified.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8(output.stdout).unwrap().contains("procedure p: verified (0 of 1 checks failed)"));

    let output = lockstep(&["ivl", failing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("failing.bpl:5:3: error: this assertion might not hold [my.tag]"), "{stdout}");
    assert!(stdout.contains("counterexample: x = 3, y = 3"), "{stdout}");

    let output = lockstep(&["ivl", broken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("broken.bpl:2:13: error: unexpected `;`"));

    let output = lockstep(&["ivl", "--resource-limit", "1", hard.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(3));
    assert!(String::from_utf8(output.stdout).unwrap().contains("undecided"));

    let output = lockstep(&["ivl", "--format", "json", failing.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let check = &report["files"][0]["procedures"][0]["checks"][0];
    assert_eq!(check["status"], "failed");
    assert_eq!(check["tag"], "my.tag");
    assert_eq!(check["line"], 5);
    assert_eq!(check["model"]["x"], "3");

    let output = lockstep(&["ivl", "--emit", "boogie", failing.to_str().unwrap()]);
    assert!(String::from_utf8(output.stdout).unwrap().contains("assert {:tag \"my.tag\"} (y != 3);"));
    let output = lockstep(&["ivl", "--emit", "smt2", failing.to_str().unwrap()]);
    let smt = String::from_utf8(output.stdout).unwrap();
    assert!(smt.contains("(declare-const enabled@0 Bool)"), "{smt}");
    assert!(smt.contains("; check 0: Assertion at 5:3 [my.tag]"), "{smt}");
}

#[test]
fn lockstep_ivl_agrees_across_backends() {
    let failing = temporary_bpl(
        "backends",
        "procedure p(x: int) returns (y: int)\n  ensures y >= 0;\n{\n  y := x * x;\n  assert y > 0;\n}\n",
    );
    for backend in ["z3", "z3-process", "cvc5", "boogie"] {
        let output = lockstep(&["ivl", "--backend", backend, failing.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1), "{backend}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.contains("backends.bpl:5:3: error: this assertion might not hold"), "{backend}: {stdout}");
        assert!(stdout.contains("procedure p: failed (1 of 2 checks failed)"), "{backend}: {stdout}");
    }
}

/// Each kernel of a `verify --format json` report: its name, verdict and the `id:line` of its
/// failed obligations.
/// The warnings of a report's first file, as `(code, line)`.
fn warnings(report: &serde_json::Value) -> Vec<(String, u64)> {
    let warnings = report["files"][0]["warnings"].as_array().expect("warnings");
    warnings
        .iter()
        .map(|warning| (warning["code"].as_str().unwrap().to_string(), warning["line"].as_u64().unwrap()))
        .collect()
}

/// Each kernel's verdict, without its failures (whose lines move when contracts are written in).
fn verdicts(output: &Output) -> Vec<(String, String)> {
    failures_by_kernel(output).into_iter().map(|(kernel, verdict, _)| (kernel, verdict)).collect()
}

fn failures_by_kernel(output: &Output) -> Vec<(String, String, Vec<String>)> {
    json(output)["files"][0]["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|kernel| {
            let text = |key: &str| kernel[key].as_str().unwrap().to_string();
            (text("name"), text("verdict"), with_status(kernel, "failed"))
        })
        .collect()
}

/// What [`failures_by_kernel`] gives, written as the tests expect it.
/// A kernel's expected verdict: its name, verdict and failing obligations (`id:line`).
/// The verdicts and failed obligations of `verify --format json` with `options`, kernel by kernel.
fn verdicts_of(file: &str, options: &[&str]) -> Vec<(String, String, Vec<String>)> {
    let arguments = [&["verify", "--format", "json"], options, &[file]].concat();
    failures_by_kernel(&lockstep(&arguments))
}

type Expectation<'a> = (&'a str, &'a str, &'a [&'a str]);

fn expected(kernels: &[Expectation]) -> Vec<(String, String, Vec<String>)> {
    kernels
        .iter()
        .map(|(name, verdict, failed)| {
            (name.to_string(), verdict.to_string(), failed.iter().map(|place| place.to_string()).collect())
        })
        .collect()
}

/// The `id:line` of a kernel report's obligations with this status.
fn with_status(kernel: &serde_json::Value, status: &str) -> Vec<String> {
    kernel["obligations"]
        .as_array()
        .expect("obligations")
        .iter()
        .filter(|obligation| obligation["status"] == status)
        .map(|obligation| format!("{}:{}", obligation["id"].as_str().unwrap(), obligation["line"]))
        .collect()
}

/// The binomial kernel with the wrong fence on its first barrier: the barrier postcondition about
/// tmp needs a model of `binom` to fail, which the solver cannot build, so it is undecided (never
/// verified); the race the wrong fence causes is found by the fence rule (`barrier.resources`),
/// decidedly. A failure makes the exit status 1, and the undecided obligation is still reported
/// as undecided, with its id and reason. The limit is z3's deterministic resource count, so the
/// answer does not depend on how busy the machine is.
#[test]
fn lockstep_verify_reports_an_undecided_obligation_with_its_id_beside_a_failure() {
    let path = "frontend/tests/verify/undecided.pvl";
    let output = lockstep(&["verify", "--resource-limit", "1000000", path]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("barrier.functional") && stderr.contains("undecided"), "{stderr}");
    let report = json(&lockstep(&["verify", "--resource-limit", "1000000", "--format", "json", path]));
    let kernel = &report["files"][0]["kernels"][0];
    assert_eq!(kernel["verdict"], "failed");
    assert_eq!(with_status(kernel, "undecided"), ["barrier.functional:31"], "{kernel}");
    assert_eq!(with_status(kernel, "failed"), ["barrier.resources:29"], "{kernel}");
    let undecided = kernel["obligations"].as_array().unwrap().iter().find(|o| o["status"] == "undecided").unwrap();
    assert!(undecided["reason"].as_str().is_some_and(|reason| !reason.is_empty()), "{undecided}");
}

/// No answer but a real `sat` model fails a check. Under small resource limits z3 gives up on
/// most of the seed's (correct) binomial kernel; every obligation must then be verified or
/// undecided, never failed, in both z3 backends. z3 4.8's incremental solver, asked again after
/// giving up, answered `sat` with models that broke the launch facts (`tcount = 0` beside
/// `gsize = 2`); the solver is now rebuilt after every `unknown`, and a model that breaks the
/// script decides nothing (the second defence must not be needed here).
#[test]
fn a_resource_limit_never_fails_a_correct_kernel() {
    let path = "examples/seed/binomial.pvl";
    for (backend, limit) in [("z3", "300"), ("z3", "10000"), ("z3-process", "10000")] {
        let output = lockstep(&["verify", "--backend", backend, "--resource-limit", limit, "--format", "json", path]);
        let report = json(&output);
        let kernel = &report["files"][0]["kernels"][0];
        assert_eq!(with_status(kernel, "failed"), Vec::<String>::new(), "{backend} {limit}: {kernel}");
        assert_eq!(output.status.code(), Some(3), "{backend} {limit}: undecided, exit 3");
        for obligation in kernel["obligations"].as_array().unwrap() {
            let reason = obligation["reason"].as_str().unwrap_or_default();
            assert!(!reason.contains("breaks the script"), "{backend} {limit}: {obligation}");
        }
    }
}

/// A matrix kernel indexed `tid * w + j` with a symbolic width decides within a small
/// deterministic budget under every seed. Without the facts about its products
/// (`proofs/vcgen.md`, V8) z3's non-linear search needs 20 s or more, and under some seeds gives up,
/// so two million resource units leave it undecided.
#[test]
fn a_matrix_kernel_with_a_symbolic_width_verifies_under_every_seed_within_a_small_budget() {
    for seed in 0..10 {
        let seed = seed.to_string();
        let path = "examples/matrix/zero_rows.pvl";
        let output = lockstep(&["verify", "--seed", &seed, "--resource-limit", "2000000", path]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success() && stdout.contains("verified"), "seed {seed}: {stdout}");
    }
}

/// The per-axis ids of a three-dimensional launch with symbolic sizes number the threads `x`
/// fastest: `verify` proves it for every launch, `run` finds it true on a launch shaped along the
/// three axes, and both find the numbering with two axes exchanged false. `run` refuses a launch
/// with more axes than the kernel names.
#[test]
fn the_axes_of_a_launch_number_its_threads_x_fastest() {
    let path = "frontend/tests/verify/launch_axes.pvl";
    let shape = ["--gsize", "2x3x2", "--groups", "2x1x3"];
    assert_eq!(lockstep(&["verify", path]).status.code(), Some(0));
    assert_eq!(lockstep(&[&["run", path][..], &shape].concat()).status.code(), Some(0));
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify/launch_axes.pvl")).unwrap();
    let swapped = text.replace("lid_x + gsize_x * (lid_y", "lid_y + gsize_y * (lid_x");
    assert_ne!(swapped, text);
    let swapped_path = std::env::temp_dir().join(format!("lockstep-axes-{}.pvl", std::process::id()));
    std::fs::write(&swapped_path, swapped).unwrap();
    let swapped_path = swapped_path.to_str().unwrap();
    let run = lockstep(&[&["run", swapped_path][..], &shape].concat());
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stderr).contains("thread.post"));
    let verify = lockstep(&["verify", "--resource-limit", "2000000", swapped_path]);
    assert_ne!(verify.status.code(), Some(0), "the swapped numbering must not verify");
    std::fs::remove_file(swapped_path).unwrap();
    let flat = lockstep(&["run", "examples/grid/transpose_tile_2d.pvl", "--gsize", "4x2x2"]);
    assert_eq!(flat.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&flat.stderr).contains("2 dimensions"),
        "{}",
        String::from_utf8_lossy(&flat.stderr)
    );
}

/// The inverse of a tile index with a uniform offset under a negative multiple keeps the offset's
/// sign: the transposed read of such a tile verifies, and runs clean.
#[test]
fn a_tile_index_with_a_negative_offset_is_inverted_with_its_sign() {
    let path = "frontend/tests/verify/axes_negative_offset.pvl";
    let verify = lockstep(&["verify", path]);
    assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stderr));
    assert_eq!(lockstep(&["run", path, "--gsize", "4x4", "--groups", "2"]).status.code(), Some(0));
}

/// Each lemma of `\sum` (E18) proves its postcondition, and none proves a wrong one: the same
/// postcondition with a wrong term or bound fails. The frame's, with a write inside the sum's range,
/// does not verify (z3 leaves that model, with quantified permissions, undecided).
#[test]
fn the_lemmas_of_sums_prove_what_they_state_and_nothing_wrong() {
    let path = "frontend/tests/verify/sum_lemmas.pvl";
    let verify = lockstep(&["verify", path]);
    assert_eq!(verify.status.code(), Some(0), "{}", String::from_utf8_lossy(&verify.stderr));
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verify/sum_lemmas.pvl")).unwrap();
    let mutations = [
        ("n <= j < k; \\old(a[j])) == 0", "n <= j < k; \\old(a[j])) == 1"),
        ("== \\old(a[n]);", "== \\old(a[n]) + 1;"),
        ("\\sum(int j; k <= j < n;", "\\sum(int j; k < j < n;"),
        ("+ \\old(a[n - 1]);", "+ \\old(a[0]);"),
        ("\\sum(int j; 1 <= j < n;", "\\sum(int j; 2 <= j < n;"),
        ("\\old(a[j + 1])", "\\old(a[j + 2])"),
        ("a[n] := 7;", "a[0] := 7;"),
    ];
    for (index, (right, wrong)) in mutations.iter().enumerate() {
        assert_eq!(text.matches(right).count(), 1, "{right}");
        let mutated = std::env::temp_dir().join(format!("lockstep-sum-lemma-{}-{index}.pvl", std::process::id()));
        std::fs::write(&mutated, text.replace(right, wrong)).unwrap();
        let output = lockstep(&["verify", "--resource-limit", "5000000", mutated.to_str().unwrap()]);
        std::fs::remove_file(&mutated).unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let expected = if wrong.starts_with("a[0]") { [Some(1), Some(3)] } else { [Some(1), Some(1)] };
        assert!(expected.contains(&output.status.code()), "{wrong}: {stderr}");
        assert!(stderr.contains("thread.post"), "{wrong}: {stderr}");
    }
}

#[test]
fn lockstep_verify_refuses_what_it_cannot_verify_yet_with_exit_2() {
    let path = "frontend/tests/verify/unsupported.pvl";
    let output = lockstep(&["verify", path]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unsupported.pvl:4:") && stderr.contains("not supported yet"), "{stderr}");
}

#[test]
fn every_command_refuses_each_unsupported_construct_alike() {
    let path = "frontend/tests/reject/unsupported_constructs.pvl";
    for command in [&["check", path][..], &["verify", path], &["verify", "--emit", "boogie", path], &["run", path]] {
        let output = lockstep(command);
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.matches("kernel::unsupported").count(), 2, "{command:?}: {stderr}");
    }
}

#[test]
fn lockstep_run_checks_barriers_under_the_memory_model_asked_for() {
    let path = "examples/seed/binomial.pvl";
    let seed = lockstep(&["run", path, "--gsize", "8"]);
    assert_eq!(seed.status.code(), Some(0), "{}", String::from_utf8_lossy(&seed.stderr));
    let opencl = lockstep(&["run", path, "--gsize", "8", "--memory-model", "opencl"]);
    assert_eq!(opencl.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&opencl.stderr);
    assert!(stderr.contains("data race on `tmp[") && stderr.contains("does not fence local memory"), "{stderr}");
}

/// The same input gets the same answer with the same work: every check's answer is a function of
/// the file, the options and the seed, whatever ran before it in the process or the machine's cores.
#[test]
fn repeated_verification_gives_the_same_verdicts_and_resource_counts() {
    let path = "frontend/tests/verify/rotate_three_rounds.pvl";
    for options in [&[][..], &["--resource-limit", "5000000"]] {
        let runs: Vec<(String, u64, Vec<String>)> = (0..5)
            .map(|_| {
                let mut args = vec!["verify", "--format", "json"];
                args.extend(options);
                args.push(path);
                let report = json(&lockstep(&args));
                let kernel = &report["files"][0]["kernels"][0];
                let statuses = kernel["obligations"]
                    .as_array()
                    .expect("obligations")
                    .iter()
                    .map(|obligation| format!("{}:{}", obligation["id"], obligation["status"]))
                    .collect();
                (kernel["verdict"].to_string(), kernel["resources"].as_u64().expect("z3 reports its work"), statuses)
            })
            .collect();
        assert_eq!(runs[0].0, "\"verified\"", "{options:?}");
        assert!(runs.iter().all(|run| *run == runs[0]), "{options:?}: {runs:?}");
    }
}

#[test]
fn lockstep_verify_exit_codes_follow_the_verdicts() {
    let verified = lockstep(&["verify", "examples/seed/demo.pvl"]);
    assert_eq!(verified.status.code(), Some(0));
    let failed = lockstep(&["verify", "examples/variants/wrong_fence.pvl"]);
    assert_eq!(failed.status.code(), Some(1));
    let both = lockstep(&["verify", "examples/seed/demo.pvl", "examples/variants/wrong_fence.pvl"]);
    assert_eq!(both.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&both.stdout).lines().count(), 2);
}

/// The first failed obligation with id `id` in the JSON report of `lockstep verify` on `file`.
fn first_failure(file: &str, id: &str) -> serde_json::Value {
    let report = json(&lockstep(&["verify", "--format", "json", file]));
    report["files"][0]["kernels"][0]["obligations"]
        .as_array()
        .expect("obligations")
        .iter()
        .find(|obligation| obligation["status"] == "failed" && obligation["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} does not fail in {file}: {report}"))
}

/// The integer a failure's counterexample gives `name`.
fn counterexample_value(failed: &serde_json::Value, name: &str) -> i64 {
    let entries = failed["counterexample"].as_array().expect("a counterexample");
    let entry = entries.iter().find(|entry| entry["name"] == name).unwrap_or_else(|| panic!("no {name} in {failed}"));
    entry["value"].as_str().and_then(|value| value.parse().ok()).unwrap_or_else(|| panic!("{entry}"))
}

/// A race's counterexample names the two threads and the location they both claim, and the three
/// agree: in `race_in_group.pvl` thread `t` claims `a[t/2]`.
#[test]
fn a_race_counterexample_shows_the_location_both_threads_name() {
    let failed = first_failure("examples/variants/race_in_group.pvl", "group.resources");
    let value = |name: &str| counterexample_value(&failed, name);
    let block = value("gid") * value("gsize");
    let location = value("index of `a` both threads name");
    assert_eq!((block + value("lid of thread 1")) / 2, location, "{failed}");
    assert_eq!((block + value("lid of thread 2")) / 2, location, "{failed}");
    assert_ne!(value("lid of thread 1"), value("lid of thread 2"), "{failed}");
}

/// A counterexample of a two-dimensional kernel names the thread by its coordinates along each
/// axis and the launch by its sizes along each axis, and they agree with the linear ids (x
/// fastest); a one-dimensional kernel's shows none of them.
#[test]
fn a_two_dimensional_counterexample_shows_each_axis() {
    let failed = first_failure("examples/grid/transpose_tile_2d_global_fence.pvl", "barrier.functional");
    let value = |name: &str| counterexample_value(&failed, name);
    assert_eq!((value("gsize_x"), value("gsize_y")), (4, 4), "{failed}");
    assert_eq!(value("lid"), value("lid_x") + 4 * value("lid_y"), "{failed}");
    assert_eq!(value("gid"), value("gid_x") + value("groups_x") * value("gid_y"), "{failed}");
    assert_eq!(value("tcount"), 16 * value("groups_x") * value("groups_y"), "{failed}");
    assert!((0..value("groups_y")).contains(&value("gid_y")), "{failed}");

    let one_axis = lockstep(&["verify", "examples/variants/race_in_group.pvl"]);
    let stderr = String::from_utf8_lossy(&one_axis.stderr);
    assert!(stderr.contains("counterexample: ") && !stderr.contains("lid_x"), "{stderr}");
}

/// An index out of bounds gets the likely fix for what it names: the linear ids' usual slip, the
/// last id of each axis for a per-axis index, the declared length otherwise.
#[test]
fn an_index_out_of_bounds_gets_help_for_what_it_names() {
    let cases = [
        ("linear", "global int[gsize] a;\n  requires Perm(a[tid], write);", "a[tid] := 1;", "`tid` counts the threads"),
        (
            "axes",
            "local int[16] a;\n  requires gsize_x == 4 && gsize_y == 4;\n  requires Perm(a[lid_y * 5 + lid_x], write);",
            "a[lid_y * 5 + lid_x] := 1;",
            "the last id of every axis",
        ),
        ("parameter", "global int[8] a;\n  requires Perm(a[0], write);", "a[n] := 1;", "declared length"),
    ];
    for (name, declarations, statement, help) in cases {
        let text = format!("kernel bounds_{name}(int n) {{\n  {declarations}\n  void main() {{ {statement} }}\n}}\n");
        let file = temporary(&format!("bounds_{name}"), "pvl", &text);
        let failed = first_failure(file.to_str().unwrap(), "access.bounds");
        let shown = failed["help"].as_str().unwrap_or_default();
        assert!(shown.contains(help), "{name}: {shown}");
        for (other, _, _, other_help) in cases {
            assert!(other == name || !shown.contains(other_help), "{name} got {other}'s help: {shown}");
        }
    }
}

#[test]
fn replay_confirms_a_real_bug_and_doubts_a_weak_annotation() {
    let racy = lockstep(&["verify", "--replay", "examples/reduction/sum_ones_pow2_missing_barrier.pvl"]);
    assert_eq!(racy.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&racy.stderr);
    assert!(stderr.contains("replay: confirmed: a run of "), "{stderr}");
    assert!(stderr.contains("finds race: data race on `tmp["), "{stderr}");
    // The counterexample shows only part of the permutation `p`: the replay fills it as iota.
    let permuted = lockstep(&["verify", "--replay", "examples/gather_scatter/gather_in_place.pvl"]);
    let stderr = String::from_utf8_lossy(&permuted.stderr);
    assert!(stderr.contains("replay: confirmed") && stderr.contains("(inputs as iota)"), "{stderr}");
    // The invariant forgets that i stops at 3, so the postcondition does not verify; every run
    // ends with a[tid] == 3.
    let weak = temporary(
        "weak",
        "pvl",
        "kernel weak {
  global int[tcount] a;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write) * a[tid] == 3;
  void main() {
    int i := 0;
    invariant Perm(a[tid], write) * 0 <= i;
    while (i < 3) { i := i + 1; }
    a[tid] := i;
  }
}
",
    );
    let output = lockstep(&["verify", "--replay", "--format", "json", weak.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let failed: Vec<&serde_json::Value> = report["files"][0]["kernels"][0]["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|obligation| obligation["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{report}");
    assert_eq!(failed[0]["id"], "thread.post");
    assert_eq!(failed[0]["replay"]["status"], "not confirmed", "{report}");
    // Without --replay, no replay is reported.
    let plain = json(&lockstep(&["verify", "--format", "json", weak.to_str().unwrap()]));
    assert!(plain.to_string().contains("thread.post") && !plain.to_string().contains("replay"), "{plain}");
}

#[test]
fn run_judges_a_kernel_without_annotations_by_its_accesses() {
    let dir = std::env::temp_dir().join(format!("lockstep-unannotated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let kernel = |between: &str| {
        format!(
            "kernel clean_neighbor {{\n  local int[gsize] s;\n  global int[tcount] out;\n  void main() {{ s[lid] := lid; {between} out[tid] := s[(lid + 1) mod gsize]; }}\n}}\n"
        )
    };
    let clean = dir.join("clean_neighbor.pvl");
    std::fs::write(&clean, kernel("barrier(local);")).expect("writable");
    let racy = dir.join("racy_neighbor.pvl");
    std::fs::write(&racy, kernel("")).expect("writable");
    let run = |path: &Path| lockstep(&["run", path.to_str().unwrap(), "--groups", "2", "--gsize", "4"]);
    let clean_run = run(&clean);
    assert_eq!(clean_run.status.code(), Some(0), "{}", String::from_utf8_lossy(&clean_run.stderr));
    assert!(String::from_utf8_lossy(&clean_run.stdout).contains("no bug found"));
    let racy_run = run(&racy);
    assert_eq!(racy_run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&racy_run.stderr);
    assert!(stderr.contains("data race on `s[1]`") && stderr.contains("thread 1 (gid 0, lid 1) writes it"), "{stderr}");
    std::fs::remove_dir_all(&dir).expect("removable");
}

#[test]
fn run_reports_a_race_with_both_threads_and_its_exit_code() {
    let racy = lockstep(&["run", "examples/variants/race_between_groups.pvl", "--groups", "2"]);
    assert_eq!(racy.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&racy.stderr);
    assert!(stderr.contains("race") && stderr.contains("thread 4 (gid 1, lid 0)"), "{stderr}");
    assert!(stderr.contains("different work groups"), "{stderr}");
    let clean = lockstep(&["run", "examples/seed/binomial.pvl", "--gsize", "8"]);
    assert_eq!(clean.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&clean.stdout);
    assert!(stdout.contains("no bug found (1 schedule explored; all (about 2.18e317) interleavings"), "{stdout}");
    let refused = lockstep(&["run", "examples/seed/demo.pvl", "--groups", "2"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("breaks the kernel's precondition"));
    let huge = lockstep(&["run", "examples/seed/demo.pvl", "--groups", "100000", "--gsize", "100000"]);
    assert_eq!(huge.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&huge.stderr).contains("a run takes at most 1048576 threads"));
    let unknown = lockstep(&["run", "examples/seed/demo.pvl", "--param", "n=3"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("has no parameter `n`"));
    let random = lockstep(&["run", "examples/seed/demo.pvl", "--schedule", "random", "--runs", "5", "--seed", "7"]);
    assert_eq!(random.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&random.stdout);
    assert!(stdout.contains("5 random schedules explored, each ending as the canonical one"), "{stdout}");
    let all = lockstep(&["run", "examples/seed/demo.pvl", "--gsize", "2", "--schedule", "all"]);
    assert_eq!(all.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&all.stdout).contains("all 12 schedules explored one by one"));
    let report = lockstep(&["run", "--format", "json", "examples/variants/race_between_groups.pvl", "--groups", "2"]);
    assert_eq!(report.status.code(), Some(1));
    let kernel = &json(&report)["files"][0]["kernels"][0];
    assert_eq!(kernel["result"], "bug");
    assert_eq!(kernel["finding"]["code"], "race");
    assert_eq!(kernel["launch"]["groups"], 2);
    assert_eq!(kernel["finding"]["places"].as_array().map(Vec::len), Some(2), "{kernel}");
}

/// The fence rule under both memory models (issue 19): a read before a barrier that does not fence
/// its memory is complete when the barrier returns under the seed's rule, and races with another
/// thread's later write under OpenCL's; a barrier that fences the memory orders both.
#[test]
fn the_memory_model_decides_whether_a_read_before_an_unfenced_barrier_races() {
    let verdict = |model: &str, file: &str| {
        let output = lockstep(&["verify", "--memory-model", model, "--format", "json", file]);
        let report = json(&output);
        let kernel = &report["files"][0]["kernels"][0];
        let failed: Vec<String> = kernel["obligations"]
            .as_array()
            .expect("obligations")
            .iter()
            .filter(|obligation| obligation["status"] == "failed")
            .map(|obligation| format!("{}:{}", obligation["id"].as_str().unwrap(), obligation["line"]))
            .collect();
        (output.status.code(), failed)
    };
    let bad = "frontend/tests/verify/bad_read_then_write.pvl";
    let good = "frontend/tests/verify/read_then_write.pvl";
    assert_eq!(verdict("seed", bad), (Some(0), vec![]));
    assert_eq!(verdict("opencl", bad), (Some(1), vec!["barrier.resources:12".to_string()]));
    assert_eq!(verdict("seed", good), (Some(0), vec![]));
    assert_eq!(verdict("opencl", good), (Some(0), vec![]));
    // The seed's binomial kernel reads its neighbour's tmp before `barrier(2,)`, which fences
    // nothing, and writes its own after it: fine under the seed's rule, a race under OpenCL's.
    assert_eq!(verdict("seed", "examples/seed/binomial.pvl"), (Some(0), vec![]));
    assert_eq!(verdict("opencl", "examples/seed/binomial.pvl"), (Some(1), vec!["barrier.resources:43".to_string()]));
    // `lockstep run` agrees: the same race under OpenCL's rule only.
    let run = |model: &str, file: &str| lockstep(&["run", "--memory-model", model, file]).status.code();
    assert_eq!(run("seed", bad), Some(0));
    assert_eq!(run("opencl", bad), Some(1));
    assert_eq!(run("seed", good), Some(0));
    assert_eq!(run("opencl", good), Some(0));
}

/// A barrier that does not fence global memory may not hand over a global location another thread
/// wrote before it (GPUVerify's sync_within_group_wrong_flag); the failure names the barrier and
/// says which fence to add.
#[test]
fn a_barrier_without_the_fence_may_not_hand_over_a_written_location() {
    let output = lockstep(&["verify", "examples/fences/sync_within_group_wrong_flag.pvl"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    for needle in [
        "barrier.resources",
        "since the last barrier that fences global memory",
        "this barrier does not fence global memory",
        "add `global` to this barrier's fences",
    ] {
        assert!(stderr.contains(needle), "missing `{needle}` in:\n{stderr}");
    }
}

/// `verify` prints what `check` warns about (`warning::unchecked-assume`) and the vacuity
/// warnings, in the human report and in JSON, and the kernel still verifies (exit 0).
#[test]
fn verify_prints_the_warnings_of_check_and_its_own() {
    let path = std::env::temp_dir().join(format!("lockstep-vacuity-{}.pvl", std::process::id()));
    std::fs::write(
        &path,
        "kernel k {
  global int[tcount] a;
  requires Perm(a[tid], write) ** a[tid] > 0 ** a[tid] < 0;
  ensures Perm(a[tid], write) ** a[tid] == 42;
  void main() { assume a[tid] == 7; }
}
",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let check = lockstep(&["check", path]);
    assert!(String::from_utf8_lossy(&check.stderr).contains("warning::unchecked-assume"));
    let human = lockstep(&["verify", path]);
    assert_eq!(human.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(stderr.contains("warning::unchecked-assume"), "{stderr}");
    assert!(stderr.contains("warning::vacuous") && stderr.contains("holds only vacuously"), "{stderr}");
    assert!(
        String::from_utf8_lossy(&human.stdout).contains("verified, 1 warning"),
        "{}",
        String::from_utf8_lossy(&human.stdout)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&lockstep(&["verify", "--format", "json", path]).stdout).expect("one JSON document");
    let codes = warnings(&json);
    // The `assume` after a contradictory precondition is unreachable: only the precondition
    // warns of vacuity, the `assume` of being unchecked.
    assert_eq!(codes, [("warning::unchecked-assume".to_string(), 5), ("warning::vacuous".to_string(), 3)], "{json}");
    std::fs::remove_file(path).unwrap();
}

/// A tile copied into local memory (`tile[lid] == in[tid]` before the barrier) is handed over
/// without a quantifier over the other threads (E7): the threads whose cells the postcondition
/// reads are instantiated, and any other thread's copy holds by the value of its own tile cell,
/// which nothing else reads. The same barrier with a second precondition about `tile` keeps the
/// quantifier, since the cell no longer answers to one conjunct alone. Both still verify, and the
/// claim about the wrong neighbour fails.
#[test]
fn a_tile_copy_is_handed_over_at_the_barrier_without_a_quantifier() {
    let kernel = |extra: &str, neighbour: &str| {
        format!(
            "kernel tile_copy {{
  global int[tcount] in;
  local int[gsize] tile;
  requires (\\forall* int i; gid * gsize <= i < gid * gsize + gsize; Perm(in[i], read));
  requires Perm(tile[lid], write);
  void main() {{
    tile[lid] := in[tid];
    barrier(local) {{
      requires tile[lid] == in[tid];{extra}
      ensures (\\forall* int i; gid * gsize <= i < gid * gsize + gsize; Perm(in[i], read));
      ensures Perm(tile[(lid + 1) % gsize], read);
      ensures tile[(lid + 1) % gsize] == in[gid * gsize + {neighbour}];
    }}
  }}
}}
"
        )
    };
    let functional = |source: &str| {
        let path = temporary("tile_copy", "pvl", source);
        let output = lockstep(&["verify", "--emit", "boogie", path.to_str().unwrap()]);
        let boogie = String::from_utf8(output.stdout).expect("utf-8");
        let start = boogie.find("procedure barrier_functional_0").expect("the barrier's procedure");
        let end = boogie[start..].find("\n}").map_or(boogie.len(), |end| start + end);
        boogie[start..end].to_string()
    };
    let verdict =
        |source: &str| lockstep(&["verify", temporary("tile_copy", "pvl", source).to_str().unwrap()]).status.code();
    let copy = kernel("", "(lid + 1) % gsize");
    assert!(!functional(&copy).contains("forall other_lid"), "{}", functional(&copy));
    assert_eq!(verdict(&copy), Some(0));
    let twice = kernel("\n      requires tile[lid] >= in[tid];", "(lid + 1) % gsize");
    assert!(functional(&twice).contains("forall other_lid"), "{}", functional(&twice));
    assert_eq!(verdict(&twice), Some(0));
    assert_eq!(verdict(&kernel("", "(lid + 2) % gsize")), Some(1));
}

/// `--int32` reads PVL's `int` in code as C's: an addition that may leave its range fails
/// `arith.overflow`, one the launch's limit keeps in range does not, and without the option
/// integers are mathematical.
#[test]
fn int32_checks_the_overflow_of_code_arithmetic() {
    let path = "frontend/tests/verify/increment.pvl";
    assert_eq!(lockstep(&["verify", path]).status.code(), Some(0));
    let output = lockstep(&["verify", "--int32", "--format", "json", path]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let overflows: Vec<(u64, &str)> = report["files"][0]["kernels"][0]["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|obligation| obligation["id"] == "arith.overflow")
        .map(|obligation| (obligation["line"].as_u64().unwrap(), obligation["status"].as_str().unwrap()))
        .collect();
    assert_eq!(overflows, [(10, "failed"), (11, "verified"), (12, "verified")]);
}

/// `lockstep run` takes an unannotated OpenCL kernel and GPUVerify's launch options; its arrays
/// have a cell per thread, and an `int` addition that leaves the type is `arith.overflow`.
#[test]
fn run_executes_an_unannotated_opencl_kernel() {
    let path = "frontend/tests/verify/add.cl";
    let clean = lockstep(&["run", "--local_size=4", "--num_groups=2", path]);
    assert_eq!(clean.status.code(), Some(0), "{}", String::from_utf8_lossy(&clean.stderr));
    let overflow =
        lockstep(&["run", "--local_size=4", "--num_groups=2", "--init", "a=2147483647", "--init", "b=1", path]);
    assert_eq!(overflow.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&overflow.stderr);
    assert!(stderr.contains("arith.overflow") && stderr.contains("2147483648"), "{stderr}");
}

/// GPUVerify's `__requires`, `__invariant`, `__assert` and `__implies` are lockstep's clauses: the
/// invariants carry the loop, so the asserts after it hold, and an assert that fails for thread 0
/// fails.
/// GPUVerify's hints over its two-thread encoding, and its barrier and function-wide invariants,
/// are left out with a warning each, and the kernel is proved from what lockstep checks itself;
/// `__old_int(e)` is `\old(e)` and `__return_val_int()` a helper's result.
#[test]
fn gpuverify_proof_hints_are_left_out_with_a_warning() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/gpuverify_hints.cl"]);
    assert_eq!(output.status.code(), Some(1));
    let warnings = warnings(&json(&output));
    let lines: Vec<u64> =
        warnings.iter().filter(|(code, _)| code == "warning::left-out").map(|(_, line)| *line).collect();
    assert_eq!((warnings.len(), lines), (7, vec![7, 9, 11, 14, 15, 16, 34]));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[("hints", "failed", &["assert:19"]), ("old_and_result", "failed", &["thread.post:36"])])
    );
}

/// GPUVerify's claims: `__all(e)` is `e` of every thread; a claim over its pair of threads is
/// undecided with a `warning::unstated-claim`, never verified nor failed, and the code after it
/// is still checked (the race after one fails); `run` finds no bug in such a claim, and finds the
/// race. `__read_offset_bytes` in code is any value, and `__read_permission` a read, racy before
/// the barrier. An `__assert` at a loop's head is an invariant, undecided over the pair.
#[test]
fn gpuverify_claims_over_two_threads_are_undecided() {
    let file = "frontend/tests/verify/gpuverify_claims.cl";
    let output = lockstep(&["verify", "--local_size=8", "--num_groups=2", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("all_threads", "verified", &[]),
            ("not_all_threads", "failed", &["assert:11"]),
            ("uniform", "undecided", &[]),
            ("uniform_then_race", "failed", &["kernel.resources:21"]),
            ("distinct_result", "undecided", &[]),
            ("offsets_in_code", "verified", &[]),
            ("read_permission", "failed", &["group.resources:42"]),
            ("read_permission_after_barrier", "verified", &[]),
            ("loop_head", "undecided", &[]),
            ("loop_head_fails", "failed", &["loop.invariant.preserved:60"]),
        ])
    );
    let report = json(&output);
    let unstated: Vec<u64> = warnings(&report)
        .into_iter()
        .filter(|(code, _)| code == "warning::unstated-claim")
        .map(|(_, line)| line)
        .collect();
    assert_eq!(unstated, [15, 20, 25, 55]);
    let run = |kernel: &str| lockstep(&["run", "--local_size=4", "--num_groups=2", "--kernel", kernel, file]);
    assert_eq!(run("uniform").status.code(), Some(0));
    assert_eq!(run("uniform_then_race").status.code(), Some(1));
}

/// A C variable declared without a value holds a value of its type (C's indeterminate value):
/// no proof and no counterexample meets an `int` beyond its range; a kernel's struct argument
/// with an array field is a private array of each thread.
#[test]
fn a_variable_without_a_value_holds_one_of_its_type() {
    let file = "frontend/tests/verify/indeterminate.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("in_type", "verified", &[]),
            ("sum", "failed", &["arith.overflow:18"]),
            ("copied", "failed", &["assert:33"]),
        ])
    );
    let report = json(&output);
    let sum = &report["files"][0]["kernels"][1]["obligations"];
    let failed = sum.as_array().unwrap().iter().find(|obligation| obligation["status"] == "failed").unwrap();
    for value in failed["counterexample"].as_array().unwrap() {
        if value["name"] == "x" || value["name"] == "y" {
            let value: i64 = value["value"].as_str().unwrap().parse().unwrap();
            assert!((i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&value), "{failed}");
        }
    }
}

/// A pointer field of structs in memory holds addresses that lockstep copies and stores but never
/// follows: each thread's own cell verifies, one cell for all races (in `verify` and `run`), a
/// stored pointer's index is read (and races where it is written), and following such a pointer is
/// refused by name.
#[test]
fn pointers_stored_in_structs_are_copied_not_followed() {
    let file = "frontend/tests/verify/stored_pointers.cl";
    assert_eq!(
        verdicts_of(file, &[]),
        expected(&[
            ("copy", "verified", &[]),
            ("store", "verified", &[]),
            ("racy_store", "failed", &["kernel.resources:18"]),
            ("store_read_index", "verified", &[]),
            ("store_racy_index", "failed", &["group.resources:29", "kernel.resources:29"]),
        ])
    );
    let run = lockstep(&["run", "--kernel", "racy_store", file]);
    assert_eq!(run.status.code(), Some(1));
    let source = "struct node { __global int *data; };\n__kernel void k(__global struct node *in, __global int *out) { out[0] = in[0].data[0]; }\n";
    let path = temporary("follow", "cl", source);
    let output = lockstep(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("a pointer read from memory"), "{output:?}");
}

/// OpenCL's `sincos(x, c)` and CUDA's `sincosf(x, s, c)` store through their pointers: at the
/// thread's own cell they verify, at one cell for all they race; `x` is evaluated once.
#[test]
fn sincos_stores_through_its_pointers() {
    assert_eq!(
        verdicts_of("frontend/tests/verify/sincos.cl", &[]),
        expected(&[
            ("own", "verified", &[]),
            ("racy", "failed", &["kernel.resources:8"]),
            ("own_cell", "verified", &[]),
        ])
    );
    assert_eq!(
        verdicts_of("frontend/tests/verify/sincos.cu", &[]),
        expected(
            &[("both", "verified", &[]), ("racy", "failed", &["kernel.resources:11"]), ("once", "verified", &[]),]
        )
    );
}

/// OpenCL's asynchronous copies: one unknown thread of the group moves the cells where the copy
/// starts and at its wait, so a read before the wait or without a barrier after it races, the
/// threads of a group must agree on the copy, and a copy still in flight at a barrier is not
/// taken as done. A copy in a loop is refused by name.
#[test]
fn async_copies_are_made_by_one_unknown_thread() {
    let launch = ["--local_size=8", "--num_groups=2", "--resource-limit", "2000000"];
    let mut verdicts = verdicts_of("frontend/tests/verify/async_copies.cl", &launch);
    // The copy no wait names makes the assertion before the barrier fail, which the solver
    // finds past the work limit: never verified.
    let (name, verdict, _) = verdicts.pop().expect("seven kernels");
    assert_eq!((name.as_str(), verdict.as_str()), ("one_of_two", "undecided"));
    assert_eq!(
        verdicts,
        expected(&[
            ("waited", "verified", &[]),
            ("unsynchronized", "failed", &["group.resources:18"]),
            ("barrier_before_wait", "failed", &["barrier.resources:28"]),
            ("divergent", "failed", &["barrier.divergence:34"]),
            ("between_groups", "failed", &["kernel.resources:44"]),
            ("joined", "verified", &[]),
        ])
    );
    let in_loop = "kernel void k(global int* p) {\n  local int l[8];\n  for (int i = 0; i < 2; i++) {\n    event_t e = async_work_group_copy(l, p, 8, 0);\n    wait_group_events(1, &e);\n  }\n}\n";
    let file = temporary("async_copy_in_loop", "cl", in_loop);
    let output = lockstep(&["check", file.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`async_work_group_copy` in a loop is not supported"), "{stderr}");
}

/// GPUVerify's specification functions: the precondition is checked where one is called, the
/// postcondition assumed, and the cells `__writes_to` and `__reads_from` name (those the
/// postcondition's `__write_implies` allows) are touched, so their races fail. Outside a
/// specification function, `__writes_to` is refused by name.
#[test]
fn spec_functions_touch_the_cells_they_name() {
    let launch = ["--local_size=8", "--num_groups=2", "--resource-limit", "2000000"];
    assert_eq!(
        verdicts_of("frontend/tests/verify/spec_functions.cl", &launch),
        expected(&[
            ("own", "verified", &[]),
            ("unmet", "failed", &["assert:6"]),
            ("scribbled", "failed", &["group.resources:27"]),
            ("peeked", "failed", &["group.resources:44", "kernel.resources:44"]),
        ])
    );
    let stray = "void f(__global int* p) { __writes_to(p); }\n__kernel void k(__global int* a) { f(a); }\n";
    let file = temporary("writes_to_outside_a_spec", "cl", stray);
    let output = lockstep(&["check", file.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`__writes_to` outside a specification function is not supported"), "{stderr}");
}

/// OpenCL's images: a write touches its pixel's cell, so one pixel written by several threads
/// races, as does a read in the color; an image read gives any value. A `read_write` image is
/// refused by name.
#[test]
fn image_writes_touch_their_pixels() {
    assert_eq!(
        verdicts_of("frontend/tests/verify/images.cl", &["--local_size=[4,4]", "--num_groups=[2,2]"]),
        expected(&[
            ("copy", "verified", &[]),
            ("one_column", "failed", &["group.resources:13", "kernel.resources:13"]),
            ("racy_color", "failed", &["group.resources:20", "kernel.resources:20"]),
            ("texels", "verified", &[]),
        ])
    );
    let both = "__kernel void k(__read_write image2d_t i) { }\n";
    let file = temporary("read_write_image", "cl", both);
    let output = lockstep(&["check", file.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("a `read_write` image is not supported"), "{stderr}");
}

/// A pointer variable into arrays of vectors indexes vectors: each thread's own vector
/// through it verifies, and one vector further races with the array's own index.
#[test]
fn pointers_into_arrays_of_vectors_index_vectors() {
    assert_eq!(
        verdicts_of("frontend/tests/verify/vector_pointers.cl", &["--local_size=8", "--num_groups=4"]),
        expected(&[("own", "verified", &[]), ("racy", "failed", &["group.resources:12", "kernel.resources:12"]),])
    );
}

/// GPUVerify's `__ptr_offset_bytes(p)` counts bytes from the start of `p`'s array, through a
/// helper's parameter and a pointer variable.
#[test]
fn pointer_offsets_count_bytes() {
    assert_eq!(
        verdicts_of("frontend/tests/verify/ptr_offset.cl", &["--local_size=8", "--num_groups=2"]),
        expected(&[("bytes", "verified", &[]), ("elements", "failed", &["assert:4"])])
    );
}

/// GPUVerify's barrier invariants are the next barrier's contract: a neighbour's cell is known
/// after the barrier (without the invariant, where inference finds the value written), a false
/// invariant fails where the barrier is reached, and an instantiation that names no thread of the
/// group is not proved.
#[test]
fn gpuverify_barrier_invariants_are_barrier_contracts() {
    let file = "frontend/tests/verify/barrier_invariants.cl";
    let output = lockstep(&["verify", "--local_size=8", "--num_groups=2", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("neighbour", "verified", &[]),
            ("neighbour_inferred", "verified", &[]),
            ("false_invariant", "failed", &["barrier.pre:28"]),
            ("beyond_the_group", "failed", &["barrier.functional:37"]),
            ("conditional", "verified", &[]),
            ("left_out", "verified", &[]),
            ("index_from_invariant", "verified", &[]),
        ])
    );
    let warnings = warnings(&json(&output));
    assert_eq!(warnings, [("warning::left-out".to_string(), 61), ("warning::left-out".to_string(), 63)]);
}

/// Candidate loop invariants are kept where they hold and dropped where not, where permissions
/// are inferred; `--invariants-as-candidates` makes every written one a candidate.
#[test]
fn candidate_invariants_are_kept_where_they_hold() {
    let file = "frontend/tests/verify/candidates.cl";
    let launch = ["verify", "--local_size=64", "--num_groups=2", "--format", "json"];
    let output = lockstep(&[&launch[..], &[file]].concat());
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("kept_and_dropped", "verified", &[]),
            ("no_candidate", "failed", &["assert:22"]),
            ("function_wide", "verified", &[]),
            ("function_wide_checked", "failed", &["loop.invariant.preserved:44"]),
            ("written", "failed", &["loop.invariant.entry:49"]),
        ])
    );
    let output = lockstep(&[&launch[..], &["--invariants-as-candidates", file]].concat());
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("kept_and_dropped", "verified", &[]),
            ("no_candidate", "failed", &["assert:22"]),
            ("function_wide", "verified", &[]),
            ("function_wide_checked", "verified", &[]),
            ("written", "verified", &[]),
        ])
    );
}

/// A call of a function declared without a body gives an arbitrary value after evaluating its
/// arguments (their reads are checked); memory fences change nothing.
#[test]
fn functions_without_a_body_give_arbitrary_values() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/prototypes.cl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("undefined_result", "failed", &["assert:9"]),
            ("arguments_are_evaluated", "failed", &["access.read:16"]),
            ("fenced", "verified", &[]),
        ])
    );
}

/// `break`, `continue` and `do ... while` mean what C means: `verify` proves the kernels that
/// state what C computes, and fails the one that does not, where a run finds the same.
#[test]
fn c_loops_break_continue_and_run_their_body_first() {
    let file = "frontend/tests/verify/jumps.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("break_skips_the_step", "verified", &[]),
            ("continue_runs_the_step", "verified", &[]),
            ("break_leaves_the_inner_loop", "verified", &[]),
            ("do_runs_its_body_first", "verified", &[]),
            ("break_does_not_count_its_iteration", "failed", &["thread.post:64"]),
        ])
    );
    let run = lockstep(&["run", "--gsize", "2", "--groups", "2", "--format", "json", file]);
    let results: Vec<String> = json(&run)["files"][0]["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|kernel| format!("{} {}", kernel["name"].as_str().unwrap(), kernel["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        results,
        [
            "break_skips_the_step clean",
            "continue_runs_the_step clean",
            "break_leaves_the_inner_loop clean",
            "do_runs_its_body_first clean",
            "break_does_not_count_its_iteration bug",
        ]
    );
}

/// `add_sat` and `sub_sat` clamp the exact result to the type, under `verify` and `run` alike.
#[test]
fn saturating_arithmetic_clamps() {
    let file = "frontend/tests/verify/saturate.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(failures_by_kernel(&output), expected(&[("clamps", "failed", &["assert:11"])]));
    let run = lockstep(&["run", "--gsize", "1", "--groups", "1", "--param", "x=0", "--format", "json", file]);
    let kernel = &json(&run)["files"][0]["kernels"][0];
    assert_eq!(kernel["result"], "bug", "{kernel}");
    assert_eq!(kernel["finding"]["line"], 11, "{kernel}");
}

#[test]
fn bool_arrays_hold_one_or_zero() {
    let file = "frontend/tests/verify/bools.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[("parity", "verified", &[]), ("either", "failed", &["assert:20"])])
    );
    let run = lockstep(&["run", "--gsize", "2", "--groups", "1", "--kernel", "either", "--format", "json", file]);
    let report = &json(&run)["files"][0]["kernels"][0];
    assert_eq!((&report["result"], &report["finding"]["line"]), (&"bug".into(), &20.into()), "{report}");
}

/// GPUVerify's access logs: a read or write may be logged, a barrier empties the logs of the
/// memories it fences, and a helper's precondition over them is checked at the call.
#[test]
fn access_logs_hold_some_access_since_the_barrier() {
    let file = "frontend/tests/verify/access_logs.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("copy", "verified", &[]),
            ("barrier_empties", "failed", &["assert:27"]),
            ("some_access", "failed", &["assert:38"]),
            ("read_before_call", "failed", &["assert:43"]),
        ])
    );
    // `run` logs every access: it meets the same failures, except where only an earlier
    // access's offset breaks the assertion (`some_access`).
    runs_find(file, &[("copy", None), ("barrier_empties", Some(27)), ("read_before_call", Some(43))]);
}

/// `lockstep run` of each kernel of `file` on 2 groups of 2 threads finds a bug on the line
/// given, or none.
fn runs_find(file: &str, findings: &[(&str, Option<u32>)]) {
    for (kernel, finding) in findings {
        let run = lockstep(&["run", "--gsize", "2", "--groups", "2", "--kernel", kernel, "--format", "json", file]);
        let report = &json(&run)["files"][0]["kernels"][0];
        match finding {
            Some(line) => {
                assert_eq!(report["result"], "bug", "{kernel}: {report}");
                assert_eq!(report["finding"]["line"], *line, "{kernel}: {report}");
            }
            None => assert_eq!(report["result"], "clean", "{kernel}: {report}"),
        }
    }
}

/// A `return` inside a loop stops the loop and skips the code after it, in kernels and helpers;
/// `\returned` lets the loop's invariants say so.
#[test]
fn returns_inside_loops_leave_the_function() {
    let file = "frontend/tests/verify/returns.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("early_exit", "verified", &[]),
            ("write_after_loop", "failed", &["access.write:42"]),
            ("barrier_after_return", "failed", &["barrier.divergence:52"]),
            ("helper_return", "verified", &[]),
        ])
    );
    runs_find(
        file,
        &[
            ("early_exit", None),
            ("write_after_loop", Some(42)),
            ("barrier_after_return", Some(52)),
            ("helper_return", None),
        ],
    );
}

/// OpenCL shifts by a variable amount modulo the width; a signed left shift past the type
/// overflows.
#[test]
fn shifts_by_variable_amounts_are_opencl_s() {
    let file = "frontend/tests/verify/shifts.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[("amounts", "verified", &[]), ("overflow", "failed", &["arith.overflow:26"])])
    );
    let run = lockstep(&["run", "--kernel", "overflow", "--param", "s=31", "--format", "json", file]);
    let report = &json(&run)["files"][0]["kernels"][0];
    assert_eq!((&report["result"], &report["finding"]["line"]), (&"bug".into(), &26.into()), "{report}");
}

/// `\old(e)` in a helper's contract is `e` where the call starts, not where the kernel does.
#[test]
fn old_values_in_helpers_are_the_call_s() {
    let file = "frontend/tests/verify/olds.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("twice", "verified", &[]),
            ("wrong", "failed", &["assert:24"]),
            ("gpuverify_old", "verified", &[])
        ])
    );
    runs_find(file, &[("twice", None), ("wrong", Some(24)), ("gpuverify_old", None)]);
}

/// Private arrays and scalars whose address is taken: their cells are private variables, an index
/// outside the array fails `access.bounds`, and a helper writes through a pointer.
#[test]
fn private_arrays_are_a_variable_per_cell() {
    let file = "frontend/tests/verify/private.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("tables", "verified", &[]),
            ("out_of_bounds", "failed", &["access.bounds:16"]),
            ("through_pointers", "verified", &[]),
            ("written_through_pointer", "failed", &["assert:43"]),
            ("counts", "verified", &[]),
            ("rows", "verified", &[]),
            ("elided_braces", "verified", &[]),
        ])
    );
    runs_find(
        file,
        &[
            ("tables", None),
            ("out_of_bounds", Some(16)),
            ("through_pointers", None),
            ("written_through_pointer", Some(43)),
            ("counts", None),
            ("rows", None),
            ("elided_braces", None),
        ],
    );
}

/// `&`, `|` and `^` of any integers are exact, bit by bit: verify and run agree.
#[test]
fn bitwise_operators_are_exact() {
    let file = "frontend/tests/verify/bits.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[("exact", "verified", &[]), ("partners", "verified", &[]), ("wrong", "failed", &["assert:34"])])
    );
    runs_find(file, &[("exact", None), ("partners", None), ("wrong", Some(34))]);
}

/// Pointer variables that may point into several arrays or be `NULL`: an access through one is
/// one case per array, and one through `NULL` fails `access.bounds`.
#[test]
fn pointers_may_point_into_several_arrays_or_none() {
    let file = "frontend/tests/verify/pointer_targets.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("choose", "verified", &[]),
            ("null_store", "failed", &["access.bounds:23"]),
            ("compare", "verified", &[]),
            ("private_choice", "verified", &[]),
            ("wrong_choice", "failed", &["assert:62"]),
            ("returned", "verified", &[]),
            ("maybe_null", "failed", &["access.bounds:91"]),
        ])
    );
    runs_find(
        file,
        &[
            ("choose", None),
            ("null_store", Some(23)),
            ("compare", None),
            ("private_choice", None),
            ("wrong_choice", Some(62)),
            ("returned", None),
            ("maybe_null", Some(91)),
        ],
    );
}

/// A barrier whose flags are a variable fences no memory, with a warning: a write before it and
/// a read after it are a stale read, which constant flags order.
#[test]
fn a_barrier_whose_flags_are_a_variable_fences_nothing() {
    let file = "frontend/tests/verify/variable_flags.cl";
    let checked = json(&lockstep(&["check", "--format", "json", file]));
    let warnings = &checked["files"][0]["warnings"];
    assert_eq!(warnings[0]["code"], "warning::variable-flags", "{checked}");
    assert_eq!(warnings[0]["line"], 8, "{checked}");
    runs_find(file, &[("variable_flags", Some(9)), ("constant_flags", None)]);
}

/// File-scope `__constant` arrays and variables: every kernel and helper reads them.
#[test]
fn constant_memory_is_read_by_every_thread() {
    let file = "frontend/tests/verify/constants.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[("tables", "verified", &[]), ("outside", "failed", &["access.bounds:18"])])
    );
    runs_find(file, &[("tables", None), ("outside", Some(18))]);
}

/// Structs and `typedef`s: a struct variable is a variable per field, an array of structs an
/// array per field, so fields are raced on, bounded and permitted apart; verify and run agree.
#[test]
fn structs_are_their_fields() {
    let file = "frontend/tests/verify/structs.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("bump", "verified", &[]),
            ("swap_pairs", "verified", &[]),
            ("by_value", "verified", &[]),
            ("wrong_field", "failed", &["assert:66"]),
            ("neighbours", "verified", &[]),
            // It names no permission: with the inferred ones, every thread's write of
            // `pairs[3].second` claims the cell whole, in every group.
            ("field_race", "failed", &["kernel.resources:92"]),
            ("other_field", "failed", &["access.write:100"]),
        ])
    );
    runs_find(
        file,
        &[
            ("bump", None),
            ("swap_pairs", None),
            ("by_value", None),
            ("wrong_field", Some(66)),
            ("neighbours", None),
            ("field_race", Some(92)),
            ("other_field", Some(100)),
        ],
    );
}

/// `verify` infers the permissions of kernels that name none, in OpenCL, CUDA and PVL: the clean
/// ones verify, the racy ones fail a resource check at the racing access, and a concrete run
/// agrees. With `--no-infer` none of them verifies (no permission is held).
#[test]
fn inferred_permissions_prove_race_freedom() {
    let expectations: [(&str, &[Expectation]); 3] = [
        (
            "frontend/tests/verify/inferred.cl",
            &[
                ("copy", "verified", &[]),
                ("one_cell", "failed", &["kernel.resources:9"]),
                ("rotate", "verified", &[]),
                ("rotate_unsynced", "failed", &["group.resources:23"]),
                ("guarded_first", "verified", &[]),
                ("strided", "verified", &[]),
                ("strided_overlap", "failed", &["group.resources:41"]),
            ],
        ),
        (
            "frontend/tests/verify/inferred.cu",
            &[("reverse", "verified", &[]), ("reverse_unsynced", "failed", &["group.resources:14"])],
        ),
        (
            "frontend/tests/verify/inferred.pvl",
            &[("shift", "verified", &[]), ("shift_in_place", "failed", &["group.resources:16", "kernel.resources:16"])],
        ),
    ];
    for (file, kernels) in expectations {
        let output = lockstep(&["verify", "--gsize", "64", "--format", "json", file]);
        assert_eq!(failures_by_kernel(&output), expected(kernels), "{file}");
        let without = lockstep(&["verify", "--no-infer", "--gsize", "64", "--format", "json", file]);
        let verdicts = failures_by_kernel(&without);
        assert!(verdicts.iter().all(|(_, verdict, _)| verdict != "verified"), "{file}: {verdicts:?}");
    }
    let file = "frontend/tests/verify/inferred.cl";
    for (kernel, racy) in [("copy", false), ("one_cell", true), ("rotate", false), ("rotate_unsynced", true)] {
        let run = lockstep(&["run", "--gsize", "64", "--groups", "2", "--kernel", kernel, "--format", "json", file]);
        let report = &json(&run)["files"][0]["kernels"][0];
        let expected = if racy { "bug" } else { "clean" };
        assert_eq!(report["result"], expected, "{kernel}: {report}");
    }
    let infer = String::from_utf8_lossy(&lockstep(&["infer", file]).stdout).into_owned();
    assert!(infer.contains("requires (\\forall* int"), "{infer}");
    // A strided loop's cells over the cell, not the iteration count: `l <= j`, not `0 <= (j - l) / 64`.
    let pinned = String::from_utf8_lossy(&lockstep(&["infer", "--gsize", "64", file]).stdout).into_owned();
    assert!(pinned.contains("(get_local_id(0) <= j"), "{pinned}");
    assert!(!pinned.contains("(0 <= ((j"), "{pinned}");
}

/// Unannotated kernels of the three languages, clean and racy, with and without loops and
/// barriers, in several groups: each verdict (with `--gsize 64`, any number of groups) and failing
/// line holds, and a concrete run of two groups agrees: a clean kernel runs clean, and a failing
/// one's run finds its bug (race, stale read or divergence) on the line verification names.
#[test]
fn unannotated_kernels_hold_their_verdicts() {
    let expectations: [(&str, &[Expectation]); 4] = [
        (
            "frontend/tests/verify/unannotated.cl",
            &[
                ("vector_add", "verified", &[]),
                ("guarded_add", "verified", &[]),
                ("group_leader", "verified", &[]),
                ("group_all_write", "failed", &["group.resources:23"]),
                ("same_cell_each_group", "failed", &["kernel.resources:27"]),
                ("neighbour_after_barrier", "verified", &[]),
                ("wrong_fence", "failed", &["barrier.resources:42"]),
                ("barrier_loop", "verified", &[]),
                ("barrier_loop_missing_barrier", "failed", &["barrier.resources:58"]),
                ("divergent", "failed", &["barrier.divergence:66"]),
                ("uniform_branch", "verified", &[]),
                ("per_thread_chunk", "verified", &[]),
                ("overlapping_chunk", "failed", &["group.resources:87", "kernel.resources:87"]),
                ("copy_nonnegative", "verified", &[]),
                ("uniform_return", "verified", &[]),
                ("scatter_permutation", "verified", &[]),
                ("scatter_anywhere", "failed", &["group.resources:124", "kernel.resources:124"]),
            ],
        ),
        (
            "frontend/tests/verify/unannotated_vectors.cl",
            &[("vector_round", "verified", &[]), ("vector_same_cell_each_group", "failed", &["kernel.resources:13"])],
        ),
        (
            "frontend/tests/verify/unannotated.cu",
            &[
                ("saxpy", "verified", &[]),
                ("histogram", "failed", &["group.resources:13", "kernel.resources:13"]),
                ("block_sum", "verified", &[]),
                ("block_sum_unsynced", "failed", &["group.resources:31"]),
                ("shift_left", "verified", &[]),
                ("divergent_sync", "failed", &["barrier.divergence:52"]),
                ("grid_offset_race", "failed", &["kernel.resources:57"]),
                ("block_reduce", "verified", &[]),
                ("clamp", "verified", &[]),
                ("histogram_atomic", "verified", &[]),
                (
                    "histogram_atomic_read_back",
                    "failed",
                    &["group.resources:92", "group.resources:92", "kernel.resources:92", "kernel.resources:92"],
                ),
            ],
        ),
        (
            "frontend/tests/verify/unannotated.pvl",
            &[
                ("zero", "verified", &[]),
                ("last_wins", "failed", &["kernel.resources:14"]),
                ("chunks", "verified", &[]),
                ("overlapping_chunks", "failed", &["group.resources:34", "kernel.resources:34"]),
                ("local_swap", "verified", &[]),
                ("local_swap_unsynced", "failed", &["group.resources:54"]),
                ("divergent", "failed", &["barrier.divergence:63"]),
                ("per_group", "failed", &["kernel.resources:71"]),
                ("copy_nonnegative", "verified", &[]),
                ("tree_sum", "verified", &[]),
                ("doubling_scan", "verified", &[]),
                ("neighbour_in_group", "verified", &[]),
                ("leader_broadcast", "verified", &[]),
                ("neighbour_in_group_local_fence", "failed", &["barrier.resources:154"]),
                ("facts_on_neighbours", "verified", &[]),
                ("read_back_after_loop", "verified", &[]),
                ("rows_each_round", "verified", &[]),
                ("rows_each_round_overlapping", "failed", &["group.resources:202", "kernel.resources:202"]),
                ("alternating_rounds", "verified", &[]),
                ("tree_sum_any_size", "verified", &[]),
                ("index_from_barrier_fact", "verified", &[]),
                ("tree_sum_in_place", "verified", &[]),
                ("tree_sum_in_place_unguarded", "failed", &["barrier.resources:290"]),
            ],
        ),
    ];
    for (file, kernels) in expectations {
        let output = lockstep(&["verify", "--gsize", "64", "--format", "json", file]);
        assert_eq!(failures_by_kernel(&output), expected(kernels), "{file}");
        for (kernel, _, failures) in kernels {
            let mut arguments = vec!["run", "--gsize", "64", "--groups", "2", "--kernel", kernel, "--format", "json"];
            // Four cells per thread: the run's arrays, whose length the kernel does not state,
            // get that many.
            if *kernel == "per_thread_chunk" {
                arguments.extend(["--param", "\\pointer_length(in)=512", "--param", "\\pointer_length(out)=512"]);
            }
            // A permutation, as the precondition asks.
            if *kernel == "scatter_permutation" {
                arguments.extend(["--init", "perm=iota"]);
            }
            arguments.push(file);
            let report = &json(&lockstep(&arguments))["files"][0]["kernels"][0];
            match failures.first() {
                Some(failure) => {
                    let line: u64 = failure.rsplit(':').next().and_then(|line| line.parse().ok()).unwrap();
                    assert_eq!(report["result"], "bug", "{file} {kernel}: {report}");
                    assert_eq!(report["finding"]["line"], line, "{file} {kernel}: {report}");
                }
                None => assert_eq!(report["result"], "clean", "{file} {kernel}: {report}"),
            }
        }
    }
}

/// A barrier hands over values too: inference proposes, as candidates it checks, what each thread
/// wrote before a barrier and what the threads read after it, so that the arithmetic on a tile or
/// a broadcast factor is proved inside `int`, and what the launch says of a cell nothing wrote
/// still holds after the first barrier. Where no thread wrote the cell read, or the thread
/// overwrote it, no candidate holds and the check fails.
#[test]
fn values_written_before_a_barrier_are_known_after_it() {
    let expectations: [(&str, &[Expectation]); 2] = [
        (
            "frontend/tests/verify/barrier_values.cl",
            &[
                ("tile_sum", "verified", &[]),
                ("tile_sum_even_filled", "failed", &["arith.overflow:38"]),
                ("launch_fact_after_barrier", "verified", &[]),
                ("launch_fact_overwritten", "failed", &["assert:66"]),
            ],
        ),
        (
            "frontend/tests/verify/barrier_values.cu",
            &[("broadcast_scale", "verified", &[]), ("broadcast_scale_half_loaded", "failed", &["arith.overflow:40"])],
        ),
    ];
    for (file, kernels) in expectations {
        let output = lockstep(&["verify", "--gsize", "64", "--format", "json", file]);
        assert_eq!(failures_by_kernel(&output), expected(kernels), "{file}");
        let infer = lockstep(&["infer", "--gsize", "64", file]);
        let annotated = String::from_utf8(infer.stdout).unwrap();
        assert!(annotated.contains("== \\old("), "{file}: {annotated}");
    }
}

/// A loop of barriers computes its values round by round (a tree sum, rows of Pascal's triangle):
/// inference bounds them a round at a time, as candidates it checks, so that signed sums are
/// proved inside `int`, and a thread keeps its own cell through a round in which only it may touch
/// it, so that its value is still known at the next barrier. Where the values do outgrow `int`, no
/// candidate hides it. The inferred contracts verify pasted back.
#[test]
fn values_computed_round_by_round_are_bounded() {
    let expectations: [(&str, &[Expectation]); 2] = [
        (
            "frontend/tests/verify/round_values.cl",
            &[
                ("tree_sum_of_ones", "verified", &[]),
                ("tree_sum_of_small_inputs", "verified", &[]),
                ("tree_sum_overflows", "failed", &["arith.overflow:62"]),
                ("pascal_rows", "verified", &[]),
                ("pascal_rows_overflow", "failed", &["arith.overflow:113"]),
            ],
        ),
        (
            "frontend/tests/verify/round_values.cu",
            &[("block_sum", "verified", &[]), ("block_sum_of_large_inputs", "failed", &["arith.overflow:40"])],
        ),
    ];
    let dir = std::env::temp_dir().join(format!("lockstep-rounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, kernels) in expectations {
        let output = lockstep(&["verify", "--format", "json", file]);
        assert_eq!(failures_by_kernel(&output), expected(kernels), "{file}");
        let infer = lockstep(&["infer", file]);
        let annotated = String::from_utf8(infer.stdout).unwrap();
        assert!(annotated.contains(" == 32) ==> ") || annotated.contains(" == 64) ==> "), "{file}: {annotated}");
        let pasted = dir.join(file.rsplit('/').next().unwrap());
        std::fs::write(&pasted, &annotated).unwrap();
        let as_written = lockstep(&["verify", "--no-infer", "--format", "json", pasted.to_str().unwrap()]);
        assert_eq!(verdicts(&as_written), verdicts(&output), "{file}:\n{annotated}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `lockstep infer` prints the file with the inferred contracts written in, in its own language;
/// pasted back, they verify as written (`--no-infer`: nothing is inferred again) to the same
/// verdicts, kernel by kernel, as the unannotated file.
#[test]
fn inferred_contracts_verify_when_pasted_back() {
    let dir = std::env::temp_dir().join(format!("lockstep-pasted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        "unannotated.cl",
        "unannotated_vectors.cl",
        "unannotated.cu",
        "unannotated.pvl",
        "barrier_values.cl",
        "barrier_values.cu",
        "inferred.cl",
        "inferred.cu",
        "inferred.pvl",
    ];
    for name in files {
        let file = format!("frontend/tests/verify/{name}");
        let infer = lockstep(&["infer", "--gsize", "64", &file]);
        assert_eq!(infer.status.code(), Some(0), "{}", String::from_utf8_lossy(&infer.stderr));
        let annotated = String::from_utf8(infer.stdout).unwrap();
        assert!(annotated.contains("Perm("), "{name}: {annotated}");
        let pasted = dir.join(name);
        std::fs::write(&pasted, &annotated).unwrap();
        let unannotated = verdicts(&lockstep(&["verify", "--gsize", "64", "--format", "json", &file]));
        let as_written = verdicts(&lockstep(&[
            "verify",
            "--no-infer",
            "--gsize",
            "64",
            "--format",
            "json",
            pasted.to_str().unwrap(),
        ]));
        assert_eq!(as_written, unannotated, "{name}:\n{annotated}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// In C, the inferred clauses of a kernel whose comment holds facts only join that comment, after
/// its clauses: a second comment before the kernel would belong to nothing.
#[test]
fn inferred_clauses_join_the_written_comment() {
    let infer = lockstep(&["infer", "frontend/tests/verify/unannotated.cu"]);
    let annotated = String::from_utf8(infer.stdout).unwrap();
    assert!(annotated.contains("requires lo <= hi;\n  requires ((((blockIdx.x"), "{annotated}");
    assert!(!annotated.contains("@*/\n/*@"), "{annotated}");
    let pasted = std::env::temp_dir().join(format!("lockstep-joined-{}.cu", std::process::id()));
    std::fs::write(&pasted, &annotated).unwrap();
    let output = lockstep(&["verify", "--no-infer", "--format", "json", pasted.to_str().unwrap()]);
    std::fs::remove_file(&pasted).unwrap();
    let verdicts = failures_by_kernel(&output);
    assert!(verdicts.iter().any(|(kernel, verdict, _)| kernel == "clamp" && verdict == "verified"), "{verdicts:?}");
}

/// OpenCL C files follow OpenCL's memory model unless told otherwise: a read before a barrier
/// that does not fence its memory races with another thread's write after it, in `verify` and
/// in `run`; under `--memory-model seed` it does not.
#[test]
fn opencl_files_follow_opencl_memory_model() {
    let file = "frontend/tests/verify/read_then_write_unfenced.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(failures_by_kernel(&output), expected(&[("read_then_write", "failed", &["barrier.resources:8"])]));
    let seed = lockstep(&["verify", "--memory-model", "seed", "--format", "json", file]);
    assert_eq!(failures_by_kernel(&seed), expected(&[("read_then_write", "verified", &[])]));
    assert_eq!(lockstep(&["run", "--gsize", "4", file]).status.code(), Some(1));
    assert_eq!(lockstep(&["run", "--gsize", "4", "--memory-model", "seed", file]).status.code(), Some(0));
}

/// Benign races race by default, as in the seed's semantics (and `run` shows them); with
/// `--benign-races`, GPUVerify's default, a write of one value that every thread of a group or
/// every group makes alike is the first thread's only, and only such writes are accepted: a write
/// of the thread's id, a read back of the shared cell, a copy from uninitialised local memory, two
/// values in one interval, a value that changes in a loop, a read by the first thread in the
/// interval, a read in the interval before behind a barrier that does not fence the cell, and a
/// read in another group (which no barrier orders) still fail.
#[test]
fn benign_races_are_accepted_on_request() {
    let file = "frontend/tests/verify/benign.cl";
    assert_eq!(
        verdicts_of(file, &["--gsize", "64"]),
        expected(&[
            ("clear_flag", "failed", &["kernel.resources:7"]),
            ("same_row_each_group", "failed", &["kernel.resources:12"]),
            ("copy_first", "failed", &["group.resources:18"]),
            ("own_id", "failed", &["kernel.resources:25"]),
            ("read_back", "failed", &["kernel.resources:30"]),
            ("copy_uninitialised", "failed", &["group.resources:37"]),
            ("two_values", "failed", &["kernel.resources:43"]),
            ("loop_values", "failed", &["kernel.resources:49"]),
            ("first_reads", "failed", &["kernel.resources:59"]),
            ("clear_after_reading", "failed", &["barrier.resources:68"]),
            ("clear_after_reading_unfenced", "failed", &["barrier.resources:75", "barrier.resources:75"]),
            ("first_group_reads_row", "failed", &["kernel.resources:86"]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--gsize", "64", "--benign-races"]),
        expected(&[
            ("clear_flag", "verified", &[]),
            ("same_row_each_group", "verified", &[]),
            ("copy_first", "verified", &[]),
            ("own_id", "failed", &["group.resources:25"]),
            ("read_back", "failed", &["kernel.resources:30"]),
            ("copy_uninitialised", "failed", &["group.resources:37"]),
            ("two_values", "failed", &["kernel.resources:43"]),
            ("loop_values", "failed", &["kernel.resources:49"]),
            ("first_reads", "failed", &["kernel.resources:59"]),
            ("clear_after_reading", "verified", &[]),
            ("clear_after_reading_unfenced", "failed", &["barrier.resources:75", "barrier.resources:75"]),
            ("first_group_reads_row", "failed", &["kernel.resources:86"]),
        ])
    );
    let run = lockstep(&["run", "--gsize", "4", "--groups", "2", "--kernel", "clear_flag", file]);
    let shown = String::from_utf8_lossy(&run.stderr);
    assert!(shown.contains("data race on `flag[0]`"), "{shown}");
}

/// Increments of a counter that nothing else touches, each at most once per thread, return
/// distinct values (GPUVerify's refined atomic abstraction): among all threads for a counter in
/// global memory, among the group's for one in local memory, also after one thread resets it
/// before a barrier that fences local memory. A counter also updated otherwise, incremented in a
/// loop, or read after the increments, returns any value; `run` hands the values out in the order the threads
/// take them, as the atomics would.
#[test]
fn counters_hand_out_distinct_values() {
    let file = "frontend/tests/verify/counters.cl";
    assert_eq!(
        verdicts_of(file, &[]),
        expected(&[
            ("slots", "verified", &[]),
            ("two_slots", "verified", &[]),
            ("local_counter_global_slots", "failed", &["kernel.resources:20"]),
            ("local_counter_local_slots", "verified", &[]),
            ("counter_per_group", "verified", &[]),
            ("counter_per_group_wrapping", "failed", &["kernel.resources:40"]),
            ("next_slot_too", "failed", &["group.resources:47", "kernel.resources:47"]),
            ("in_loop", "failed", &["kernel.resources:54"]),
            ("decremented_too", "failed", &["kernel.resources:62"]),
            ("fixed_slot_for_one", "failed", &["group.resources:71", "kernel.resources:71"]),
            ("reset_then_count", "verified", &[]),
            ("reset_while_counting", "failed", &["group.resources:91", "group.resources:91"]),
            ("reset_unfenced", "failed", &["barrier.resources:101", "barrier.resources:101", "barrier.resources:101"],),
            (
                "count_read_back",
                "failed",
                &[
                    "barrier.resources:111",
                    "group.resources:113",
                    "barrier.resources:113",
                    "barrier.resources:113",
                    "barrier.resources:111",
                ],
            ),
            (
                "global_reset",
                "failed",
                &[
                    "group.resources:122",
                    "group.resources:119",
                    "kernel.resources:122",
                    "kernel.resources:119",
                    "barrier.resources:122",
                    "kernel.resources:122",
                    "barrier.resources:122",
                ],
            ),
        ])
    );
    assert_eq!(
        verdicts_of("frontend/tests/verify/counters.cu", &[]),
        expected(&[("slots", "verified", &[]), ("by_two", "failed", &["kernel.resources:11"])])
    );
    runs_find(
        file,
        &[
            ("slots", None),
            ("local_counter_global_slots", Some(20)),
            ("local_counter_local_slots", None),
            ("counter_per_group", None),
            ("next_slot_too", Some(46)),
            ("reset_then_count", None),
            ("reset_while_counting", Some(91)),
            ("reset_unfenced", Some(101)),
            ("global_reset", Some(122)),
        ],
    );
}

/// `--kernel-args K,v1,...` (GPUVerify's) verifies kernel `K` only for those values of its scalar
/// parameters: a struct's or vector's value is its bytes, little endian, each field at its natural
/// alignment; `*` leaves one free; the file's other kernels are verified as ever. Values that do
/// not fit the kernel are refused with `launch::kernel-args`.
#[test]
fn kernel_arguments_restrict_one_kernel() {
    let file = "frontend/tests/verify/kernel_args.cl";
    let unrestricted = [
        ("branch", "failed", &["group.resources:12"][..]),
        ("fields", "failed", &["assert:18", "assert:19"][..]),
        ("aligned", "failed", &["assert:24", "assert:25"][..]),
        ("components", "failed", &["assert:30", "assert:31"][..]),
    ];
    assert_eq!(verdicts_of(file, &[]), expected(&unrestricted));
    let given = [
        ("branch,3", 0),
        ("fields,0x0000000400000003", 1),
        ("aligned,0x0000000200000001", 2),
        ("components,0xFFFFFFFF00000005,7", 3),
    ];
    for (values, verified) in given {
        let mut verdicts = unrestricted;
        verdicts[verified] = (verdicts[verified].0, "verified", &[]);
        assert_eq!(verdicts_of(file, &["--kernel-args", values]), expected(&verdicts), "{values}");
    }
    let mut free_vector = unrestricted;
    free_vector[3] = ("components", "failed", &["assert:30"]);
    assert_eq!(verdicts_of(file, &["--kernel-args", "components,*,7"]), expected(&free_vector));
    let pvl = "frontend/tests/verify/kernel_args.pvl";
    assert_eq!(verdicts_of(pvl, &["--kernel-args", "branch,2,1"]), expected(&[("branch", "verified", &[])]));
    assert_eq!(verdicts_of(pvl, &["--kernel-args", "branch,2,0"])[0].1, "failed");
    for (values, message) in [("branch,3,4", "gives 2 values"), ("nothing,3", "which the file does not have")] {
        let output = lockstep(&["verify", "--kernel-args", values, file]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("launch::kernel-args") && stderr.contains(message), "{stderr}");
    }
}

/// `--only-intra-group` leaves races between groups unchecked, `--only-divergence` everything but
/// barrier divergence, and `--no-race-checks` every race; what is left unchecked is reported so (`not checked`, with the reason),
/// never verified, and every other obligation is decided as without the flag.
#[test]
fn fewer_checks_on_request() {
    let file = "frontend/tests/verify/checks.cl";
    assert_eq!(
        verdicts_of(file, &["--gsize", "64"]),
        expected(&[
            ("between_groups", "failed", &["kernel.resources:5"]),
            ("inside_group", "failed", &["group.resources:10"]),
            ("racy_not_divergent", "failed", &["kernel.resources:17", "barrier.resources:17"]),
            ("divergent", "failed", &["barrier.divergence:24"]),
            ("false_assertion", "failed", &["assert:32"]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--gsize", "64", "--only-intra-group"]),
        expected(&[
            ("between_groups", "verified", &[]),
            ("inside_group", "failed", &["group.resources:10"]),
            ("racy_not_divergent", "failed", &["barrier.resources:17"]),
            ("divergent", "failed", &["barrier.divergence:24"]),
            ("false_assertion", "failed", &["assert:32"]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--gsize", "64", "--only-divergence"]),
        expected(&[
            ("between_groups", "verified", &[]),
            ("inside_group", "verified", &[]),
            ("racy_not_divergent", "verified", &[]),
            ("divergent", "failed", &["barrier.divergence:24"]),
            ("false_assertion", "verified", &[]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--gsize", "64", "--no-race-checks"]),
        expected(&[
            ("between_groups", "verified", &[]),
            ("inside_group", "verified", &[]),
            ("racy_not_divergent", "verified", &[]),
            ("divergent", "failed", &["barrier.divergence:24"]),
            ("false_assertion", "failed", &["assert:32"]),
        ])
    );
    let report = json(&lockstep(&["verify", "--format", "json", "--gsize", "64", "--only-intra-group", file]));
    let between_groups = &report["files"][0]["kernels"][0];
    assert_eq!(with_status(between_groups, "not checked"), ["kernel.resources:5", "kernel.resources:5"]);
    let unchecked = between_groups["obligations"].as_array().unwrap().iter().find(|o| o["status"] == "not checked");
    assert_eq!(unchecked.unwrap()["reason"], "--only-intra-group: races between groups are not looked for");
    let human = lockstep(&["verify", "--gsize", "64", "--only-intra-group", file]);
    let stdout = String::from_utf8_lossy(&human.stdout);
    assert!(
        stdout.contains("kernel between_groups: verified; not checked: kernel.resources (--only-intra-group"),
        "{stdout}"
    );
}

/// `--wrapping-integers` reads signed overflow as two's complement (GPUVerify's bit-vectors):
/// no `arith.overflow` check, and `x + 1 > x` fails for the largest `x`, where mathematical
/// integers would let it hold. A loop that starts where `-32 * x` wraps to keeps the inferred
/// invariant `i >= -32 * x` as the code computes it.
#[test]
fn wrapping_integers_wrap_signed_overflow() {
    let file = "frontend/tests/verify/wrapping.cl";
    assert_eq!(
        verdicts_of(file, &[]),
        expected(&[
            ("increment", "failed", &["arith.overflow:5"]),
            ("wraps", "failed", &["arith.overflow:9"]),
            ("wrapped_start", "failed", &["arith.overflow:18"]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--wrapping-integers"]),
        expected(&[
            ("increment", "verified", &[]),
            ("wraps", "failed", &["assert:10"]),
            ("wrapped_start", "verified", &[])
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--mathematical-integers"]),
        expected(&[("increment", "verified", &[]), ("wraps", "verified", &[]), ("wrapped_start", "verified", &[])])
    );
}

/// GPUVerify's `--global_size` with `--local_size` fixes the number of groups to their quotient,
/// and a global size that is not a multiple of the group size is refused.
#[test]
fn a_global_size_gives_the_number_of_groups() {
    let file = "frontend/tests/verify/global_size.cl";
    let exact = lockstep(&["verify", "--local_size", "64", "--global_size", "128", "--format", "json", file]);
    assert_eq!(failures_by_kernel(&exact), expected(&[("sizes", "verified", &[])]));
    let any = lockstep(&["verify", "--local_size", "64", "--format", "json", file]);
    // A failed assert is assumed after it: the second is checked where the first holds.
    assert_eq!(failures_by_kernel(&any), expected(&[("sizes", "failed", &["assert:4"])]));
    let uneven = lockstep(&["verify", "--local_size", "64", "--global_size", "100", file]);
    assert_eq!(uneven.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&uneven.stderr).contains("not a multiple of the group size 64"));
}

/// A launch the command line fixes (`--gsize 32 --groups 8`) makes the sizes literals in the
/// encoding (`proofs/kernel.md`, E17), so that `get_global_size(0) * i` is linear arithmetic
/// instead of a product of two unknowns (`gsize * (tcount div gsize) * i`).
#[test]
fn a_pinned_launch_is_literal_in_the_encoding() {
    let file = temporary(
        "pinned_launch",
        "cl",
        "__kernel void k(__global int *a) {\n  a[get_global_id(0)] = get_global_size(0) * get_num_groups(0);\n}\n",
    );
    let path = file.to_str().unwrap();
    let emitted = lockstep(&["verify", "--gsize", "32", "--groups", "8", "--emit", "boogie", path]);
    let text = String::from_utf8_lossy(&emitted.stdout);
    let write = text.lines().find(|line| line.trim_start().starts_with("H_a[")).expect("the write to `a`");
    assert!(write.contains("((32 * 8) * 8)") && !write.contains("gsize") && !write.contains("tcount"), "{write}");
    let verified = lockstep(&["verify", "--gsize", "32", "--groups", "8", "--format", "json", path]);
    assert_eq!(failures_by_kernel(&verified), expected(&[("k", "verified", &[])]));
}

/// `get_work_dim()` is any of 1 to 3 for `verify`, and the launch's number of axes for `run`, and
/// for `verify` with the launch given (at least the axes of the extents given).
#[test]
fn the_work_dimension_is_the_launchs() {
    let file = "frontend/tests/verify/work_dim.cl";
    assert_eq!(
        verdicts_of(file, &[]),
        expected(&[
            ("bounded", "verified", &[]),
            ("one_dimension", "failed", &["assert:8"]),
            ("at_least_two", "failed", &["assert:12"]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--gsize", "64", "--groups", "4"]),
        expected(&[
            ("bounded", "verified", &[]),
            ("one_dimension", "verified", &[]),
            ("at_least_two", "failed", &["assert:12"]),
        ])
    );
    assert_eq!(
        verdicts_of(file, &["--gsize", "8x8"]),
        expected(&[
            ("bounded", "verified", &[]),
            ("one_dimension", "failed", &["assert:8"]),
            ("at_least_two", "verified", &[]),
        ])
    );
    runs_find(file, &[("bounded", None), ("one_dimension", None), ("at_least_two", Some(12))]);
    let run = lockstep(&["run", "--gsize", "2x2", "--kernel", "one_dimension", "--format", "json", file]);
    let report = &json(&run)["files"][0]["kernels"][0];
    assert_eq!((&report["result"], &report["finding"]["line"]), (&"bug".into(), &8.into()), "{report}");
}

/// GPUVerify's `__add_noovfl_T(a, b)` assumes that the sum lies in `T` (and `run` stops where it
/// does not); `__add_noovfl(a, b)` tells whether it does.
#[test]
fn additions_without_overflow_are_assumed_or_asked() {
    let file = "frontend/tests/verify/noovfl.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[("assumed", "verified", &[]), ("predicate", "verified", &[]), ("wraps", "failed", &["assert:16"])])
    );
    runs_find(file, &[("assumed", None), ("predicate", None)]);
    let run =
        lockstep(&["run", "--kernel", "wraps", "--param", "x=4294967295", "--param", "y=1", "--format", "json", file]);
    let report = &json(&run)["files"][0]["kernels"][0];
    assert_eq!((&report["result"], &report["finding"]["line"]), (&"bug".into(), &16.into()), "{report}");
}

/// A bound variable of an unsigned type ranges over its type, so `j % 4u` of one is a modulo
/// and no witness lies below 0 (one did: `j = -1` made `j % 4u == 3u && j < 3u` hold). cvc5
/// decides the three at once. z3's incremental search on these `\exists` does not end within its
/// limits (its verdicts come from the fresh search after a 10 s timeout, so they depend on the
/// machine's load): of z3 the test asks only that the kernel without a witness is never verified.
#[test]
fn bound_variables_range_over_their_type() {
    let file = "frontend/tests/verify/quantified.cl";
    let output = lockstep(&["verify", "--backend", "cvc5", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("no_negative_witness", "verified", &[]),
            ("a_witness", "verified", &[]),
            ("no_such_witness", "failed", &["assert:11"]),
        ])
    );
    let z3 = json(&lockstep(&["verify", "--resource-limit", "200000", "--format", "json", file]));
    let verdict = |name: &str| {
        let kernels = z3["files"][0]["kernels"].as_array().expect("kernels").clone();
        kernels.into_iter().find(|kernel| kernel["name"] == name).expect("the kernel")["verdict"].clone()
    };
    assert_ne!(verdict("no_such_witness"), "verified");
    assert_eq!(verdict("no_negative_witness"), "verified");
}

/// A launch has no global offset.
#[test]
fn the_global_offset_is_zero() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/global_offset.cl"]);
    assert_eq!(failures_by_kernel(&output), expected(&[("no_offset", "failed", &["assert:4"])]));
}

#[test]
fn vectors_are_their_components() {
    let file = "frontend/tests/verify/vectors.cl";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("three_components", "verified", &[]),
            ("operations", "failed", &["assert:31"]),
            ("pairs", "verified", &[]),
            ("one_component", "failed", &["access.write:52"]),
            ("narrow", "verified", &[]),
        ])
    );
    // A run meets the same failures, and none in the kernels that verify.
    runs_find(
        file,
        &[
            ("three_components", None),
            ("operations", Some(31)),
            ("pairs", None),
            ("one_component", Some(52)),
            ("narrow", None),
        ],
    );
}

#[test]
fn gpuverify_annotations_are_clauses() {
    // As written: inference would add its own invariants to the loops.
    let output =
        lockstep(&["verify", "--no-infer", "--format", "json", "frontend/tests/verify/gpuverify_annotations.cl"]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let results: Vec<(&str, u64, &str)> = report["files"][0]["kernels"][0]["obligations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|obligation| obligation["id"] != "arith.overflow")
        .map(|obligation| {
            (
                obligation["id"].as_str().unwrap(),
                obligation["line"].as_u64().unwrap(),
                obligation["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            // The two written invariants, and the types of the variables the loop assigns.
            ("loop.invariant.entry", 8, "verified"),
            ("loop.invariant.entry", 8, "verified"),
            ("loop.invariant.entry", 8, "verified"),
            ("loop.invariant.preserved", 8, "verified"),
            ("loop.invariant.preserved", 8, "verified"),
            ("loop.invariant.preserved", 8, "verified"),
            ("assert", 11, "verified"),
            ("assert", 12, "verified"),
            ("assert", 13, "failed"),
            // `__global_invariant(j <= 2)` and `j`'s type; `__candidate_invariant(j == 99)` has no
            // obligation.
            ("loop.invariant.entry", 14, "verified"),
            ("loop.invariant.entry", 14, "verified"),
            ("loop.invariant.preserved", 14, "verified"),
            ("loop.invariant.preserved", 14, "verified"),
        ]
    );
}

/// Helper functions are inlined: a value returned into an expression, a pointer into an array, an
/// early return, a local named like the caller's array; and a race and a broken contract inside a
/// helper are found where the helper's code is.
#[test]
fn helper_functions_are_inlined_where_they_are_called() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/helpers.cl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("returns_into_an_expression", "verified", &[]),
            ("returns_early", "verified", &[]),
            ("keeps_its_names_apart", "verified", &[]),
            ("races_inside_a_helper", "failed", &["access.write:54"]),
            ("breaks_a_helpers_contract", "failed", &["assert:65"]),
        ])
    );
}

/// However a pointer argument is written, the helper's cells count from where it points.
#[test]
fn a_pointer_argument_points_into_its_array() {
    for (argument, verdict) in [
        ("a + 2", Some(0)),
        ("2 + a", Some(0)),
        ("&a[2]", Some(0)),
        ("a + 3 - 1", Some(0)),
        ("&(a + 1)[1]", Some(0)),
        ("a + 1", Some(1)),
        ("&a[3]", Some(1)),
    ] {
        let text = format!(
            "void set(global int* p) {{ p[1] = 5; }}\n\
             /*@ context \\pointer_length(a) == 4 ** Perm(&a[3], write); ensures a[3] == 5; @*/\n\
             __kernel void k(global int* a) {{ set({argument}); }}\n"
        );
        let path = temporary("pointer-argument", "cl", &text);
        let output = lockstep(&["verify", "--groups", "1", "--gsize", "1", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), verdict, "{argument}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

/// The C frontend names variables that are no C identifiers (an unstated length
/// `\pointer_length(a)`, an inlined helper's `x@f1` and `\result@f1`); real Boogie reads the
/// program they print into and agrees with the built-in engine.
#[test]
fn real_boogie_reads_the_names_of_c_kernels() {
    if Command::new("boogie").arg("/version").output().is_err() {
        eprintln!("skipped: no `boogie` on this machine (`apt-get install boogie`)");
        return;
    }
    for path in ["frontend/tests/verify/add.cl", "frontend/tests/verify/helpers.cl"] {
        let outcomes = |backend: &str| {
            let report = json(&lockstep(&["verify", "--format", "json", "--backend", backend, path]));
            assert_eq!(report["files"][0]["errors"], serde_json::json!([]), "{path} with {backend}");
            report["files"][0]["kernels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|kernel| {
                    (kernel["verdict"].clone(), with_status(kernel, "failed"), with_status(kernel, "verified"))
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(outcomes("boogie"), outcomes("z3"), "{path}");
    }
}

/// A floating-point operation gives an arbitrary value: a copy keeps its value, `x * 1.0f` and a
/// comparison (NaN) do not, and the reads inside floating-point expressions are still checked.
#[test]
fn floating_point_values_are_kept_by_copies_only() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/floats.cl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("copies", "verified", &[]),
            ("takes_nan_for_a_number", "failed", &["thread.post:17"]),
            ("multiplies_by_one", "failed", &["thread.post:26"]),
            ("reads_out_of_bounds", "failed", &["access.bounds:36", "access.read:36"]),
        ])
    );
}

/// An atomic operation is a read and a write of its cell by one thread holding write permission
/// on it: it returns the old value, wraps as C's atomics do, and two threads' atomics on one cell
/// are a conflict of permissions.
#[test]
fn atomic_operations_read_and_write_their_cell() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/atomics.cl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("counts_its_own_cell", "verified", &[]),
            ("wraps_around", "verified", &[]),
            // It names no permission: the inferred ones claim the counter whole in each thread.
            ("shares_a_counter", "failed", &["kernel.resources:28"]),
            ("adds_one_to_the_old_value", "failed", &["thread.post:34"]),
        ])
    );
}

/// A pointer variable holds where it points in its one array, and moves with `p++` and `p = p +
/// k`; a local scalar is one cell of the group's local memory.
#[test]
fn pointer_variables_and_local_scalars_name_cells() {
    let output = lockstep(&["verify", "--format", "json", "frontend/tests/verify/pointers.cl"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("aliases", "verified", &[]),
            ("counts", "verified", &[]),
            ("steps_past_its_cell", "failed", &["access.bounds:35", "access.write:35"]),
        ])
    );
}

/// A parameter the code assigns is a variable, which the contract does not see; a name declared
/// again in an inner block is another variable there.
#[test]
fn c_variables_follow_cs_scopes() {
    let output = lockstep(&[
        "verify",
        "--groups",
        "1",
        "--gsize",
        "1",
        "--format",
        "json",
        "frontend/tests/verify/variables.cl",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("assigns_its_parameter", "verified", &[]),
            ("shadows_a_name", "verified", &[]),
            ("reads_the_inner_name", "failed", &["thread.post:27"]),
            ("loops_keep_types", "verified", &[]),
        ])
    );
}

#[test]
fn lockstep_bench_prints_a_row_per_kernel_and_size_with_its_figures() {
    let output = lockstep(&["bench", "--sizes", "1,2", "--runs", "1", "--family", "ring,arrbar", "examples/seed"]);
    let table = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{table}\n{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<Vec<&str>> = table.lines().skip(1).map(|line| line.split_whitespace().collect()).collect();
    let kernels: Vec<(&str, &str)> = rows.iter().take(8).map(|row| (row[0], row[1])).collect();
    assert_eq!(
        kernels,
        [
            ("demo", "-"),
            ("binomial", "-"),
            ("demo.cl", "-"),
            ("demo.cu", "-"),
            ("ring", "1"),
            ("ring", "2"),
            ("arrbar", "1"),
            ("arrbar", "2")
        ],
        "{table}"
    );
    // The corpus row: both seed files in one call.
    assert_eq!(rows[8][..2], ["2", "files"], "{table}");
    for row in &rows[..9] {
        // The last column is Clang's share, `N ms` for the C files and `-` for PVL.
        let c_file = row[0].ends_with(".cl") || row[0].ends_with(".cu");
        let (figures, clang) = row.split_at(row.len() - if c_file { 2 } else { 1 });
        let figures = &figures[figures.len() - 6..];
        let obligations: usize = figures[0].parse().expect("obligations");
        let work: u64 = figures[1].parse().expect("solver work");
        assert!(obligations > 0 && work > 0, "{table}");
        assert_eq!((figures[3], figures[5]), ("ms", "MiB"), "{table}");
        match clang {
            [millis, "ms"] => assert!(millis.parse::<u64>().is_ok(), "{table}"),
            ["-"] => assert!(!c_file, "{table}"),
            _ => panic!("no figure of Clang's share: {table}"),
        }
    }
    assert!(table.contains("ring: 2 barriers cost") && table.contains("(2.0 times the size)"), "{table}");
}

#[test]
fn lockstep_bench_refuses_an_unknown_family() {
    let output = lockstep(&["bench", "--family", "rings"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no family `rings`"));
}

/// Clang reads C as a compiler does: a local `#include "..."` is found next to the file, and
/// `-I`, `-D` and `--include` work on every command that reads a file (`--blockDim` and
/// `--gridDim` are GPUVerify's names of `--gsize` and `--groups`).
#[test]
fn includes_and_macros_come_from_clang_and_the_command_line() {
    let dir = std::env::temp_dir().join(format!("lockstep-includes-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("headers")).expect("a temporary folder");
    std::fs::write(dir.join("common.h"), "#define SCALE 2\n").expect("a header");
    std::fs::write(dir.join("headers/twice.h"), "static int twice(int x) { return SCALE * x; }\n").expect("a header");
    std::fs::write(dir.join("first.h"), "#define OFFSET 0\n").expect("a header");
    let kernel = dir.join("k.cl");
    std::fs::write(
        &kernel,
        "#include \"common.h\"\n#include <twice.h>\n\
         /*@ context \\pointer_length(a) == get_global_size(0);\n\
             context Perm(&a[get_global_id(0) + OFFSET], write);\n\
             ensures a[get_global_id(0)] == 2 * SCALE + 2; @*/\n\
         __kernel void k(__global int *a) { a[get_global_id(0) + OFFSET] = twice(N); }\n",
    )
    .expect("a kernel");
    let kernel = kernel.to_str().expect("a UTF-8 path");
    let headers = dir.join("headers");
    let first = dir.join("first.h");
    let flags = ["-I", headers.to_str().unwrap(), "-DN=3", "--include", first.to_str().unwrap()];
    // Without them, the header is not found: Clang's error, in place, and exit 2.
    let output = lockstep(&["check", kernel]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("c::clang-error"), "{output:?}");
    for command in ["check", "verify", "explain", "infer", "run"] {
        let output = lockstep(&[&[command][..], &flags, &[kernel]].concat());
        assert_eq!(output.status.code(), Some(0), "{command}: {output:?}");
    }
    let output = lockstep(&[&["verify", "--blockDim", "4", "--gridDim", "2"][..], &flags, &[kernel]].concat());
    assert!(String::from_utf8_lossy(&output.stdout).contains("kernel k: verified"), "{output:?}");
    // The macros' values are the ones the kernel is verified with: twice(N) is 2 * SCALE + 2 only
    // for N = 3 and SCALE = 2 (common.h's, also in the annotation).
    let other = ["-I", headers.to_str().unwrap(), "-DN=4", "--include", first.to_str().unwrap()];
    let output = lockstep(&[&["verify"][..], &other, &[kernel]].concat());
    assert_eq!(output.status.code(), Some(1), "N = 4: {output:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The macros of an annotation are the ones defined at its place, as in C: read in the same run
/// of Clang as the kernels where no directive follows the first annotation (the arguments of a
/// macro may hold `\gtid` and `1\2`), and in a run of the preprocessor of their own where one
/// does (`N` is 4 in the first kernel and 8 in the second), or where a macro holds a backslash
/// (`HALF`, used inside another macro's arguments). A wrong value fails the assertion.
#[test]
fn an_annotation_uses_the_macros_defined_at_its_place() {
    let dir = std::env::temp_dir().join(format!("lockstep-annotation-macros-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let first = "#define N 4\n#define OWN(cell, p) Perm(&cell, p)\n\
                 /*@ context \\pointer_length(a) == N * get_global_size(0); context OWN(a[\\gtid], 1\\2); @*/\n\
                 __kernel void first(__global int *a) { int x = a[get_global_id(0)]; /*@ assert N == 4; @*/ }\n";
    let second = "\n#undef N\n#define N 8\n\
                  /*@ context \\pointer_length(a) == N * get_global_size(0); context OWN(a[\\gtid], 1\\2); @*/\n\
                  __kernel void second(__global int *a) { int x = a[get_global_id(0)]; /*@ assert N == 8; @*/ }\n";
    let half = format!("#define HALF 1\\2\n{}", first.replace("1\\2", "HALF"));
    for (name, text, kernels) in
        [("one.cl", first.to_string(), 1), ("two.cl", format!("{first}{second}"), 2), ("three.cl", half, 1)]
    {
        let kernel = dir.join(name);
        std::fs::write(&kernel, &text).expect("a kernel");
        let output = lockstep(&["verify", kernel.to_str().expect("a UTF-8 path")]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{name}: {output:?}");
        assert_eq!(stdout.matches(": verified").count(), kernels, "{name}: {stdout}");
        let wrong = text.replace("assert N == 4", "assert N == 8");
        std::fs::write(&kernel, wrong).expect("a kernel");
        let output = lockstep(&["verify", kernel.to_str().expect("a UTF-8 path")]);
        assert_eq!(output.status.code(), Some(1), "{name}, N == 8 in the first kernel: {output:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// OpenCL's `mul24` and `mad24` (and CUDA's `__mul24`, `__umul24`) are exact products where
/// their operands lie in 24 bits, and any value elsewhere: a kernel that indexes with them is
/// verified for the launches whose ids fit (a contract's bound), and fails without the bound. A
/// run agrees on a small launch. CUDA's `__threadfence()` orders nothing between threads.
#[test]
fn twenty_four_bit_products_are_exact_only_in_24_bits() {
    let dir = std::env::temp_dir().join(format!("lockstep-mul24-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let bounded = "/*@ context get_local_size(0) <= 1024 && get_num_groups(0) <= 65535;\n\
                   context \\pointer_length(a) == n; context get_global_id(0) < n ==> Perm(&a[get_global_id(0)], write);\n\
                   ensures get_global_id(0) < n ==> a[get_global_id(0)] == 2 * get_local_id(0) + 1; @*/\n\
                   __kernel void k(__global int *a, int n) {\n\
                   int i = mad24((int)get_group_id(0), (int)get_local_size(0), (int)get_local_id(0));\n\
                   if (i < n) a[i] = mul24((int)get_local_id(0), 2) + 1; }\n";
    let kernel = dir.join("k.cl");
    std::fs::write(&kernel, bounded).expect("a kernel");
    let path = kernel.to_str().expect("a UTF-8 path");
    let output = lockstep(&["verify", path]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let output = lockstep(&["run", "--groups", "2", "--gsize", "4", "--param", "n=7", path]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    std::fs::write(&kernel, bounded.replace("get_local_size(0) <= 1024 && get_num_groups(0) <= 65535", "true"))
        .expect("a kernel");
    let output = lockstep(&["verify", "--format", "json", path]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"access.bounds\""), "{output:?}");
    let cuda = dir.join("k.cu");
    std::fs::write(
        &cuda,
        "/*@ context blockDim.x <= 1024 && gridDim.x <= 65535; context \\pointer_length(a) == n;\n\
         context \\gtid < n ==> Perm(&a[\\gtid], write); @*/\n\
         __global__ void k(int *a, int n) { unsigned int i = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;\n\
         __threadfence(); if (i < n) a[i] = __mul24(threadIdx.x, warpSize); }\n",
    )
    .expect("a kernel");
    let output = lockstep(&["verify", cuda.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// CUDA's C++ through Clang: each instantiation of a kernel template is a kernel of its own,
/// named with its arguments and verified against the contract written before the template, with
/// the template's parameters as the instantiation's values (`BLOCK` is 4 in
/// `first_of_block<int, 4>`); reference parameters, namespaces, `using` and C++'s casts read as
/// C's. A run agrees with each verdict.
#[test]
fn each_instantiation_of_a_kernel_template_is_verified() {
    let file = "frontend/tests/verify/templates.cu";
    let output = lockstep(&["verify", "--format", "json", file]);
    assert_eq!(
        failures_by_kernel(&output),
        expected(&[
            ("add_square<2>", "verified", &[]),
            ("add_square<3>", "failed", &["thread.post:17"]),
            ("first_of_block<int, 4>", "verified", &[]),
        ])
    );
    for (kernel, finding) in [("add_square<2>", None), ("add_square<3>", Some(17)), ("first_of_block<int, 4>", None)] {
        let run = lockstep(&["run", "--gsize", "4", "--groups", "1", "--kernel", kernel, "--format", "json", file]);
        let report = &json(&run)["files"][0]["kernels"][0];
        match finding {
            Some(line) => assert_eq!((&report["result"], &report["finding"]["line"]), (&"bug".into(), &line.into())),
            None => assert_eq!(report["result"], "clean", "{kernel}: {report}"),
        }
    }
}

/// A kernel template that nothing instantiates has no kernel to verify: the message says how to
/// instantiate it.
#[test]
fn a_kernel_template_never_instantiated_is_named() {
    let path = std::env::temp_dir().join(format!("lockstep-template-{}.cu", std::process::id()));
    std::fs::write(&path, "template <int N> __global__ void fill(int *a) { a[threadIdx.x] = N; }\n").expect("a kernel");
    let output = lockstep(&["check", path.to_str().expect("a UTF-8 path")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("the kernel template `fill` is never instantiated"), "{stderr}");
    assert!(stderr.contains("template __global__ void fill<int>(int *);"), "{stderr}");
    let _ = std::fs::remove_file(&path);
}

/// What CUDA kernels use that lockstep does not verify is refused by name, each with its help,
/// never as a compiler's error: textures and surfaces, cuRAND, cooperative groups, dynamic
/// parallelism.
#[test]
fn cuda_features_lockstep_does_not_verify_are_named() {
    for (code, refusal) in [
        (
            "texture<float, 1> t;\n__global__ void k(float *a) { a[threadIdx.x] = tex1Dfetch(t, 0); }",
            "a texture or surface (`texture`)",
        ),
        (
            "__global__ void k(float *a, cudaTextureObject_t t) { a[0] = tex2D<float>(t, 0, 0); }",
            "a texture or surface (`cudaTextureObject_t`)",
        ),
        (
            "__global__ void k(float *a, curandState *s) { a[threadIdx.x] = curand_uniform(&s[threadIdx.x]); }",
            "cuRAND (`curandState`)",
        ),
        (
            "__global__ void k(float *a) { cooperative_groups::this_grid().sync(); a[0] = 1; }",
            "a cooperative group (`this_grid`)",
        ),
        (
            "__global__ void child(float *a) { a[threadIdx.x] = 0; }\n\
             __global__ void k(float *a) { if (threadIdx.x == 0) child<<<1, 32>>>(a); }",
            "dynamic parallelism (a kernel launched from a kernel)",
        ),
    ] {
        let path = std::env::temp_dir().join(format!("lockstep-refused-{}.cu", std::process::id()));
        std::fs::write(&path, code).expect("a kernel");
        let output = lockstep(&["check", "--format", "json", path.to_str().expect("a UTF-8 path")]);
        let first = &json(&output)["files"][0]["errors"][0];
        assert_eq!(first["code"], "kernel::unsupported", "{code}: {first}");
        assert_eq!(first["message"], format!("{refusal} is not supported"), "{code}");
        let _ = std::fs::remove_file(&path);
    }
}

/// An annotation inside a declaration never becomes the contract of what follows it: inside a
/// template that nothing instantiates it belongs to no verified code, and inside a struct it is
/// refused. (`requires false` taken as the racy kernel's contract would verify it vacuously.)
#[test]
fn an_annotation_inside_a_declaration_is_not_the_next_kernels_contract() {
    let dir = std::env::temp_dir().join(format!("lockstep-inside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let racy = "__global__ void k(int *a) { a[threadIdx.x] = 2; a[0] = 1; }\n";
    let template = dir.join("template.cu");
    std::fs::write(
        &template,
        format!("template <int N> __device__ int f(int x) {{\n  /*@ requires false; @*/\n  return x + N;\n}}\n{racy}"),
    )
    .expect("a kernel");
    let output = lockstep(&["verify", "--format", "json", template.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(with_status(&json(&output)["files"][0]["kernels"][0], "failed")
        .iter()
        .any(|failure| failure.starts_with("kernel.resources")));
    let structure = dir.join("struct.cl");
    std::fs::write(&structure, "struct s { int a; /*@ requires false; @*/ };\n__kernel void k(__global int *a) { a[get_local_id(0)] = 2; a[0] = 1; }\n")
        .expect("a kernel");
    let output = lockstep(&["check", "--format", "json", structure.to_str().expect("a UTF-8 path")]);
    assert_eq!(
        json(&output)["files"][0]["errors"][0]["message"],
        "an annotation outside the statements of a block is not supported"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An input that makes Clang run away (here a macro that doubles itself thirty times) is
/// stopped at Clang's limits of CPU time, memory and output, and is an error, never a hang.
#[test]
fn clang_running_away_is_stopped() {
    let mut text = String::from("#define X0 x\n");
    for level in 1..=30 {
        text.push_str(&format!("#define X{level} X{} X{}\n", level - 1, level - 1));
    }
    text.push_str("__kernel void k(__global int *a) { int x = 1; a[0] = X30; }\n");
    let path = std::env::temp_dir().join(format!("lockstep-runaway-{}.cl", std::process::id()));
    std::fs::write(&path, text).expect("a kernel");
    let output = lockstep(&["check", "--format", "json", path.to_str().expect("a UTF-8 path")]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(json(&output)["files"][0]["errors"][0]["code"], "c::clang-error");
    let _ = std::fs::remove_file(&path);
}
