//! `lockstep bench`: how lockstep's cost grows with a kernel. It generates the kernels of
//! [`lockstep_frontend::families`] at the sizes asked, takes the seed's two examples, and verifies
//! each as a user does, with a `lockstep verify` process of its own (this executable), several
//! times: the table gives each kernel's size, obligations, the solver's work (z3's deterministic
//! resource count, the same on every machine and every run), the median wall time of the whole
//! process and its peak memory (resident set). The seed's example in OpenCL C and CUDA are
//! measured too, with Clang's share of their time: the median of reading the file with Clang
//! (its runs, and lockstep's reading of its tree), in this process. Files named on the command
//! line are measured too, all in one `lockstep verify` call, as a corpus is verified.
//!
//! Times are measurements, never assertions: the bench fails (exit status 1) only when a kernel
//! that must verify does not, so that CI can run it at small sizes on a shared machine.

use lockstep_frontend::families::Family;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// What to measure.
pub struct Options {
    pub sizes: Vec<usize>,
    pub runs: usize,
    pub families: Vec<Family>,
    /// The executable to measure, when not this one.
    pub verifier: Option<PathBuf>,
    /// Files and folders (searched for kernel files) to verify in one call.
    pub files: Vec<PathBuf>,
}

/// The seed's examples, measured with the families.
const SEEDS: [(&str, &str); 2] = [
    ("demo", include_str!("../../../examples/seed/demo.pvl")),
    ("binomial", include_str!("../../../examples/seed/binomial.pvl")),
];

/// The seed's example written in OpenCL C and in CUDA: what Clang costs a C kernel.
const C_SEEDS: [(&str, &str); 2] = [
    ("demo.cl", include_str!("../../../examples/opencl/demo.cl")),
    ("demo.cu", include_str!("../../../examples/cuda/demo.cu")),
];

/// One row of the table.
struct Row {
    kernel: String,
    size: Option<usize>,
    obligations: usize,
    resources: u64,
    wall: Duration,
    peak: Option<u64>,
    /// The median time of reading a C file with Clang.
    clang: Option<Duration>,
    /// What went wrong, when the verdicts are not all `verified`.
    problem: Option<String>,
}

