//! The `lockstep` command line.

use clap::{Parser, Subcommand, ValueEnum};
use lockstep_frontend::diagnostics::{Code, Diagnostic};
use lockstep_frontend::source::SourceFile;
use lockstep_frontend::Checked;
use lockstep_logic::Span;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

mod cli;
use cli::ReportFormat;

/// lockstep: a deductive verifier for GPU kernels annotated in permission-based separation logic.
///
/// Exit status: 0 when everything checked is fine (verified), 1 when some check failed, 2 when an
/// input was rejected (unreadable, a syntax error, a type error, an unsupported construct), 3 when
/// the solver could not decide some check and nothing failed.
#[derive(Parser)]
#[command(name = "lockstep", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check kernel files (.pvl) and report every problem found, without verifying.
    ///
    /// Every diagnostic names a stable code (such as `syntax::missing-semicolon`), points at the
    /// source and, where a fix is known, says how. Exit status: 0 when all files are well formed
    /// (warnings allowed), 2 otherwise.
    Check {
        /// The files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        /// How to report: `human` (diagnostics on stderr, a summary line per file on stdout),
        /// `json` (one JSON document on stdout) or `sarif` (a SARIF 2.1.0 log on stdout).
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        #[command(flatten)]
        clang: ClangOptions,
    },
    /// Verify kernel files (.pvl, .cl, .cu): every obligation of every kernel, for any number of
    /// threads.
    ///
    /// Prints one line per kernel and, for each failed obligation, its id (such as
    /// `access.write`), where it fails and why. Exit status: 0 all verified, 1 some obligation
    /// failed, 2 the input was rejected, 3 undecided (a timeout or `unknown`) and nothing failed.
    Verify {
        /// The files to verify.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<String>,
        #[command(flatten)]
        solver: SolverOptions,
        /// Write the program to verify (Boogie, or the SMT-LIB of its checks) instead of verifying it.
        #[arg(long, value_enum)]
        emit: Option<cli::ivl::Emit>,
        /// How to report: `human`, `json` (one JSON document on stdout) or `sarif` (a SARIF 2.1.0
        /// log on stdout: a result for every diagnostic and every obligation).
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Replay each failure's counterexample with `lockstep run` (its sizes, parameters and input
        /// values), and say whether a concrete run confirms it or it may be spurious.
        #[arg(long)]
        replay: bool,
        /// Verify only for launches of this many work groups: `N`, `NxM` or `NxMxK` along the
        /// axes (GPUVerify's `--num_groups`, also written `N,M` or `[N,M]`). Without it, for any
        /// number.
        #[arg(long, visible_aliases = ["num_groups", "gridDim"])]
        groups: Option<lockstep_frontend::run::Extent>,
        /// Verify only for work groups of this many threads: `N`, `NxM` or `NxMxK` (GPUVerify's
        /// `--local_size`). Without it, for any size.
        #[arg(long, visible_aliases = ["local_size", "blockDim"])]
        gsize: Option<lockstep_frontend::run::Extent>,
        /// Verify only for launches of this many threads in all, along the axes (GPUVerify's
        /// `--global_size`): each axis a multiple of `--gsize`'s, which it needs, giving the
        /// number of groups.
        #[arg(long, visible_alias = "global_size", requires = "gsize", conflicts_with = "groups")]
        global_size: Option<lockstep_frontend::run::Extent>,
        #[command(flatten)]
        integers: IntegerOptions,
        /// Which accesses a barrier that does not fence their memory leaves unordered: `seed` (a
        /// write before it with any access after it) or `opencl` (also a read before it with a
        /// write after it). Without it, OpenCL C files follow `opencl`, PVL and CUDA files `seed`.
        #[arg(long, value_enum)]
        memory_model: Option<MemoryModelName>,
        /// Do not infer the permissions of a kernel that names none: verify it as written, so
        /// that each access fails for want of permission. By default such a kernel is verified
        /// with the permissions `lockstep infer` prints: race and divergence freedom without
        /// annotations.
        #[arg(long)]
        no_infer: bool,
        /// Read the loop invariants written in a kernel that names no permission as candidates,
        /// as GPUVerify's option of that name does: each is kept where it holds and dropped
        /// where it does not, as the inferred ones are.
        #[arg(long)]
        invariants_as_candidates: bool,
        /// Accept benign races in a kernel that names no permission, as GPUVerify does unless
        /// given `--no-benign-tolerance`: threads that write one value to one cell, reaching the
        /// write alike, do not race. By default they do, as every write needs all of a cell.
        #[arg(long)]
        benign_races: bool,
        /// Check races inside work groups only, as GPUVerify's option of that name: races between
        /// groups (`kernel.resources`) are not checked, and the report says so.
        #[arg(long, conflicts_with_all = ["only_divergence", "no_race_checks"])]
        only_intra_group: bool,
        /// Check barrier divergence only, as GPUVerify's option of that name: no race, assertion
        /// or postcondition is checked, and the report says so.
        #[arg(long, conflicts_with = "no_race_checks")]
        only_divergence: bool,
        /// Check no race, only barrier divergence, assertions and the other functional
        /// obligations, as GPUVerify's `--only-log`: `kernel.resources`, `group.resources` and
        /// `barrier.resources` are not checked, and the report says so.
        #[arg(long, visible_alias = "only-log")]
        no_race_checks: bool,
        /// Verify the kernel KERNEL only for these values of its scalar parameters (those that
        /// are not pointers, in order), as GPUVerify's option of that name: decimal, `0x`
        /// hexadecimal (a struct's or vector's bytes, little endian), or `*` for any value.
        #[arg(long, value_name = "KERNEL,V1,...")]
        kernel_args: Option<lockstep_frontend::verify::KernelArgs>,
        #[command(flatten)]
        clang: ClangOptions,
    },
    /// Print what lockstep proves of each kernel of a file, as the seed writes it.
    ///
    /// For each kernel: the specifications of the thread, the group and the kernel (saying which
    /// are generated from the thread contract), every global obligation as an entailment
    /// (`⊛`, `Perm(a[e], q)`, `∀ lid ∈ group`), and the thread's Hoare triple with each barrier as
    /// a call. Every obligation is listed with its number, id, line and message; with `--verdicts`
    /// also with the verdict `verify` gives it. Exit status: 0, or 2 when the file is rejected
    /// (with `--verdicts`, as `verify`: 1 some obligation failed, 3 undecided).
    Explain {
        /// The file to explain.
        #[arg(value_name = "FILE")]
        file: String,
        /// Verify too, and show each obligation's verdict.
        #[arg(long)]
        verdicts: bool,
        #[command(flatten)]
        solver: SolverOptions,
        /// How to report: `human` or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// The memory model of the fence rule, as for `verify`.
        #[arg(long, value_enum)]
        memory_model: Option<MemoryModelName>,
        #[command(flatten)]
        clang: ClangOptions,
    },
    /// Print the file with the contracts lockstep infers for its kernels that name no permission
    /// written in, as annotations of its language, ready to paste and extend: the thread's
    /// precondition, each barrier's resources and each loop's invariants. Exit status: 0, or 2
    /// when the file is rejected.
    Infer {
        /// The file whose kernels to infer permissions for.
        #[arg(value_name = "FILE")]
        file: String,
        /// Infer for launches of this many groups only, as `verify --groups`.
        #[arg(long, visible_aliases = ["num_groups", "gridDim"])]
        groups: Option<lockstep_frontend::run::Extent>,
        /// Infer for groups of this many threads only, as `verify --gsize`: sizes it pins are
        /// written as numbers.
        #[arg(long, visible_aliases = ["local_size", "blockDim"])]
        gsize: Option<lockstep_frontend::run::Extent>,
        #[command(flatten)]
        clang: ClangOptions,
    },
    /// Run a file's kernels concretely on one launch, and report the first bug met.
    ///
    /// Finds data races (from the accesses, whatever the permissions say), stale reads behind a
    /// barrier without the right fence, barrier divergence, accesses outside an array, divisions by
    /// zero, failed asserts and violated contracts (their facts and permissions), with the
    /// threads, places and schedule involved. Schedules are
    /// explored exhaustively up to equivalence (one per class of interleavings that reorder only
    /// independent steps); `--schedule all` enumerates every interleaving of a small launch, and
    /// `random` draws some. Exit status: 0 no bug found, 1 a bug found, 2 bad input or a launch that
    /// breaks the kernel's precondition, 3 the run gave up.
    Run {
        /// The `.pvl` file.
        #[arg(value_name = "FILE")]
        file: String,
        /// Run only the kernel of this name.
        #[arg(long)]
        kernel: Option<String>,
        /// Work groups: `N`, or `NxM` or `NxMxK` along the axes `x`, `y` and `z` of a kernel that
        /// names them (`gid_y`, ...); GPUVerify's `--num_groups`.
        #[arg(long, default_value = "1", visible_aliases = ["num_groups", "gridDim"])]
        groups: lockstep_frontend::run::Extent,
        /// Threads per work group: `N`, or `NxM` or `NxMxK` along the axes; GPUVerify's
        /// `--local_size`.
        #[arg(long, default_value = "4", visible_aliases = ["local_size", "blockDim"])]
        gsize: lockstep_frontend::run::Extent,
        /// A kernel parameter's value, `NAME=VALUE` (repeatable). Parameters not given take the
        /// value a precondition pins them to (`requires n == tcount;`), else 0.
        #[arg(long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// An array's first cells, `ARRAY=V0,V1,...`, or all of them: `ARRAY=iota` (`a[i] = i`) or
        /// `ARRAY=reverse` (`a[i] = size - 1 - i`, a permutation) (repeatable).
        #[arg(long = "init", value_name = "ARRAY=V0,V1,...")]
        init: Vec<String>,
        /// The other cells: zero, or random in [-16, 16] from `--seed`. Cells a precondition pins
        /// (`requires a[tid] == 1;`) take that value.
        #[arg(long, value_enum, default_value_t = cli::run::MemoryKind::Zero)]
        memory: cli::run::MemoryKind,
        /// The seed of random memory and random schedules.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// How the threads' steps are ordered.
        #[arg(long, value_enum, default_value_t = cli::run::ScheduleKind::Exhaustive)]
        schedule: cli::run::ScheduleKind,
        /// How many random schedules `--schedule random` runs.
        #[arg(long, default_value_t = 10)]
        runs: u64,
        /// How many schedules `--schedule all` may explore before it gives up.
        #[arg(long, default_value_t = 100_000)]
        limit: u64,
        /// Which accesses a barrier that does not fence their memory leaves unordered, as for
        /// `verify`: `seed` (a write before it with any access after it) or `opencl` (also a read
        /// before it with a write after it).
        #[arg(long, value_enum)]
        memory_model: Option<MemoryModelName>,
        #[command(flatten)]
        integers: IntegerOptions,
        /// How to report: `human` or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        #[command(flatten)]
        clang: ClangOptions,
    },
    /// Measure how lockstep's cost grows with a kernel: a table of generated kernels and the seed's.
    ///
    /// Generates kernels of a few families at each size (`ring`: barriers in sequence handing a
    /// cell round the ring; `pingpong`: barriers trading a cell back and forth; `seqloop`: loops in
    /// sequence, each with two barriers; `arrbar`: arrays handed over at one barrier; `ringmod`:
    /// the ring written with `%`), adds the seed's `demo` and `binomial`, and verifies each with a
    /// `lockstep verify` process of its own, `--runs` times. Prints, for each, the size, the
    /// obligations, the solver's work (z3's deterministic resource count), the median wall time of
    /// the whole process and its peak memory; then, per family, how the largest size's time
    /// compares with the smallest's. Files and folders named are verified together in one call, as
    /// a corpus. Exit status: 0, or 1 when a generated or seed kernel is not verified.
    Bench {
        /// The sizes of the generated kernels (barriers, loops or arrays), comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [4, 32])]
        sizes: Vec<usize>,
        /// How many times each kernel is verified (the table gives the median).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// The families to generate, comma-separated (all of them by default).
        #[arg(long = "family", value_delimiter = ',', value_parser = family)]
        families: Vec<lockstep_frontend::families::Family>,
        /// The `lockstep` executable to measure (another build, to compare two side by side);
        /// this one by default.
        #[arg(long, value_name = "EXECUTABLE")]
        verifier: Option<std::path::PathBuf>,
        /// Files and folders of kernels to verify in one call (a corpus), after the families.
        #[arg(value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
    },
    /// Serve the Language Server Protocol on stdin and stdout, for verifying in an editor.
    ///
    /// Diagnostics on open and on every change: syntax and type errors at once, verification
    /// results after a short pause (verification runs in the background and is cancelled when
    /// the text changes), each counterexample in the diagnostic's related information; hover on
    /// a contract clause or a barrier shows its obligations with their verdicts, as `explain`
    /// does; go to definition for arrays, variables and functions. `editors/vscode/` is a client.
    Lsp,
    /// Verify a program in the intermediate verification language (a subset of Boogie) directly.
    ///
    /// A debugging aid for the encoding of kernels into this language, and a way to compare the
    /// solvers and real Boogie on it; plain Boogie programs in the subset are valid input. Prints
    /// each failed check with its
    /// tag (or its line) and the values of the procedure's scalar variables where it fails. Exit status:
    /// 0 all verified, 1 some check failed, 2 bad input, 3 undecided and nothing failed.
    Ivl {
        /// The `.bpl` file.
        #[arg(value_name = "FILE")]
        file: String,
        #[command(flatten)]
        solver: SolverOptions,
        #[command(flatten)]
        output: Output,
    },
}

