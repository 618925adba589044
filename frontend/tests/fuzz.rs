//! Property tests: no input makes the frontend panic, and every diagnostic points inside the file.
//!
//! Three generators: random bytes; random sequences of the language's tokens (which get much
//! deeper into the parser and resolver than bytes do); and the seed examples with one token
//! deleted, duplicated or replaced (which get into every corner of the resolver). The suite runs a
//! bounded number of cases; `PROPTEST_CASES=100000 cargo test --release --test fuzz` runs a longer
//! campaign.

use lockstep_frontend::source::SourceFile;
use lockstep_frontend::{check_bytes, check_file, Checked};
use lockstep_logic::fences::MemoryModel;
use proptest::prelude::*;

const VOCABULARY: &[&str] = &[
    "kernel",
    "group",
    "global",
    "local",
    "pure",
    "void",
    "int",
    "bool",
    "requires",
    "ensures",
    "invariant",
    "loop_invariant",
    "if",
    "else",
    "while",
    "barrier",
    "assert",
    "assume",
    "true",
    "false",
    "mod",
    "perm",
    "Perm",
    "read",
    "write",
    "\\forall",
    "\\forall*",
    "\\exists",
    "\\old",
    "\\result",
    "\\bogus",
    "main",
    "tid",
    "gid",
    "lid",
    "tcount",
    "gsize",
    "a",
    "b",
    "x",
    "f",
    "0",
    "1",
    "100",
    "99999999999999999999999",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    ":=",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "**",
    "/",
    "\\",
    "%",
    "&&",
    "&",
    "||",
    "|",
    "!",
    "->",
    "==>",
    "?",
    ":",
    "#",
    "/*",
    "*/",
    "//",
    "\n",
    "é",
];

const SEEDS: &[&str] =
    &[include_str!("../../examples/seed/demo.pvl"), include_str!("../../examples/seed/binomial.pvl")];

/// The words of OpenCL C and CUDA, annotations and directives included.
const C_VOCABULARY: &[&str] = &[
    "struct",
    "typedef",
    "->",
    "__kernel",
    "kernel",
    "__global__",
    "__device__",
    "__shared__",
    "extern",
    "global",
    "local",
    "__global",
    "__local",
    "constant",
    "void",
    "int",
    "unsigned",
    "char",
    "short",
    "long",
    "size_t",
    "uint",
    "bool",
    "float",
    "double",
    "half",
    "const",
    "struct",
    "if",
    "else",
    "for",
    "while",
    "do",
    "break",
    "continue",
    "return",
    "switch",
    "case",
    "sizeof",
    "barrier",
    "__syncthreads",
    "CLK_LOCAL_MEM_FENCE",
    "CLK_GLOBAL_MEM_FENCE",
    "get_global_id",
    "get_local_id",
    "threadIdx",
    "blockIdx",
    ".x",
    ".y",
    "min",
    "abs",
    "NULL",
    "/*@",
    "@*/",
    "//@",
    "\n",
    "requires",
    "ensures",
    "context",
    "loop_invariant",
    "assert",
    "Perm",
    "read",
    "write",
    "\\forall",
    "\\forall*",
    "\\exists",
    "\\old",
    "\\gtid",
    "\\ltid",
    "\\pointer_length",
    "\\pointer_index",
    "\\shared_mem_size",
    "\\bogus",
    "#define",
    "#if",
    "#ifdef",
    "#endif",
    "#include",
    "<opencl.h>",
    "#pragma",
    "N",
    "F(x)",
    "a",
    "b",
    "i",
    "x",
    "0",
    "1",
    "7u",
    "0x10",
    "2147483647",
    "4294967296",
    "1.5f",
    "2.0",
    "sqrt",
    "fabs",
    "'c'",
    "int4",
    "float3",
    "uchar2",
    ".xy",
    ".s3",
    ".hi",
    "vload2",
    "vstore4",
    "select",
    "shuffle",
    "__read",
    "__write_offset_bytes",
    "__assert",
    "\\returned",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    "=",
    "+=",
    "<<=",
    "++",
    "--",
    "==",
    "!=",
    "<",
    "<=",
    ">>",
    "<<",
    "+",
    "-",
    "*",
    "**",
    "/",
    "\\",
    "%",
    "&&",
    "||",
    "&",
    "|",
    "^",
    "~",
    "!",
    "==>",
    "?",
    ":",
    "->",
    "...",
    "@",
    "#",
];