pub fn run(options: &Options) -> ExitCode {
    let scratch = std::env::temp_dir().join(format!("lockstep-bench-{}", std::process::id()));
    if let Err(error) = std::fs::create_dir_all(&scratch) {
        eprintln!("error: cannot create `{}`: {error}", scratch.display());
        return ExitCode::from(2);
    }
    let exit = measure_all(options, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    exit
}

fn measure_all(options: &Options, scratch: &Path) -> ExitCode {
    let runs = options.runs.max(1);
    let this = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("lockstep"));
    let verifier = options.verifier.as_deref().unwrap_or(&this);
    println!(
        "{:<10} {:>5} {:>11} {:>14} {:>9} {:>9} {:>9}",
        "kernel", "size", "obligations", "solver work", "wall", "peak", "clang"
    );
    let mut rows = Vec::new();
    let mut measured = |row: Row| {
        print_row(&row);
        rows.push(row);
    };
    for (name, text) in SEEDS {
        match kernel_file(scratch, &format!("{name}.pvl"), text) {
            Ok(path) => measured(measure(verifier, name, None, &[path], runs)),
            Err(message) => return failure(&message),
        }
    }
    for (name, text) in C_SEEDS {
        match kernel_file(scratch, name, text) {
            Ok(path) => {
                let mut row = measure(verifier, name, None, std::slice::from_ref(&path), runs);
                row.clang = Some(clang_time(&path, text, runs));
                measured(row);
            }
            Err(message) => return failure(&message),
        }
    }
    for &family in &options.families {
        for &size in &options.sizes {
            let name = format!("{}{size}", family.name());
            match kernel_file(scratch, &format!("{name}.pvl"), &family.kernel(size)) {
                Ok(path) => measured(measure(verifier, family.name(), Some(size), &[path], runs)),
                Err(message) => return failure(&message),
            }
        }
    }
    if !options.files.is_empty() {
        let mut files = Vec::new();
        for path in &options.files {
            kernel_files(path, &mut files);
        }
        files.sort();
        let name = format!("{} files", files.len());
        measured(measure(verifier, &name, None, &files, runs));
    }
    print_ratios(&rows, &options.families);
    let problems: Vec<&Row> = rows.iter().filter(|row| row.problem.is_some()).collect();
    for row in &problems {
        eprintln!("error: {}: {}", row.kernel, row.problem.as_deref().unwrap_or_default());
    }
    // A corpus may hold kernels that fail on purpose: only generated and seed kernels must verify.
    let wrong = problems.iter().any(|row| !row.kernel.ends_with(" files"));
    if wrong {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn failure(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Writes a generated kernel where the verifier can read it.
fn kernel_file(scratch: &Path, file_name: &str, text: &str) -> Result<PathBuf, String> {
    let path = scratch.join(file_name);
    std::fs::write(&path, text).map_err(|error| format!("cannot write `{}`: {error}", path.display()))?;
    Ok(path)
}

/// The kernel files (`.pvl`, `.cl`, `.cu`) at `path`, a file or a folder searched recursively.
fn kernel_files(path: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(path) else {
        found.push(path.to_path_buf());
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            kernel_files(&path, found);
        } else if path.extension().is_some_and(|extension| ["pvl", "cl", "cu"].iter().any(|known| extension == *known))
        {
            found.push(path);
        }
    }
}

/// Verifies `files` in one `lockstep verify` process `runs` times, after one run that reads the
/// verdicts, obligations and solver work from its JSON report.
fn measure(verifier: &Path, kernel: &str, size: Option<usize>, files: &[PathBuf], runs: usize) -> Row {
    let mut row = Row {
        kernel: kernel.to_string(),
        size,
        obligations: 0,
        resources: 0,
        wall: Duration::ZERO,
        peak: None,
        clang: None,
        problem: None,
    };
    match report(verifier, files) {
        Ok((obligations, resources, not_verified)) => {
            row.obligations = obligations;
            row.resources = resources;
            if !not_verified.is_empty() {
                row.problem = Some(format!("not verified: {}", not_verified.join(", ")));
            }
        }
        Err(message) => row.problem = Some(message),
    }
    let mut walls = Vec::new();
    let mut peaks = Vec::new();
    for _ in 0..runs {
        match timed(verifier, files) {
            Ok((wall, peak)) => {
                walls.push(wall);
                peaks.extend(peak);
            }
            Err(message) => {
                row.problem = Some(message);
                return row;
            }
        }
    }
    row.wall = median(&mut walls);
    row.peak = (!peaks.is_empty()).then(|| median(&mut peaks));
    row
}

/// The median time of reading a C file with Clang, as `check` does.
fn clang_time(path: &Path, text: &str, runs: usize) -> Duration {
    let path = path.display().to_string();
    let dialect = lockstep_frontend::c_dialect(&path).expect("a C file");
    let folder = Path::new(&path).parent().map(Path::to_path_buf);
    let options = lockstep_frontend::c::clang::Options { folder, ..Default::default() };
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let _ = lockstep_frontend::c::parse(text, dialect, &options);
            start.elapsed()
        })
        .collect();
    median(&mut times)
}

fn median<T: Ord + Copy>(values: &mut [T]) -> T {
    values.sort();
    values[values.len() / 2]
}

fn verifier(executable: &Path) -> Command {
    let mut command = Command::new(executable);
    command.arg("verify").stdin(Stdio::null());
    command
}

