//! The frontend of lockstep: everything between the bytes of a kernel file and the kernel IR of
//! `lockstep_logic`, the services built on that pipeline, and the diagnostics; the `lockstep`
//! command line (`main.rs` and `cli/`) is a client of it.
//!
//! Pipeline: [`source`] decodes the file; the module of its language turns the text into a
//! [`lockstep_logic::Program`] ([`pvl`], lockstep's kernel language); then the constructs the
//! verifier does not support yet are refused ([`lockstep_logic::support`]). Every problem found on
//! the way is a [`diagnostics::Diagnostic`] with a stable code and a span. [`verify::file`] is the
//! whole pipeline, from the bytes of a file to a verdict per obligation: parse and resolve,
//! outline (`lockstep_logic::outline`), encode (`lockstep_encoder::kernel`), solve, report;
//! [`run`] executes a kernel on one launch, [`explain`] prints an outline as the seed writes it,
//! [`editor`] gives what an editor shows of a file (the language server's and the playground's
//! answers), and [`hunt`] compares `verify` with `run` on generated kernels.
//!
//! ```
//! use lockstep_frontend::{check_file, source::SourceFile};
//! let text = "kernel k { global int[gsize] a; requires perm(a[tid], 100); void main() { a[tid] := 1; } }";
//! let checked = check_file(SourceFile::new("k.pvl", text));
//! assert_eq!(checked.program.unwrap().kernels[0].name, "k");
//! ```
//!
//! Architecture invariants: this is the only crate that reads files or prints (and it does both
//! only in `main.rs`; the library returns values). No input makes it panic: malformed text gives
//! diagnostics, never a crash, and the nesting depth is bounded so no recursive pass can overflow
//! the stack. It decides no obligation (the outline does) and talks to no solver itself (the
//! encoder's backends do).

pub mod c;
pub mod diagnostics;
pub mod editor;
pub mod explain;
pub mod families;
pub mod hunt;
pub mod infer;
pub mod pvl;
pub mod run;
pub mod source;
mod syntax;
pub mod verify;

pub use c::integers::Integers;
use diagnostics::{Code, Diagnostic};
use lockstep_logic::Program;
use source::SourceFile;

/// The result of checking one file: the program when it is well formed, and every diagnostic.
#[derive(Debug)]
pub struct Checked {
    pub file: SourceFile,
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Decodes, parses and checks the bytes of a file.
pub fn check_bytes(path: &str, bytes: Vec<u8>) -> Checked {
    check_bytes_reading(path, bytes, None, &c::clang::Options::default())
}

/// [`check_bytes`], reading integers as asked rather than as the file's language does by default
/// (mathematical in PVL, machine integers in OpenCL and CUDA), and C with the user's options for
/// Clang (`-I`, `-D`, `-include`).
pub fn check_bytes_reading(
    path: &str,
    bytes: Vec<u8>,
    integers: Option<Integers>,
    clang: &c::clang::Options,
) -> Checked {
    match SourceFile::decode(path, bytes) {
        Ok(file) => check_file_reading(file, integers, clang),
        Err((file, span)) => {
            let diagnostic =
                Diagnostic::error(Code::InvalidUtf8, "the file is not valid UTF-8", span, "invalid byte here")
                    .with_help("save the file as UTF-8 text");
            Checked { file, program: None, diagnostics: vec![diagnostic] }
        }
    }
}

/// Parses and checks a decoded file in its language. The constructs the verifier does not support
/// yet ([`lockstep_logic::support`]) are looked for only in a program that resolves, each use its
/// own `kernel::unsupported` error. A file with none of these errors is one the verifier and the
/// executor accept.
pub fn check_file(file: SourceFile) -> Checked {
    check_file_reading(file, None, &c::clang::Options::default())
}

/// [`check_file`], reading integers and C as asked ([`check_bytes_reading`]).
pub fn check_file_reading(file: SourceFile, integers: Option<Integers>, clang: &c::clang::Options) -> Checked {
    let (program, mut diagnostics) = match c_dialect(&file.path) {
        Some(dialect) => {
            let folder = std::path::Path::new(&file.path).parent().map(std::path::Path::to_path_buf);
            let options = c::clang::Options { folder, ..clang.clone() };
            c::check(&file.text, dialect, integers.unwrap_or(Integers::Machine), &options)
        }
        None => pvl::check(&file.text, integers.unwrap_or(Integers::Mathematical)),
    };
    let Some(program) = program else { return Checked { file, program: None, diagnostics } };
    if !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.extend(lockstep_logic::support::unsupported(&program).into_iter().map(refusal));
    }
    diagnostics.sort_by_key(|diagnostic| diagnostic.primary.span.start);
    let program = (!diagnostics.iter().any(Diagnostic::is_error)).then_some(program);
    Checked { file, program, diagnostics }
}

/// The C dialect a file's extension names: `.cl` is OpenCL C and `.cu` CUDA; anything else is PVL.
pub fn c_dialect(path: &str) -> Option<c::Dialect> {
    match std::path::Path::new(path).extension().and_then(|extension| extension.to_str()) {
        Some("cl") => Some(c::Dialect::OpenCl),
        Some("cu") => Some(c::Dialect::Cuda),
        _ => None,
    }
}

/// The memory model a file's language gives barriers: OpenCL's for OpenCL C (a barrier that does
/// not fence a memory also leaves a read before it unordered with a write after it, as GPUVerify
/// checks), the seed's for PVL and CUDA (whose `__syncthreads` fences all memory).
pub fn memory_model_of(path: &str) -> lockstep_logic::fences::MemoryModel {
    match c_dialect(path) {
        Some(c::Dialect::OpenCl) => lockstep_logic::fences::MemoryModel::OpenCl,
        Some(c::Dialect::Cuda) | None => lockstep_logic::fences::MemoryModel::Seed,
    }
}

/// A construct the language does not support yet, as the diagnostic every command gives for it.
fn refusal(unsupported: lockstep_logic::support::Unsupported) -> Diagnostic {
    Diagnostic::error(Code::Unsupported, unsupported.message, unsupported.span, unsupported.label)
        .with_help(unsupported.help)
}