const C_SEEDS: &[(&str, &str)] = &[
    ("fuzz.cu", include_str!("verify/blur.cu")),
    ("fuzz.cl", include_str!("verify/add.cl")),
    ("fuzz.cl", include_str!("verify/helpers.cl")),
    ("fuzz.cl", include_str!("verify/floats.cl")),
    ("fuzz.cl", include_str!("verify/vectors.cl")),
    ("fuzz.cl", include_str!("verify/bools.cl")),
    ("fuzz.cl", include_str!("verify/access_logs.cl")),
    ("fuzz.cl", include_str!("verify/returns.cl")),
    ("fuzz.cl", include_str!("verify/shifts.cl")),
    ("fuzz.cl", include_str!("verify/olds.cl")),
    ("fuzz.cl", include_str!("verify/private.cl")),
    ("fuzz.cl", include_str!("verify/bits.cl")),
    ("fuzz.cl", include_str!("verify/pointer_targets.cl")),
    ("fuzz.cl", include_str!("verify/variable_flags.cl")),
    ("fuzz.cl", include_str!("verify/constants.cl")),
    ("fuzz.cl", include_str!("verify/structs.cl")),
    ("fuzz.cl", include_str!("verify/work_dim.cl")),
    ("fuzz.cl", include_str!("verify/noovfl.cl")),
    ("fuzz.cl", include_str!("verify/quantified.cl")),
];

/// What must hold for every input: spans inside the text, rendering works, and a program is
/// returned exactly when there is no error.
fn assert_sane(checked: &Checked) {
    let length = checked.file.text.len();
    for diagnostic in &checked.diagnostics {
        for label in std::iter::once(&diagnostic.primary).chain(&diagnostic.secondary) {
            assert!(label.span.start <= label.span.end && label.span.end <= length, "{diagnostic:?}");
            assert!(checked.file.text.is_char_boundary(label.span.start), "{diagnostic:?}");
            assert!(checked.file.text.is_char_boundary(label.span.end), "{diagnostic:?}");
        }
        let _ = diagnostic.render(&checked.file);
        let _ = diagnostic.to_json(&checked.file);
    }
    assert_eq!(checked.program.is_some(), !checked.has_errors());
}

fn tokens() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(VOCABULARY), 0..120).prop_map(|words| words.join(" "))
}

/// A text with one whitespace-separated word deleted, duplicated or replaced by `word`.
fn mutate(seed: &str, at: prop::sample::Index, action: u8, word: &str) -> String {
    let mut words: Vec<&str> = seed.split(' ').collect();
    let index = at.index(words.len());
    match action {
        0 => {
            words.remove(index);
        }
        1 => words.insert(index, words[index]),
        _ => words[index] = word,
    }
    words.join(" ")
}

/// A seed example, mutated.
fn mutated_seed() -> impl Strategy<Value = String> {
    (prop::sample::select(SEEDS), any::<prop::sample::Index>(), 0..3u8, prop::sample::select(VOCABULARY))
        .prop_map(|(seed, at, action, word)| mutate(seed, at, action, word))
}

fn c_tokens() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(C_VOCABULARY), 0..120)
        .prop_map(|words| words.join(" ").replace("\\n", "\n"))
}

/// A C seed, mutated.
fn mutated_c_seed() -> impl Strategy<Value = (&'static str, String)> {
    (prop::sample::select(C_SEEDS), any::<prop::sample::Index>(), 0..3u8, prop::sample::select(C_VOCABULARY))
        .prop_map(|((path, seed), at, action, word)| (path, mutate(seed, at, action, word)))
}

