//! Every example in the repository is well formed, and gets the verdict its markers expect.
//!
//! The examples are the project's main test corpus: the PVL kernels (`examples/**/*.pvl`) and the
//! OpenCL C and CUDA ones (`examples/**/*.cl`, `examples/**/*.cu`), all held to the same markers.
//! `lockstep check` accepts each of them, through the library and the binary; `verify` gives each
//! its verdict, with the built-in engine, under three solver seeds (of ten, rotating along the corpus) and with real Boogie; `run`
//! agrees with it; and `examples/README.md` lists them all.
//!
//! The tests that verify or run the examples one by one (the verdicts, the seeds, Boogie, the
//! vacuity and run cross-checks) take minutes for the whole corpus: `.ci/test` runs them in
//! release mode (`cargo test --release -p lockstep --test examples -- --ignored`). `LOCKSTEP_EXAMPLES=opencl,cuda`
//! limits them to the examples whose path under `examples/` contains one of the comma-separated
//! words (here the two folders of C kernels); the tests of the whole corpus (well-formedness, the
//! table) ignore it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The extensions of example files: PVL, OpenCL C and CUDA.
const EXAMPLE_EXTENSIONS: [&str; 3] = ["pvl", "cl", "cu"];

fn example_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            example_files(&path, found);
        } else if path.extension().is_some_and(|extension| EXAMPLE_EXTENSIONS.iter().any(|known| extension == *known)) {
            found.push(path);
        }
    }
}

fn all_examples() -> Vec<PathBuf> {
    let mut found = Vec::new();
    example_files(&examples_root(), &mut found);
    found
}

/// The examples the tests that verify or run them one by one take: all of them, or those whose
/// path under `examples/` contains one of the words of `LOCKSTEP_EXAMPLES` (comma-separated).
fn selected_examples() -> Vec<PathBuf> {
    let Ok(words) = std::env::var("LOCKSTEP_EXAMPLES") else { return all_examples() };
    all_examples()
        .into_iter()
        .filter(|path| {
            let name = path.strip_prefix(examples_root()).expect("under examples/").display().to_string();
            words.split(',').any(|word| name.contains(word.trim()))
        })
        .collect()
}