/// The obligations, the solver's work and the kernels not verified, from one JSON report.
fn report(executable: &Path, files: &[PathBuf]) -> Result<(usize, u64, Vec<String>), String> {
    let output = verifier(executable)
        .arg("--format")
        .arg("json")
        .args(files)
        .stderr(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run lockstep verify: {error}"))?;
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("lockstep verify's report does not parse: {error}"))?;
    let (mut obligations, mut resources, mut not_verified) = (0, 0, Vec::new());
    for file in json["files"].as_array().into_iter().flatten() {
        let path = file["path"].as_str().unwrap_or_default();
        if let Some(error) = file["errors"].as_array().and_then(|errors| errors.first()) {
            not_verified.push(format!("{path}: {}", error["message"].as_str().unwrap_or("rejected")));
        }
        for kernel in file["kernels"].as_array().into_iter().flatten() {
            obligations += kernel["obligations"].as_array().map_or(0, Vec::len);
            resources += kernel["resources"].as_u64().unwrap_or(0);
            let verdict = kernel["verdict"].as_str().unwrap_or("unknown");
            if verdict != "verified" {
                not_verified.push(format!("{} {verdict}", kernel["name"].as_str().unwrap_or(path)));
            }
        }
    }
    Ok((obligations, resources, not_verified))
}

/// The wall time and peak memory (bytes, where the platform tells) of one verification.
fn timed(executable: &Path, files: &[PathBuf]) -> Result<(Duration, Option<u64>), String> {
    let mut command = verifier(executable);
    command.args(files).stdout(Stdio::null()).stderr(Stdio::null());
    let start = Instant::now();
    let mut child = command.spawn().map_err(|error| format!("cannot run lockstep verify: {error}"))?;
    let (status, peak) = wait_measured(&mut child)?;
    let wall = start.elapsed();
    // 0 verified, 1 failed, 3 undecided: a verdict; anything else is a crash or a rejection.
    if !status.code().is_some_and(|code| code <= 1 || code == 3) {
        return Err(format!("lockstep verify exited with {status}"));
    }
    Ok((wall, peak))
}

#[cfg(unix)]
fn wait_measured(child: &mut std::process::Child) -> Result<(std::process::ExitStatus, Option<u64>), String> {
    use wait4::Wait4;
    let usage = child.wait4().map_err(|error| format!("cannot wait for lockstep verify: {error}"))?;
    Ok((usage.status, Some(usage.rusage.maxrss)))
}

#[cfg(not(unix))]
fn wait_measured(child: &mut std::process::Child) -> Result<(std::process::ExitStatus, Option<u64>), String> {
    let status = child.wait().map_err(|error| format!("cannot wait for lockstep verify: {error}"))?;
    Ok((status, None))
}

fn print_row(row: &Row) {
    let size = row.size.map_or_else(|| "-".to_string(), |size| size.to_string());
    let peak = row.peak.map_or_else(|| "-".to_string(), |bytes| format!("{} MiB", bytes >> 20));
    let wall = format!("{} ms", row.wall.as_millis());
    let clang = row.clang.map_or_else(|| "-".to_string(), |clang| format!("{} ms", clang.as_millis()));
    let mark = if row.problem.is_some() { "  (!)" } else { "" };
    println!(
        "{:<10} {size:>5} {:>11} {:>14} {wall:>9} {peak:>9} {clang:>9}{mark}",
        row.kernel, row.obligations, row.resources
    );
}

/// For each family measured at several sizes, how much the largest costs against the smallest:
/// linear growth makes the time ratio at most the size ratio.
fn print_ratios(rows: &[Row], families: &[Family]) {
    for family in families {
        let sized: Vec<&Row> = rows.iter().filter(|row| row.kernel == family.name() && row.size.is_some()).collect();
        let smallest = sized.iter().min_by_key(|row| row.size);
        let largest = sized.iter().max_by_key(|row| row.size);
        if let (Some(small), Some(large)) = (smallest, largest) {
            let (small_size, large_size) = (small.size.unwrap_or(1), large.size.unwrap_or(1));
            if small_size == large_size || small.wall.is_zero() {
                continue;
            }
            println!(
                "{}: {large_size} {} cost {:.1} times the time of {small_size} ({:.1} times the size)",
                family.name(),
                family.dimension(),
                large.wall.as_secs_f64() / small.wall.as_secs_f64(),
                large_size as f64 / small_size as f64
            );
        }
    }
}