/// What `ivl` writes.
#[derive(clap::Args)]
struct Output {
    /// Write the program to verify (Boogie, or the SMT-LIB of its checks) instead of verifying it.
    #[arg(long, value_enum)]
    emit: Option<cli::ivl::Emit>,
    /// How to report: `human` or `json`.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// How the checks are decided.
#[derive(clap::Args)]
struct SolverOptions {
    /// `z3` in this process (the default), `z3-process` or `cvc5` as solver processes speaking
    /// SMT-LIB (found on the PATH, or named by LOCKSTEP_Z3 and LOCKSTEP_CVC5), or `boogie`, real
    /// Boogie on the printed program (named by LOCKSTEP_BOOGIE).
    #[arg(long, value_enum, default_value_t = cli::ivl::BackendName::Z3)]
    backend: cli::ivl::BackendName,
    /// Seconds a single solver check may take; past it, the check is undecided.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// A deterministic work limit per check (z3's rlimit, cvc5's rlimit-per); 0 for none.
    #[arg(long, default_value_t = 0)]
    resource_limit: u64,
    /// The solver's random seed.
    #[arg(long, default_value_t = 0)]
    seed: u32,
}

impl SolverOptions {
    fn limits(&self) -> lockstep_encoder::smt::Limits {
        lockstep_encoder::smt::Limits {
            timeout: std::time::Duration::from_secs(self.timeout.max(1)),
            resource_limit: self.resource_limit,
            seed: self.seed,
            cancel: None,
        }
    }
}

/// What Clang, which reads OpenCL C and CUDA, is given besides the file: the options of a C
/// compiler (and of GPUVerify's command line).
#[derive(clap::Args)]
struct ClangOptions {
    /// A folder where `#include` looks for headers (repeatable); a local `#include "..."` is
    /// found next to the file without it.
    #[arg(short = 'I', value_name = "DIR")]
    include_paths: Vec<std::path::PathBuf>,
    /// A macro, `NAME` or `NAME=VALUE`, as `#define` gives it (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// A header read before the file, as `clang -include` reads it (repeatable).
    #[arg(long = "include", value_name = "FILE")]
    includes: Vec<std::path::PathBuf>,
}

impl ClangOptions {
    fn options(self) -> lockstep_frontend::c::clang::Options {
        let ClangOptions { include_paths, defines, includes } = self;
        lockstep_frontend::c::clang::Options { folder: None, include_paths, defines, includes }
    }
}

/// How integers are read, where a file's language does not decide.
#[derive(clap::Args)]
struct IntegerOptions {
    /// Read PVL's `int` in code as C's 32-bit `int`: every `+`, `-`, `*`, `/` and negation must
    /// stay in its range (`arith.overflow`), for launches of at most 2^31 - 1 threads. OpenCL and
    /// CUDA files always read their integers so, unless `--mathematical-integers`.
    #[arg(long, conflicts_with_all = ["mathematical_integers", "wrapping_integers"])]
    int32: bool,
    /// Read the integers of OpenCL and CUDA code as mathematical integers, as VerCors does: no
    /// wrap-around of unsigned types and no overflow check of signed ones.
    #[arg(long, conflicts_with = "wrapping_integers")]
    mathematical_integers: bool,
    /// Read the signed integers of OpenCL and CUDA code as two's complement that wraps, as
    /// GPUVerify's bit-vectors do: no `arith.overflow` check (signed overflow is undefined in C;
    /// this reads it as every GPU computes it). PVL's `int` stays unbounded.
    #[arg(long)]
    wrapping_integers: bool,
}

impl IntegerOptions {
    fn integers(&self) -> Option<lockstep_frontend::Integers> {
        if self.int32 {
            Some(lockstep_frontend::Integers::Machine)
        } else if self.mathematical_integers {
            Some(lockstep_frontend::Integers::Mathematical)
        } else if self.wrapping_integers {
            Some(lockstep_frontend::Integers::Wrapping)
        } else {
            None
        }
    }
}

/// The memory models of `lockstep_logic::fences`, by the names the command line uses.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MemoryModelName {
    Seed,
    #[value(name = "opencl")]
    OpenCl,
}

