//! Malformed inputs, checked as a user sees them.
//!
//! Each `tests/reject/NAME.pvl` is run through the real `lockstep check` binary. The test asserts
//! exit status 2, the stable code, line and column of every error (from `--format json`, against
//! the table below), and the exact text printed on stderr (against `NAME.stderr`; run with
//! `UPDATE_EXPECT=1` to rewrite those after a deliberate change, and review the diff).

use std::path::{Path, PathBuf};
use std::process::Command;

/// An error as the test expects it: (code, line, column).
type Expected = (&'static str, usize, usize);

/// (file, expected errors in order).
const CASES: &[(&str, &[Expected])] = &[
    ("ambiguous_barrier", &[("kernel::ambiguous-barrier", 3, 13)]),
    ("amount_not_divided", &[("type::permission-amount", 3, 25)]),
    ("assign_to_parameter", &[("resolve::assign-to-parameter", 3, 5)]),
    ("assign_to_tid", &[("resolve::reserved-name", 3, 5)]),
    ("axis_ids_out_of_scope", &[("resolve::out-of-scope", 3, 43), ("resolve::out-of-scope", 4, 19)]),
    ("bool_array", &[("kernel::unsupported", 2, 10)]),
    ("c_style_array", &[("syntax::unexpected-token", 2, 14)]),
    ("comments_only", &[("source::no-kernel", 1, 1)]),
    ("crlf_missing_semicolon", &[("syntax::missing-semicolon", 3, 15)]),
    ("duplicate_barrier_label", &[("kernel::duplicate-barrier-label", 4, 13)]),
    ("duplicate_decreases", &[("resolve::duplicate-decreases", 1, 49)]),
    ("duplicate_variable", &[("resolve::duplicate-name", 5, 11)]),
    ("empty", &[("source::no-kernel", 1, 1)]),
    ("ensures_after_barrier", &[("syntax::stray-clause", 6, 5)]),
    ("fences_without_braces", &[("syntax::unexpected-token", 3, 18)]),
    ("fraction_in_code", &[("type::permission-amount", 3, 17)]),
    ("int_where_bool_needed", &[("type::mismatch", 5, 9)]),
    ("invalid_utf8", &[("source::invalid-utf8", 1, 35)]),
    ("invariant_without_loop", &[("syntax::unexpected-token", 5, 5)]),
    ("keyword_as_name", &[("syntax::unexpected-token", 3, 9)]),
    ("local_array_in_group_contract", &[("resolve::out-of-scope", 3, 54)]),
    ("main_with_parameters", &[("kernel::main-signature", 2, 3)]),
    ("memory_in_pure_function", &[("type::memory-in-function", 1, 25)]),
    ("missing_main", &[("kernel::missing-main", 1, 8)]),
    ("missing_semicolon", &[("syntax::missing-semicolon", 5, 18)]),
    ("nesting_too_deep", &[("syntax::nesting-too-deep", 3, 24)]),
    ("non_constant_amount", &[("type::permission-amount", 3, 27)]),
    ("number_too_long", &[("lex::number-too-long", 3, 14)]),
    ("old_in_code", &[("type::misplaced-old", 5, 14)]),
    ("opencl_fence_name", &[("kernel::unknown-fence", 4, 13)]),
    ("permission_amount_out_of_range", &[("type::permission-amount", 3, 25)]),
    ("permission_as_condition", &[("type::resource-in-expression", 5, 9)]),
    ("permission_in_arithmetic", &[("type::resource-in-expression", 3, 12)]),
    ("permission_on_private_variable", &[("type::permission-location", 4, 17)]),
    ("quantifier_after_and", &[("syntax::unexpected-token", 3, 21)]),
    ("separating_conjunction_in_code", &[("type::resource-in-expression", 3, 15)]),
    (
        "several_mistakes",
        &[
            ("syntax::unexpected-token", 2, 14),
            ("syntax::unexpected-token", 4, 8),
            ("syntax::missing-semicolon", 5, 20),
            ("syntax::unexpected-token", 7, 9),
            ("syntax::missing-semicolon", 8, 29),
        ],
    ),
    (
        "several_syntax_errors",
        &[
            ("syntax::unexpected-token", 4, 14),
            ("syntax::unexpected-token", 5, 16),
            ("syntax::unexpected-token", 6, 20),
        ],
    ),
    ("sum_range", &[("type::sum-range", 4, 24), ("type::sum-range", 5, 24), ("type::sum-range", 6, 24)]),
    ("thread_contract_out_of_range_index_type", &[("type::mismatch", 3, 19)]),
    ("tid_in_kernel_contract", &[("resolve::out-of-scope", 3, 26)]),
    ("unclosed_brace", &[("syntax::unexpected-end", 5, 4)]),
    ("unicode_columns", &[("resolve::unknown-name", 3, 35)]),
    ("unknown_array", &[("resolve::unknown-array", 5, 5)]),
    ("unknown_backslash_keyword", &[("lex::unknown-keyword", 3, 13)]),
    ("unknown_character", &[("lex::unknown-character", 3, 16)]),
    ("unknown_fence", &[("kernel::unknown-fence", 4, 13)]),
    ("unknown_function", &[("resolve::unknown-function", 4, 44)]),
    ("unknown_name", &[("resolve::unknown-name", 4, 14)]),
    ("unsupported_constructs", &[("kernel::unsupported", 1, 48), ("kernel::unsupported", 3, 48)]),
    ("unterminated_comment", &[("lex::unterminated-comment", 5, 1)]),
    ("wrong_argument_count", &[("type::argument-count", 5, 14)]),
];

fn reject_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reject")
}

