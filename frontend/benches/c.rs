//! The C frontend's benchmark (issue 15): how long reading OpenCL C and CUDA takes.
//!
//! - A generated CUDA file of 200 lines (a kernel with VerCors's contract, a private computation
//!   of some 190 statements, branches and a loop): the median time of `check` (preprocess, lex,
//!   parse, lower, resolve) in this process. Target: under 5 ms.
//! - The seed's two figures written in CUDA and in OpenCL (`examples/cuda/`, `examples/opencl/`)
//!   against their PVL originals (`examples/seed/`): the median time of verifying each, end to end
//!   in this process, and the ratio. Target: a C figure takes at most 1.2 times its PVL one.
//!
//! `cargo bench -p lockstep --bench c` prints the figures and exits 1 when a target is missed.

use lockstep_frontend::check_bytes;
use lockstep_frontend::verify::{self, Verdict};
use std::path::Path;
use std::time::{Duration, Instant};

const CHECK_RUNS: usize = 51;
const VERIFY_RUNS: usize = 7;
const CHECK_TARGET: Duration = Duration::from_millis(5);
const RATIO_TARGET: f64 = 1.2;
const LINES: usize = 200;

/// A CUDA file of `LINES` lines: each statement computes a private value from the one before,
/// by arithmetic that cannot overflow, in declarations, branches and a loop.
fn generated() -> String {
    let mut text = String::from(
        "#include <cuda.h>\n#define STEP 3\n/*@\n  context \\pointer_length(a) == n ** \\pointer_length(b) == n;\n  context blockDim.x * gridDim.x == n;\n  context Perm(&a[blockIdx.x * blockDim.x + threadIdx.x], write);\n  context (\\forall* int i; 0 <= i && i < n; Perm(&b[i], read));\n@*/\n__global__ void generated(int* a, int* b, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  int x0 = b[i] / 2;\n",
    );
    let mut k = 0;
    while text.lines().count() < LINES - 2 {
        let next = k + 1;
        let line = match k % 4 {
            0 => format!("  int x{next} = x{k} / 2 + STEP;\n"),
            1 => format!("  int x{next} = x{k} > {k} ? x{k} / 4 : x{k} / 2 - {k};\n"),
            2 => format!("  int x{next} = x{k} / 2;\n  if (x{next} < {k}) {{ x{next} = x{next} / 2 + 1; }} else {{ x{next} = x{k} / 3; }}\n"),
            _ => format!("  int x{next} = x{k} / 2;\n  for (int j = 0; j < 2; j++) {{ x{next} = x{next} / 2; }}\n"),
        };
        text.push_str(&line);
        k = next;
    }
    text + &format!("  a[i] = x{k};\n}}\n")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median time of checking `text` as the file `name`.
fn check_time(name: &str, text: &str) -> Duration {
    let times = (0..CHECK_RUNS)
        .map(|_| {
            let start = Instant::now();
            let checked = check_bytes(name, text.as_bytes().to_vec());
            let elapsed = start.elapsed();
            assert!(checked.program.is_some() && !checked.has_errors(), "{name} is rejected");
            elapsed
        })
        .collect();
    median(times)
}

/// The median time of verifying an example, which must verify.
fn verify_time(path: &str) -> Duration {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(path);
    let bytes = std::fs::read(&full).unwrap_or_else(|error| panic!("{}: {error}", full.display()));
    let times = (0..VERIFY_RUNS)
        .map(|_| {
            let start = Instant::now();
            let verification = verify::file(path, bytes.clone(), &verify::Settings::default());
            let elapsed = start.elapsed();
            let kernels = verification.kernels.expect("well formed").expect("verification runs");
            assert!(kernels.iter().all(|kernel| kernel.verdict() == Verdict::Verified), "{path} is not verified");
            elapsed
        })
        .collect();
    median(times)
}

fn main() {
    let mut missed = Vec::new();
    let text = generated();
    let lines = text.lines().count();
    let time = check_time("generated.cu", &text);
    println!(
        "check of a generated CUDA file of {lines} lines: {:.2} ms (target {} ms)",
        time.as_secs_f64() * 1e3,
        CHECK_TARGET.as_millis()
    );
    if time > CHECK_TARGET {
        missed.push(format!("checking {lines} lines of CUDA took {time:?}"));
    }
    for figure in ["demo", "binomial"] {
        let pvl = verify_time(&format!("seed/{figure}.pvl"));
        println!("verify seed/{figure}.pvl: {:.1} ms", pvl.as_secs_f64() * 1e3);
        for c in [format!("cuda/{figure}.cu"), format!("opencl/{figure}.cl")] {
            let time = verify_time(&c);
            let ratio = time.as_secs_f64() / pvl.as_secs_f64();
            println!(
                "verify {c}: {:.1} ms, {ratio:.2} times the PVL figure (target {RATIO_TARGET})",
                time.as_secs_f64() * 1e3
            );
            if ratio > RATIO_TARGET {
                missed.push(format!("{c} took {ratio:.2} times seed/{figure}.pvl"));
            }
        }
    }
    if !missed.is_empty() {
        eprintln!("targets missed: {}", missed.join("; "));
        std::process::exit(1);
    }
}