impl From<MemoryModelName> for lockstep_logic::fences::MemoryModel {
    fn from(name: MemoryModelName) -> Self {
        match name {
            MemoryModelName::Seed => lockstep_logic::fences::MemoryModel::Seed,
            MemoryModelName::OpenCl => lockstep_logic::fences::MemoryModel::OpenCl,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
}

/// The most diagnostics shown per file in human output: past a hundred, the first ones are what a
/// user fixes, and drawing each snippet costs a pass over the file.
const MAX_RENDERED: usize = 100;

/// The allocator of the whole process, z3's C++ included (the crate's unprefixed `malloc` and
/// `free` take the place of glibc's for every library). glibc keeps a heap per thread and returns
/// little of it: verifying the 311 files of examples/ in one call peaked at 413 MiB with it and at
/// 215 MiB with jemalloc, with the same outcomes and the same solver work for every kernel.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { files, format, clang } => check(&files, format, &clang.options()),
        Command::Verify {
            files,
            solver,
            emit,
            format,
            replay,
            groups,
            gsize,
            global_size,
            integers,
            memory_model,
            no_infer,
            invariants_as_candidates,
            benign_races,
            only_intra_group,
            only_divergence,
            no_race_checks,
            kernel_args,
            clang,
        } => {
            let groups = match global_size.zip(gsize).map(|(global, gsize)| global.per_group(gsize)) {
                Some(Ok(groups)) => Some(groups),
                Some(Err(message)) => {
                    eprintln!("error: {message}");
                    return ExitCode::from(2);
                }
                None => groups,
            };
            let reporting = cli::verify::Reporting { emit, format, replay };
            let settings = lockstep_frontend::verify::Settings {
                backend: cli::ivl::backend_of(solver.backend),
                limits: solver.limits(),
                memory_model: memory_model.map(Into::into),
                launch: lockstep_frontend::verify::Launch { groups, gsize },
                integers: integers.integers(),
                infer: !no_infer,
                invariants_as_candidates,
                benign_races,
                checks: if only_divergence {
                    lockstep_frontend::verify::Checks::Divergence
                } else if only_intra_group {
                    lockstep_frontend::verify::Checks::IntraGroup
                } else if no_race_checks {
                    lockstep_frontend::verify::Checks::NoRaces
                } else {
                    lockstep_frontend::verify::Checks::All
                },
                kernel_args,
                clang: clang.options(),
            };
            cli::verify::run(&files, &settings, reporting)
        }
        Command::Run {
            file,
            kernel,
            groups,
            gsize,
            params,
            init,
            memory,
            seed,
            schedule,
            runs,
            limit,
            memory_model,
            integers,
            format,
            clang,
        } => cli::run::run(&cli::run::Arguments {
            file,
            kernel,
            groups,
            gsize,
            params,
            init,
            memory,
            seed,
            schedule,
            runs,
            limit,
            memory_model: memory_model.map(Into::into),
            integers: integers.integers(),
            json: format == Format::Json,
            clang: clang.options(),
        }),
        Command::Explain { file, verdicts, solver, format, memory_model, clang } => {
            let settings = lockstep_frontend::verify::Settings {
                backend: cli::ivl::backend_of(solver.backend),
                limits: solver.limits(),
                memory_model: memory_model.map(Into::into),
                clang: clang.options(),
                ..Default::default()
            };
            explain(&file, verdicts, &settings, format)
        }
        Command::Infer { file, groups, gsize, clang } => {
            let settings = lockstep_frontend::verify::Settings {
                launch: lockstep_frontend::verify::Launch { groups, gsize },
                clang: clang.options(),
                ..Default::default()
            };
            infer(&file, &settings)
        }
        Command::Bench { sizes, runs, families, verifier, files } => {
            let families =
                if families.is_empty() { lockstep_frontend::families::Family::ALL.to_vec() } else { families };
            cli::bench::run(&cli::bench::Options { sizes, runs, families, verifier, files })
        }
        Command::Lsp => cli::lsp::run(),
        Command::Ivl { file, solver, output } => {
            cli::ivl::run(&file, solver.backend, &solver.limits(), output.emit, output.format == Format::Json)
        }
    }
}