#[test]
fn the_seed_examples_are_there() {
    let names: Vec<String> = all_examples().iter().map(|path| path.display().to_string()).collect();
    let seeds = [
        "seed/demo.pvl",
        "seed/binomial.pvl",
        "opencl/demo.cl",
        "opencl/binomial.cl",
        "cuda/demo.cu",
        "cuda/binomial.cu",
    ];
    for seed in seeds {
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

/// The verdict an example's `//:: verdict` header names; `verified` without one.
fn expected_verdict(text: &str) -> &str {
    text.lines().find_map(|line| line.strip_prefix("//:: verdict ")).unwrap_or("verified").trim()
}

/// The marker of a correct kernel (or a failing variant) that lockstep cannot yet get right, with
/// the reason: `//:: known limitation (issue N): reason`.
fn known_limitation(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("//:: known limitation")).map(str::trim)
}

/// Every example gets the verdict its `//:: verdict` header names (exit status 0 for `verified`, 1
/// for `failed`), and exactly the obligations its `//:: fails` markers name fail, on the marked
/// lines: none is undecided.
///
/// An example marked `//:: known limitation` must still miss that expectation, so that the marker
/// goes when the limitation does; and a variant that should fail never verifies, marker or not.
#[test]
#[ignore = "run in release mode by .ci/test"]
fn every_example_gets_its_verdict_and_fails_where_marked() {
    let mut mismatches = Vec::new();
    for path in selected_examples() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let (status, not_verified, vacuous) = verify(&path, &[]);
        // The examples assume nothing contradictory.
        if !vacuous.is_empty() {
            mismatches.push(format!("{}: `warning::vacuous` at lines {vacuous:?}", path.display()));
        }
        let failed: std::collections::BTreeSet<(String, u64)> = not_verified
            .iter()
            .filter(|(_, _, status)| status == "failed")
            .map(|(id, line, _)| (id.clone(), *line))
            .collect();
        let expected = expected_failures(&text);
        let verdict = expected_verdict(&text);
        let wanted_status = if verdict == "verified" { 0 } else { 1 };
        let as_expected = failed.len() == not_verified.len() && failed == expected && status == Some(wanted_status);
        let outcome = format!("exit {status:?} and {not_verified:?}");
        match known_limitation(&text) {
            _ if verdict == "failed" && status == Some(0) => {
                mismatches.push(format!("{}: a failing variant VERIFIES ({outcome})", path.display()))
            }
            None if !as_expected => mismatches.push(format!(
                "{}: expected verdict {verdict} and failures {expected:?}, got {outcome}",
                path.display()
            )),
            Some(reason) if !reason.starts_with("(issue ") => mismatches.push(format!(
                "{}: a `known limitation` marker cites its issue: `//:: known limitation (issue N): reason`",
                path.display()
            )),
            Some(reason) if as_expected => mismatches.push(format!(
                "{}: gets its verdict now, so its `known limitation{reason}` marker must go",
                path.display()
            )),
            _ => {}
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// The obligations that are not verified, as (id, line, status).
type NotVerified = std::collections::BTreeSet<(String, u64, String)>;

/// What `lockstep verify --format json` says of a file: its exit status, every obligation that
/// is not verified, as (id, line, status), and the lines of its `warning::vacuous` warnings. The
/// built-in engine gets 60 s a check instead of 10: no verdict may depend on how busy the machine
/// running the tests is (the examples' times are the benchmark's business).
fn verify(path: &Path, extra: &[&str]) -> (Option<i32>, NotVerified, Vec<u64>) {
    let time_limit: &[&str] = if extra.contains(&"--backend") { &[] } else { &["--timeout", "60"] };
    let output = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(["verify", "--format", "json"])
        .args(time_limit)
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
    let vacuous = report["files"][0]["warnings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|warning| warning["code"] == "warning::vacuous")
        .map(|warning| warning["line"].as_u64().unwrap_or(0))
        .collect();
    (output.status.code(), not_verified, vacuous)
}

/// How many solver seeds each example is verified under, besides the default.
const SEEDS_PER_EXAMPLE: u64 = 3;

/// Stability: solver seeds give every example the same verdict and the same failures. Each
/// example is verified under three of the seeds 1 to 10, which rotate along the corpus (the
/// `k`-th example takes `3k + 1`, `3k + 2` and `3k + 3`, modulo 10), so that every seed is tried
/// on a third of the examples: ten for each took most of the time of a CI run.
#[test]
#[ignore = "run in release mode by .ci/test"]
fn verdicts_do_not_depend_on_the_solver_seed() {
    let examples = selected_examples();
    let mismatches = for_each_example(|path| {
        let reference = verify(path, &[]);
        let place = examples.iter().position(|example| example == path).expect("a selected example") as u64;
        (0..SEEDS_PER_EXAMPLE)
            .map(|k| (place * SEEDS_PER_EXAMPLE + k) % 10 + 1)
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
/// what it reports. Examples with a `known limitation` are left out: what they show is a gap, and
/// an undecided check may be decided by one solver or seed and not another.
fn for_each_example(check: impl Fn(&Path) -> Vec<String> + Sync) -> Vec<String> {
    let examples: Vec<PathBuf> = selected_examples()
        .into_iter()
        .filter(|path| known_limitation(&std::fs::read_to_string(path).expect("readable")).is_none())
        .collect();
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
/// same exit status and the same failing obligations. A file marked `//:: boogie incomplete` is a
/// correct kernel lockstep verifies and Boogie cannot prove (non-linear arithmetic it does not
/// decide in time, or quantifiers it does not instantiate without model-based instantiation): there
/// Boogie must not verify it either, so that the marker goes when Boogie can. On a failing variant
/// so marked, Boogie does not verify it, and verifies none of the obligations the built-in engine
/// fails.
#[test]
#[ignore = "run in release mode by .ci/test"]
fn real_boogie_agrees_with_the_built_in_engine() {
    if Command::new(std::env::var("LOCKSTEP_BOOGIE").unwrap_or_else(|_| "boogie".into()))
        .arg("/version")
        .output()
        .is_err()
    {
        assert!(std::env::var_os("CI").is_none(), "CI must have Boogie (`.ci/test` installs it)");
        eprintln!("skipped: no `boogie` on this machine (`apt-get install boogie`)");
        return;
    }
    let mismatches = for_each_example(|path| {
        let built_in = verify(path, &[]);
        let boogie = verify(path, &["--backend", "boogie"]);
        let incomplete = std::fs::read_to_string(path).expect("readable").contains("\n//:: boogie incomplete");
        // On a failing variant, Boogie's z3 may also fail to prove a procedure's other obligations
        // (it answers `unknown` where a quantified assumption stands beside a real failure), and
        // may leave a real failure undecided (a non-linear one, in time on a busy machine), but it
        // must verify none of the obligations the built-in engine fails.
        let places = |found: &NotVerified| -> std::collections::BTreeSet<(String, u64)> {
            found.iter().map(|(id, line, _)| (id.clone(), *line)).collect()
        };
        let fails_more = built_in.0 == Some(1)
            && matches!(boogie.0, Some(1 | 3))
            && places(&built_in.1).is_subset(&places(&boogie.1));
        match (incomplete, boogie.0) {
            (false, _) if boogie == built_in => Vec::new(),
            // Boogie's z3 (no model-based quantifier instantiation, a different search) may fail to
            // prove a kernel lockstep verifies; the marker goes when Boogie verifies it too.
            (true, Some(1 | 3)) if built_in.0 == Some(0) => Vec::new(),
            (true, _) if fails_more && boogie != built_in => Vec::new(),
            (true, _) => vec![format!("{}: Boogie verifies it now, or lockstep does not: {boogie:?}", path.display())],
            (false, _) => vec![format!("{}: Boogie {boogie:?}, built-in {built_in:?}", path.display())],
        }
    });
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// What the verdict column of `examples/README.md` says of an example: `verified`, or `failed:` and
/// the obligations that fail, and `known limitation` where the example carries that marker.
fn verdict_cell(text: &str) -> String {
    let verdict = expected_verdict(text);
    let ids: std::collections::BTreeSet<String> = expected_failures(text).into_iter().map(|(id, _)| id).collect();
    let mut cell = verdict.to_string();
    if !ids.is_empty() {
        cell = format!("{cell}: {}", ids.into_iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", "));
    }
    if known_limitation(text).is_some() {
        cell.push_str(" (known limitation)");
    }
    cell
}

/// `examples/README.md` lists every example once, with what it shows, the verdict and failing
/// obligations its markers expect, and the time it took (written by
/// `cargo bench -p lockstep --bench verify -- --update-readme`, which checks the 2 s target).
#[test]
fn the_examples_table_is_current() {
    let readme = std::fs::read_to_string(examples_root().join("README.md")).expect("examples/README.md is readable");
    let mut listed = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    for line in readme.lines().filter(|line| line.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let [_, name, shows, verdict, time, _] = cells[..] else {
            problems.push(format!("not a row of four cells: {line}"));
            continue;
        };
        let name = name.trim_matches('`').to_string();
        if shows.is_empty() {
            problems.push(format!("{name}: says nothing of what it shows"));
        }
        // A measured figure; its target is the bench's to check (`cargo bench --bench verify`).
        if time.strip_suffix(" ms").and_then(|millis| millis.parse::<u64>().ok()).is_none() {
            problems.push(format!("{name}: time `{time}` is not a figure in ms"));
        }
        if listed.insert(name.clone(), verdict.to_string()).is_some() {
            problems.push(format!("{name}: listed twice"));
        }
    }
    for path in all_examples() {
        let name = path.strip_prefix(examples_root()).expect("under examples/").display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        match listed.remove(&name) {
            None => problems.push(format!("{name}: not in the table")),
            Some(verdict) if verdict != verdict_cell(&text) => {
                problems.push(format!("{name}: the table says `{verdict}`, the file `{}`", verdict_cell(&text)))
            }
            Some(_) => {}
        }
    }
    problems.extend(listed.keys().map(|name| format!("{name}: in the table, but no such example")));
    assert!(problems.is_empty(), "examples/README.md is out of date:\n{}", problems.join("\n"));
}

/// No procedure of a verified example's encoding is vacuous: an `assert false` appended to its
/// body is not proved, so its assumptions are consistent and its end is reached. An encoding that
/// assumed something false (as an unguarded `\forall*` read once did) would make every check after
/// it pass, and a wrong kernel verify; Boogie calls this a smoke test. (In a failing variant, a
/// check that always fails is assumed after it is reported, so the rest of its procedure may be
/// vacuous by design; and a solver that cannot tell is no evidence either way.)
#[test]
#[ignore = "run in release mode by .ci/test"]
fn no_procedure_of_a_verified_example_is_vacuous() {
    use lockstep_encoder::ivl::{Declaration, Expr, Stmt, StmtKind};
    use lockstep_encoder::verify::Status;
    let vacuous = for_each_example(|path| {
        let text = std::fs::read_to_string(path).expect("readable");
        if expected_verdict(&text) == "failed" {
            return Vec::new();
        }
        let checked = lockstep_frontend::check_bytes(&path.display().to_string(), text.into_bytes());
        let program = checked.program.expect("examples are well formed");
        let mut found = Vec::new();
        for kernel in &program.kernels {
            let outline = lockstep_logic::outline::Outline::of(&program, kernel, Default::default());
            let encoding = lockstep_encoder::kernel::encode(&outline);
            let mut smoked = encoding.program.clone();
            for declaration in &mut smoked.declarations {
                if let Declaration::Procedure(procedure) = declaration {
                    if let Some(body) = &mut procedure.body {
                        let smoke =
                            StmtKind::Assert { expr: Expr::Bool(false), tag: Some("smoke".into()), assumed: true };
                        body.stmts.push(Stmt::new(smoke));
                    }
                }
            }
            let limits = lockstep_encoder::smt::Limits::default();
            let outcomes = lockstep_encoder::run::program(&smoked, lockstep_encoder::run::Backend::Z3, &limits)
                .expect("the solver runs");
            for procedure in outcomes {
                let smoke = procedure.outcomes.iter().find(|outcome| outcome.check.tag.as_deref() == Some("smoke"));
                let status = smoke.map(|outcome| &outcome.status);
                if matches!(status, None | Some(Status::Verified)) {
                    found.push(format!("{}: procedure {} is vacuous: {status:?}", path.display(), procedure.procedure));
                }
            }
        }
        found
    });
    assert!(vacuous.is_empty(), "{}", vacuous.join("\n"));
}

/// One family of launches of the cross-check: the options an example's `//:: run with` line
/// gives (none for the standard family), and the configurations they run on.
use lockstep_frontend::run::Extent;

struct RunFamily {
    params: Vec<(String, num_bigint::BigInt)>,
    init: Vec<(String, lockstep_frontend::run::Init)>,
    configurations: Vec<(Extent, Extent)>,
}

/// The sizes every example runs on: `groups` in {1, 2, 3} and `gsize` in {1, 2, 3, 4, 8}.
fn standard_configurations() -> Vec<(Extent, Extent)> {
    [1, 2, 3].into_iter().flat_map(|groups| [1, 2, 3, 4, 8].map(|gsize| (groups.into(), gsize.into()))).collect()
}

/// The standard family, and one per `//:: run with ARGS` line (`--param NAME=V`, `--init A=X`,
/// and `--groups G --gsize N` to run on that size instead of the standard ones; `4x4` along axes).
fn run_families(text: &str) -> Vec<RunFamily> {
    let mut families =
        vec![RunFamily { params: Vec::new(), init: Vec::new(), configurations: standard_configurations() }];
    for line in text.lines().filter_map(|line| line.strip_prefix("//:: run with ")) {
        let mut family = RunFamily { params: Vec::new(), init: Vec::new(), configurations: Vec::new() };
        let (mut groups, mut gsize) = (None, None);
        let words: Vec<&str> = line.split_whitespace().collect();
        for pair in words.chunks(2) {
            let [flag, value] = pair else { panic!("`//:: run with {line}`: a flag without a value") };
            let (name, assigned) = value.split_once('=').unwrap_or((value, ""));
            match *flag {
                "--groups" => groups = Some(value.parse().expect("a count, or counts along the axes")),
                "--gsize" => gsize = Some(value.parse().expect("a count, or counts along the axes")),
                "--param" => family.params.push((name.into(), assigned.parse().expect("an integer"))),
                "--init" => family.init.push((name.into(), assigned.parse().expect("an initial content"))),
                other => panic!("`//:: run with {line}`: unknown flag {other}"),
            }
        }
        family.configurations = match (groups, gsize) {
            (None, None) => standard_configurations(),
            (groups, gsize) => vec![(groups.unwrap_or(Extent::from(1)), gsize.unwrap_or(Extent::from(4)))],
        };
        families.push(family);
    }
    families
}

/// What a variant's `//:: run finds CODE[, CODE]` marker names (any of them will do), or the
/// reason its `//:: run clean: reason` marker gives.
fn run_expectation(text: &str) -> (Option<Vec<String>>, Option<&str>) {
    let finds = text
        .lines()
        .find_map(|line| line.strip_prefix("//:: run finds "))
        .map(|codes| codes.split(',').map(|code| code.trim().to_string()).collect());
    (finds, text.lines().find_map(|line| line.strip_prefix("//:: run clean: ")))
}

/// The soundness cross-check between `verify` and `run` (issue 6). Every example runs on every
/// configuration of its families, with zero memory and with three random ones:
/// - an example that verifies runs clean wherever its precondition lets it run, and runs somewhere;
/// - a failing variant marked `//:: run finds CODE` shows a bug of one of those codes somewhere:
///   its bug is one a run can see (a race, a divergence, a wrong result, a broken contract);
/// - a failing variant marked `//:: run clean: reason` shows none: its bug is one of annotations
///   only (the reason says which), so the marker goes when a run can see it.
///
/// Where the canonical run finds nothing, a random schedule must end alike (`proofs/run.md`, R2).
/// Every failing variant carries one of the two markers. A disagreement prints both verdicts.
#[test]
#[ignore = "run in release mode by .ci/test"]
fn runs_agree_with_the_verdicts() {
    use lockstep_frontend::run::{self, Options};
    use lockstep_logic::execute::{self, Schedule};
    use lockstep_logic::fences::MemoryModel;
    let disagreements = for_each_example(|path| {
        let text = std::fs::read_to_string(path).expect("readable");
        let checked = lockstep_frontend::check_bytes(&path.display().to_string(), text.clone().into_bytes());
        let program = checked.program.expect("well formed");
        let verdict = expected_verdict(&text);
        let (finds, clean) = run_expectation(&text);
        let name = path.display();
        if verdict == "failed" && finds.is_some() == clean.is_some() {
            return vec![format!("{name}: a failing variant says `//:: run finds CODE` or `//:: run clean: reason`")];
        }
        let (mut ran, mut found, mut schedules_differ) = (0, Vec::new(), Vec::new());
        for family in run_families(&text) {
            for &(groups, gsize) in &family.configurations {
                for memory in [None, Some(1), Some(2), Some(3)] {
                    let options = Options {
                        groups,
                        gsize,
                        params: family.params.clone(),
                        init: family.init.clone(),
                        random_memory: memory,
                    };
                    for kernel in &program.kernels {
                        let Ok(launch) = run::launch(&program, kernel, &options) else { continue };
                        let Ok(outcome) =
                            execute::run(&program, kernel, &launch, &Schedule::Canonical, MemoryModel::Seed)
                        else {
                            continue;
                        };
                        ran += 1;
                        let memory_name = memory.map_or("zero memory".into(), |seed| format!("random memory {seed}"));
                        if let Some((bug, steps)) = outcome.bug {
                            let finding = run::finding(kernel, &bug, &steps, "canonical");
                            found.push((
                                finding.code,
                                format!("{groups} x {gsize}, {memory_name}: {}", finding.message),
                            ));
                            continue;
                        }
                        // Where the canonical run finds nothing, a random schedule ends alike
                        // (`proofs/run.md`, R2), for the buggy variants too.
                        let seed = memory.unwrap_or(0);
                        let random =
                            execute::run(&program, kernel, &launch, &Schedule::Random { seed }, MemoryModel::Seed);
                        if !random.as_ref().is_ok_and(|random| random.bug.is_none() && random.memory == outcome.memory)
                        {
                            schedules_differ
                                .push(format!("{name}: {groups} x {gsize}, {memory_name}, schedule seed {seed}"));
                        }
                    }
                }
            }
        }
        let codes: Vec<&str> = found.iter().map(|(code, _)| *code).collect();
        let mut disagreements: Vec<String> = schedules_differ
            .into_iter()
            .map(|launch| {
                format!("{launch}: a random schedule ends otherwise than the canonical one, which found nothing")
            })
            .collect();
        disagreements.extend(match (verdict, finds) {
            ("verified", _) if ran == 0 => vec![format!(
                "{name}: verify says verified, and no launch meets its precondition: add a `//:: run with` line"
            )],
            ("verified", _) => found
                .first()
                .map(|(code, what)| format!("{name}: verify says verified, run finds {code} on {what}"))
                .into_iter()
                .collect(),
            (_, Some(expected)) if !codes.iter().any(|code| expected.iter().any(|wanted| wanted == code)) => {
                vec![format!(
                    "{name}: verify says failed and run should find {expected:?}; it finds {codes:?} in {ran} runs"
                )]
            }
            (_, None) if !found.is_empty() => vec![format!(
                "{name}: marked `run clean` ({}), but run finds {}: {}",
                clean.unwrap_or_default(),
                found[0].0,
                found[0].1
            )],
            _ => Vec::new(),
        });
        disagreements
    });
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