fn run(file: &str, json: bool) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lockstep"));
    command.current_dir(reject_dir()).arg("check").arg(file).env("NO_COLOR", "1");
    if json {
        command.args(["--format", "json"]);
    }
    command.output().expect("the lockstep binary runs")
}

#[test]
fn every_malformed_input_is_rejected_with_its_code_line_and_column() {
    let mut failures = Vec::new();
    for (name, expected) in CASES {
        let file = format!("{name}.pvl");
        let output = run(&file, true);
        if output.status.code() != Some(2) {
            failures.push(format!("{file}: exit status {:?}, expected 2", output.status.code()));
            continue;
        }
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("valid JSON on stdout");
        let errors = report["files"][0]["errors"].as_array().expect("an errors array").clone();
        let found: Vec<(String, u64, u64)> = errors
            .iter()
            .map(|error| {
                (
                    error["code"].as_str().unwrap_or("").to_string(),
                    error["line"].as_u64().unwrap_or(0),
                    error["column"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        let wanted: Vec<(String, u64, u64)> =
            expected.iter().map(|(code, line, column)| (code.to_string(), *line as u64, *column as u64)).collect();
        if found != wanted {
            failures.push(format!("{file}: found {found:?}, expected {wanted:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_malformed_input_renders_as_its_snapshot() {
    for (name, _) in CASES {
        let output = run(&format!("{name}.pvl"), false);
        assert_eq!(output.status.code(), Some(2), "{name}");
        let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
        let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
        expect_test::expect_file![reject_dir().join(format!("{name}.stderr"))].assert_eq(&stderr);
        assert!(stdout.starts_with(&format!("{name}.pvl: rejected (")), "{name}: {stdout}");
    }
}

#[test]
fn the_table_covers_every_file_in_the_folder() {
    let mut on_disk: Vec<String> = std::fs::read_dir(reject_dir())
        .expect("tests/reject exists")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(".pvl").map(str::to_string))
        .collect();
    on_disk.sort();
    let listed: Vec<String> = CASES.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(on_disk, listed, "tests/reject/*.pvl and CASES must list the same files, in order");
}