/// A family of `lockstep bench` by its name.
fn family(name: &str) -> Result<lockstep_frontend::families::Family, String> {
    lockstep_frontend::families::Family::named(name).ok_or_else(|| {
        let known: Vec<&str> = lockstep_frontend::families::Family::ALL.iter().map(|family| family.name()).collect();
        format!("no family `{name}` (known: {})", known.join(", "))
    })
}

/// `lockstep infer`: the file again, with the contracts inferred for its kernels that name no
/// permission written in as annotations of its language.
fn infer(path: &str, settings: &lockstep_frontend::verify::Settings) -> ExitCode {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("error: cannot read `{path}`: {error}");
            return ExitCode::from(2);
        }
    };
    let lockstep_frontend::verify::Verification { checked, kernels } =
        lockstep_frontend::verify::file(path, bytes, settings);
    let Some(program) = checked.program.as_ref().filter(|_| !checked.has_errors()) else {
        for diagnostic in &checked.diagnostics {
            eprint!("{}", diagnostic.render(&checked.file));
        }
        return ExitCode::from(2);
    };
    let results = match kernels {
        Some(Ok(results)) => results,
        Some(Err(error)) => {
            eprintln!("{path}: error: {}", error.message);
            return ExitCode::from(2);
        }
        None => unreachable!("a well-formed file is verified"),
    };
    let kernels: Vec<(&lockstep_logic::Kernel, Option<&lockstep_logic::Kernel>)> =
        program.kernels.iter().zip(&results).map(|(written, result)| (written, result.inferred.as_ref())).collect();
    let syntax = lockstep_frontend::infer::Syntax::of(path);
    print!("{}", lockstep_frontend::infer::annotated(&checked.file.text, syntax, &kernels));
    ExitCode::SUCCESS
}

