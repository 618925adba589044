//! Other verifiers' test suites, read where they lie (`../shared/suites/`, next to the repository;
//! never copied into it): VerCors's annotated OpenCL and CUDA examples verify as they are written.

#[path = "support/gpuverify_suite.rs"]
mod gpuverify_suite;

use gpuverify_suite::Expected;
use lockstep_frontend::diagnostics::Code;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn suites() -> PathBuf {
    let suites = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/suites");
    assert!(suites.is_dir(), "the suites are read from {} (next to the repository)", suites.display());
    suites
}

fn verify(file: &Path, options: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .arg("verify")
        .args(options)
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .expect("the lockstep binary runs")
}

/// VerCors's annotated GPU examples, unchanged, read as VerCors reads C: with mathematical
/// integers. `cuda.cu` indexes its array by the thread's id in its block, so it is race-free only
/// when launched as one block: VerCors takes that for granted (its contract holds for no launch of
/// several blocks, so it verifies vacuously), and lockstep needs it said, with `--groups 1`.
#[test]
fn vercors_annotated_gpu_examples_verify_unchanged() {
    let folder = suites().join("vercors-gpgpu");
    let examples: [(&str, &[&str]); 10] = [
        ("cuda.cu", &["--groups", "1"]),
        ("cuda_blur.cu", &[]),
        ("dynamic_shared_cuda.cu", &[]),
        ("static_shared_cuda.cu", &[]),
        ("dynamic_shared_opencl.cl", &[]),
        ("static_shared_opencl.cl", &[]),
        ("global_fence_opencl.cl", &[]),
        // The vector examples, the stretch.
        ("opencl_vector_add.cl", &[]),
        ("opencl_vector_simple.cl", &[]),
        ("simple_vector_cuda.cu", &[]),
    ];
    for (name, options) in examples {
        let options = [options, &["--mathematical-integers"]].concat();
        let output = verify(&folder.join(name), &options);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{name}:\n{stdout}{stderr}");
        assert!(stdout.contains(": verified"), "{name}: {stdout}");
    }
}

/// The failed obligations of a run, as `(id, line)`.
fn failures(output: &Output) -> Vec<(String, u64)> {
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    report["files"][0]["kernels"][0]["obligations"]
        .as_array()
        .expect("obligations")
        .iter()
        .filter(|obligation| obligation["status"] == "failed")
        .map(|obligation| {
            (obligation["id"].as_str().unwrap_or("").to_string(), obligation["line"].as_u64().unwrap_or(0))
        })
        .collect()
}