/// 512 cases per generator in the test suite, or `PROPTEST_CASES` for a longer campaign.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(512);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        assert_sane(&check_bytes("fuzz.pvl", bytes));
    }

    #[test]
    fn random_token_sequences_never_panic(text in tokens()) {
        assert_sane(&check_file(SourceFile::new("fuzz.pvl", text)));
    }

    #[test]
    fn mutated_seed_examples_never_panic(text in mutated_seed()) {
        assert_sane(&check_file(SourceFile::new("fuzz.pvl", text)));
    }

    #[test]
    fn random_bytes_never_panic_as_opencl_or_cuda(bytes in prop::collection::vec(any::<u8>(), 0..400), cuda: bool) {
        assert_sane(&check_bytes(if cuda { "fuzz.cu" } else { "fuzz.cl" }, bytes));
    }

    #[test]
    fn random_c_token_sequences_never_panic(text in c_tokens(), cuda: bool) {
        assert_sane(&check_file(SourceFile::new(if cuda { "fuzz.cu" } else { "fuzz.cl" }, text)));
    }

    #[test]
    fn mutated_c_kernels_never_panic((path, text) in mutated_c_seed()) {
        assert_sane(&check_file(SourceFile::new(path, text)));
    }

    /// The concrete executor takes whatever the checker accepts, on any small launch.
    #[test]
    fn mutated_seed_examples_run_without_panic(
        text in mutated_seed(),
        groups in 1..4u32,
        gsize in 1..6u32,
        memory in prop::option::of(any::<u64>()),
    ) {
        let checked = check_file(SourceFile::new("fuzz.pvl", text));
        if let Some(program) = &checked.program {
            let options = lockstep_frontend::run::Options { groups: groups.into(), gsize: gsize.into(), random_memory: memory, ..Default::default() };
            for kernel in &program.kernels {
                if let Ok(launch) = lockstep_frontend::run::launch(program, kernel, &options) {
                    let schedule = lockstep_logic::execute::Schedule::Random { seed: memory.unwrap_or(0) };
                    let _ = lockstep_logic::execute::run(program, kernel, &launch, &schedule, MemoryModel::Seed);
                }
            }
        }
    }
}

#[test]
fn very_deep_input_is_refused_without_overflowing_the_stack() {
    for (open, close) in [("(", ")"), ("!", ""), ("-", ""), ("{", "}"), ("if (true) ", "")] {
        let nested = format!("{}x{}", open.repeat(50_000), close.repeat(50_000));
        let text = format!("kernel k {{ void main() {{ bool x := true; int y := {nested}; }} }}");
        assert_sane(&check_file(SourceFile::new("deep.pvl", text)));
        let chain = format!("kernel k {{ void main() {{ int y := {}1; }} }}", "1 + ".repeat(50_000));
        assert_sane(&check_file(SourceFile::new("long.pvl", chain)));
        let c = format!("__kernel void k() {{ bool x = true; int y = {nested}; }}");
        assert_sane(&check_file(SourceFile::new("deep.cl", c)));
    }
    let c_chain = format!("__global__ void k() {{ int y = {}1; }}", "1 + ".repeat(50_000));
    assert_sane(&check_file(SourceFile::new("long.cu", c_chain)));
    // A macro that expands to itself many times over stops.
    let mut macros = String::from("#define A0 x + x\n");
    for level in 1..40 {
        macros.push_str(&format!("#define A{level} A{} + A{}\n", level - 1, level - 1));
    }
    macros.push_str("__kernel void k() { int y = A39; }");
    assert_sane(&check_file(SourceFile::new("macros.cl", macros)));
}

#[test]
fn the_deepest_accepted_nesting_fits_a_test_threads_stack() {
    // Test threads have 2 MiB of stack, less than a main thread: if the limit fits here, it fits.
    let depth = lockstep_frontend::pvl::ast::MAX_DEPTH as usize - 2;
    let negations = format!("{}true", "!".repeat(depth));
    let sums = format!("{}1", "1 + ".repeat(depth));
    let calls = format!("{}0{}", "f(".repeat(depth), ")".repeat(depth));
    let quantifiers: String = (0..depth / 2).map(|level| format!("(\\forall int i{level}; true; ")).collect::<String>()
        + "true"
        + &")".repeat(depth / 2);
    for (ty, value) in [("bool", negations), ("int", sums), ("int", calls), ("bool", quantifiers)] {
        let text = format!("pure int f(int x) = x;\nkernel k {{ void main() {{ {ty} y := {value}; }} }}");
        let checked = check_file(SourceFile::new("deep.pvl", text));
        assert_sane(&checked);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics.first());
    }
    let blocks = format!("kernel k {{ void main() {{ {}int y := 0;{} }} }}", "{ ".repeat(depth), " }".repeat(depth));
    let branches = format!("kernel k {{ void main() {{ {}int y := 0; }} }}", "if (true) ".repeat(depth));
    for text in [blocks, branches] {
        let checked = check_file(SourceFile::new("deep.pvl", text));
        assert_sane(&checked);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics.first());
    }
}

/// Clang's error at the very end of a file whose annotation uses a macro (so that lockstep
/// appends its `#pragma message` requests after the text) lies in the file, not in the requests:
/// proptest found one past the end.
#[test]
fn an_error_at_the_end_of_a_file_with_macro_requests_lies_inside_it() {
    for text in ["//@ if \n __kernel global [", "#define N 4\n//@ requires N > 0;\n__global__ void k() { int x = N"] {
        assert_sane(&check_file(SourceFile::new("end.cu", text.to_string())));
    }
}