/// `lockstep explain`: the outline of each kernel, with the verdicts when asked.
fn explain(
    path: &str,
    with_verdicts: bool,
    settings: &lockstep_frontend::verify::Settings,
    format: Format,
) -> ExitCode {
    use lockstep_frontend::verify::{self, Verdict};
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("error: cannot read `{path}`: {error}");
            return ExitCode::from(2);
        }
    };
    let verify::Verification { checked, kernels: results } = if with_verdicts {
        verify::file(path, bytes, settings)
    } else {
        let checked = lockstep_frontend::check_bytes_reading(path, bytes, None, &settings.clang);
        verify::Verification { checked, kernels: None }
    };
    let Some(program) = checked.program.as_ref().filter(|_| !checked.has_errors()) else {
        for diagnostic in &checked.diagnostics {
            eprint!("{}", diagnostic.render(&checked.file));
        }
        return ExitCode::from(2);
    };
    let results = match results {
        Some(Err(error)) => {
            eprintln!("{path}: error: {}", error.message);
            return ExitCode::from(2);
        }
        Some(Ok(results)) => Some(results),
        None => None,
    };
    let mut kernels_json = Vec::new();
    let mut all: Vec<Verdict> = Vec::new();
    let mut divergent = false;
    let memory_model = settings.memory_model_of(path);
    for explained in lockstep_frontend::explain::kernels(&checked.file, program, results.as_deref(), memory_model) {
        let verdicts = explained.verdicts.as_deref();
        match format {
            Format::Human => print!("{}", explained.explanation.human(&checked.file, verdicts)),
            Format::Json => kernels_json.push(explained.explanation.json(&checked.file, verdicts)),
        }
        divergent |= explained.divergent;
        all.extend(explained.verdicts.into_iter().flatten());
    }
    if format == Format::Json {
        let document = serde_json::json!({ "path": path, "kernels": kernels_json });
        println!("{}", serde_json::to_string_pretty(&document).expect("JSON values serialise"));
    }
    if with_verdicts && (divergent || all.contains(&Verdict::Failed)) {
        ExitCode::from(1)
    } else if all.iter().any(|verdict| matches!(verdict, Verdict::Undecided(_))) {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

fn read(path: &str, clang: &lockstep_frontend::c::clang::Options) -> Checked {
    match std::fs::read(path) {
        Ok(bytes) => lockstep_frontend::check_bytes_reading(path, bytes, None, clang),
        Err(error) => Checked {
            file: SourceFile::new(path, ""),
            program: None,
            diagnostics: vec![Diagnostic::error(
                Code::Unreadable,
                format!("cannot read `{path}`: {error}"),
                Span::new(0, 0),
                "",
            )],
        },
    }
}

fn check(paths: &[String], format: ReportFormat, clang: &lockstep_frontend::c::clang::Options) -> ExitCode {
    let results: Vec<Checked> = paths.iter().map(|path| read(path, clang)).collect();
    let failed = results.iter().any(Checked::has_errors);
    match format {
        ReportFormat::Human => {
            let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let mut stderr = std::io::stderr().lock();
            let mut stdout = std::io::stdout().lock();
            for result in &results {
                for diagnostic in result.diagnostics.iter().take(MAX_RENDERED) {
                    let _ = write!(stderr, "{}", diagnostic.render_with(&result.file, color));
                }
                if let Some(more) = result.diagnostics.len().checked_sub(MAX_RENDERED).filter(|&more| more > 0) {
                    let _ = writeln!(
                        stderr,
                        "... and {more} more in {} (`--format json` lists them all)",
                        result.file.path
                    );
                }
                let _ = writeln!(stdout, "{}", summary(result));
            }
        }
        ReportFormat::Json => {
            let files: Vec<serde_json::Value> = results.iter().map(file_json).collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({ "files": files })).expect("JSON values serialise")
            );
        }
        ReportFormat::Sarif => {
            let mut log = cli::sarif::Log::default();
            for result in &results {
                for diagnostic in &result.diagnostics {
                    log.diagnostic(&result.file, diagnostic);
                }
            }
            println!("{}", log.into_json(!failed));
        }
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn summary(result: &Checked) -> String {
    let path = &result.file.path;
    let count = |errors: bool| result.diagnostics.iter().filter(|diagnostic| diagnostic.is_error() == errors).count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match &result.program {
        Some(program) => {
            let names: Vec<&str> = program.kernels.iter().map(|kernel| kernel.name.as_str()).collect();
            let warnings = count(false);
            let warnings = if warnings > 0 { format!(", {}", plural(warnings, "warning")) } else { String::new() };
            format!("{path}: well formed ({}: {}){warnings}", plural(names.len(), "kernel"), names.join(", "))
        }
        None => format!("{path}: rejected ({})", plural(count(true), "error")),
    }
}

fn file_json(result: &Checked) -> serde_json::Value {
    let kernels: Vec<serde_json::Value> = result
        .program
        .iter()
        .flat_map(|program| &program.kernels)
        .map(|kernel| {
            let position = result.file.position(kernel.span.start);
            serde_json::json!({ "name": kernel.name, "line": position.line, "column": position.column })
        })
        .collect();
    let (errors, warnings): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        result.diagnostics.iter().partition(|diagnostic| diagnostic.is_error());
    let to_json = |list: Vec<&Diagnostic>| list.into_iter().map(|d| d.to_json(&result.file)).collect::<Vec<_>>();
    serde_json::json!({
        "path": result.file.path,
        "well_formed": result.program.is_some(),
        "kernels": kernels,
        "errors": to_json(errors),
        "warnings": to_json(warnings),
    })
}