/// Without the launch restriction, `cuda.cu`'s blocks race on `a`, and lockstep says so.
#[test]
fn vercors_cuda_example_races_between_blocks() {
    let output = verify(&suites().join("vercors-gpgpu/cuda.cu"), &["--format", "json", "--mathematical-integers"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(failures(&output), [("kernel.resources".to_string(), 8)]);
}

/// With C's own integers (lockstep's default for OpenCL and CUDA), the examples that add two
/// input values, `out[tid] += s[0]`, may overflow `int`: undefined behaviour that VerCors's
/// mathematical integers hide.
#[test]
fn vercors_examples_overflow_with_machine_integers() {
    let folder = suites().join("vercors-gpgpu");
    for (name, line) in [
        ("dynamic_shared_cuda.cu", 46),
        ("static_shared_cuda.cu", 45),
        ("dynamic_shared_opencl.cl", 45),
        ("static_shared_opencl.cl", 45),
        ("global_fence_opencl.cl", 45),
    ] {
        let output = verify(&folder.join(name), &["--format", "json"]);
        assert_eq!(output.status.code(), Some(1), "{name}");
        assert_eq!(failures(&output), [("arith.overflow".to_string(), line)], "{name}");
    }
    let output = verify(&folder.join("cuda.cu"), &["--format", "json", "--groups", "1"]);
    assert_eq!(failures(&output), [("arith.overflow".to_string(), 17)], "cuda.cu: a[tid] * 2");
}

/// The suite's kernels that Clang (14 and newer) refuses, and why: errors of the kernel that the
/// older Clang of GPUVerify's tool chain let through, or that the suite expects
/// (`//xfail:CLANG_ERROR`).
const CLANG_REFUSES: [(&str, &str); 6] = [
    ("misc/fail/miscfail2/kernel.cl", "the suite's own: a call of an undeclared function"),
    ("misc/fail/miscfail4/kernel.cl", "the suite's own: an assignment to a `const` variable"),
    ("async_work_group_copy/fail/test3/kernel.cl", "arithmetic on an `event_t`, an opaque type"),
    ("atomics/refined_atomic_abstraction/check_used_treated_ok/kernel.cl", "a `size_t` kernel parameter"),
    ("test_structs/store_ptr_array_element/kernel.cl", "a struct kernel parameter holding pointers"),
    ("test_structs/use_ptr_array_element/kernel.cl", "a struct kernel parameter holding pointers"),
];

/// Every kernel of GPUVerify's OpenCL suite is checked without a panic, and is accepted or
/// refused by `kernel::unsupported` naming what lockstep does not read, first (never by a syntax
/// or type error: the suite's kernels are valid C), but for the kernels Clang refuses
/// ([`CLANG_REFUSES`]). The count accepted may only grow (issue 15 asks for 80 %); the run prints
/// it with the most common first refusals (`cargo test --test suites -- --nocapture`).
#[test]
fn gpuverify_suite_kernels_are_accepted_or_refused() {
    let folder = suites().join("gpuverify-opencl");
    let kernels: Vec<PathBuf> = gpuverify_suite::kernels(&folder).into_iter().map(|kernel| kernel.path).collect();
    assert!(kernels.len() >= 480, "the suite has 486 kernels, found {}", kernels.len());
    let mut accepted = 0;
    let mut refusals: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut other_errors = Vec::new();
    for path in &kernels {
        let bytes = std::fs::read(path).expect("a readable kernel");
        let checked = lockstep_frontend::check_bytes(&path.to_string_lossy(), bytes);
        match checked.diagnostics.iter().find(|diagnostic| diagnostic.is_error()) {
            None => accepted += 1,
            Some(first) => {
                *refusals.entry(format!("{}: {}", first.code, first.message)).or_default() += 1;
                let refused_by_clang =
                    first.code == Code::Clang && CLANG_REFUSES.iter().any(|(name, _)| path.ends_with(name));
                if first.code != Code::Unsupported && !refused_by_clang {
                    other_errors.push(format!("{}: {}: {}", path.display(), first.code, first.message));
                }
            }
        }
    }
    let mut common: Vec<(&String, &usize)> = refusals.iter().collect();
    common.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    println!("{accepted} of {} kernels accepted; the most common first refusals:", kernels.len());
    for (refusal, count) in common.iter().take(10) {
        println!("{count:4}  {refusal}");
    }
    // 392 before Clang read the suite (issue 58), one of them `misc/fail/miscfail4`, which Clang
    // rightly refuses.
    assert!(accepted >= 447, "{accepted} accepted, fewer than before");
    assert!(other_errors.is_empty(), "refused other than as unsupported:\n{}", other_errors.join("\n"));
}

/// The work each solver check of the suite's kernels may do (z3's rlimit): deterministic, so the
/// verdicts do not depend on the machine's speed or load. As much as the stripped examples get:
/// a barrier that hands out dozens of cells (`barrier_invariants/test_all_unary_high`) needs it.
const RESOURCE_LIMIT: &str = "2000000";

/// How many `//pass` kernels lockstep verifies, at least: this number may only grow. 253 were
/// verified at issue 58's fourth session (asynchronous copies, specification functions, images
/// read), less one: `barrier_invariants/test_all_unary_high` is verified near the work limit in
/// some builds and undecided in others.
const PASS_VERIFIED: usize = 252;

/// The `//xfail:NOT_ALL_VERIFIED` kernels lockstep verifies, and why the suite's mark does not
/// hold for lockstep's semantics. None is racy or divergent.
const XFAIL_VERIFIED: [(&str, &str); 3] = [
    // `__global_requires(x == 100)` of a helper called in a branch: GPUVerify asks it of the
    // threads outside the branch too; lockstep inlines helpers and asks it of the calling thread.
    ("annotation_tests/global_requires/fail/kernel.cl", "a helper's global precondition, read as the caller's"),
    // The race is in a helper that no kernel calls: lockstep verifies kernels.
    ("reducedstrengthnonloopbug/kernel.cl", "the race is in a helper no kernel calls"),
    // `bar`'s postcondition fails for `a == 1`, but lockstep inlines helpers and checks their
    // contracts at each call (`bar(5)`, `bar(6)`), where it holds.
    ("sourcelocation_tests/ensures/fail/kernel.cl", "a helper's postcondition, checked at its calls where it holds"),
];

/// GPUVerify's OpenCL suite, every kernel lockstep reads, verified as GPUVerify verifies it: with
/// no annotation for lockstep (the permissions are inferred), the launch of its second line, and
/// GPUVerify's wrapping integers. Holds that no kernel the suite marks as failing is verified
/// (except `XFAIL_VERIFIED`, each with its reason), and that the number of `//pass` kernels
/// verified may only grow (issue 16 asks for 85 %). Each check has a deterministic work limit,
/// so the count does not depend on the machine's speed. It runs in release mode, where a kernel's
/// inference takes what a user waits for: `.ci/test` runs it with `cargo test --release -p
/// lockstep --test suites -- --ignored --nocapture`, which prints the agreement table; `cargo bench
/// --bench gpuverify` prints it with the time per kernel.
#[test]
#[ignore = "run in release mode by .ci/test"]
fn gpuverify_suite_verdicts_agree_with_its_expected_outcomes() {
    let folder = gpuverify_suite::folder();
    assert!(folder.is_dir(), "the suite is read from {} (next to the repository)", folder.display());
    let kernels = gpuverify_suite::kernels(&folder);
    let solver = ["--resource-limit", RESOURCE_LIMIT, "--timeout", "600"].map(String::from);
    let binary = Path::new(env!("CARGO_BIN_EXE_lockstep"));
    let outcomes = gpuverify_suite::judge_all(binary, &kernels, &solver, 2);
    println!("{}", gpuverify_suite::report(&kernels, &outcomes));
    let unexplained: Vec<&str> = gpuverify_suite::verified(&kernels, &outcomes, Expected::NotAllVerified)
        .into_iter()
        .filter(|name| !XFAIL_VERIFIED.iter().any(|(known, _)| known == name))
        .collect();
    assert!(unexplained.is_empty(), "kernels the suite marks as failing are verified: {unexplained:?}");
    let pass = gpuverify_suite::tally(&kernels, &outcomes, Expected::Pass);
    assert!(pass.verified >= PASS_VERIFIED, "{} //pass kernels verified, fewer than {PASS_VERIFIED}", pass.verified);
}
