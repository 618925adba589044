//! The kernel IR that the checker produces: the meaning of the seed's notation, pinned down.

use lockstep_frontend::check_file;
use lockstep_frontend::source::SourceFile;
use lockstep_logic::{Amount, Assertion, AssertionKind, Expr, ExprKind, Kernel, Program, StmtKind};

fn program(text: &str) -> Program {
    program_in("test.pvl", text)
}

fn program_in(path: &str, text: &str) -> Program {
    let checked = check_file(SourceFile::new(path, text));
    let rendered: Vec<String> = checked.diagnostics.iter().map(|d| d.render(&checked.file)).collect();
    checked.program.unwrap_or_else(|| panic!("rejected:\n{}", rendered.join("\n")))
}

/// A compact prefix form of an expression, with names resolved.
fn show_expr(kernel: &Kernel, program: &Program, expr: &Expr) -> String {
    let show = |e: &Expr| show_expr(kernel, program, e);
    match &expr.kind {
        ExprKind::Int(value) => value.to_string(),
        ExprKind::Bool(value) => value.to_string(),
        ExprKind::Builtin(builtin) => builtin.name().to_string(),
        ExprKind::Var(var) => kernel.var(*var).name.clone(),
        ExprKind::Read { array, index } => {
            format!("{}[{}]", kernel.array(*array).name, show(index))
        }
        ExprKind::Unary { op, operand } => format!("({op:?} {})", show(operand)),
        ExprKind::Binary { op, lhs, rhs } => format!("({op:?} {} {})", show(lhs), show(rhs)),
        ExprKind::Cond { cond, then_value, else_value } => {
            format!("(? {} {} {})", show(cond), show(then_value), show(else_value))
        }
        ExprKind::Call { function, args } => {
            let args: Vec<String> = args.iter().map(show).collect();
            format!("{}({})", program.functions[function.index()].name, args.join(", "))
        }
        ExprKind::Quantifier { quantifier, var, range, body } => {
            format!("({quantifier:?} {} {} {})", kernel.var(*var).name, show(range), show(body))
        }
        ExprKind::Sum { var, lower, upper, body } => {
            format!("(sum {} {} {} {})", kernel.var(*var).name, show(lower), show(upper), show(body))
        }
        ExprKind::Old(value) => format!("(old {})", show(value)),
        ExprKind::Result => "result".to_string(),
        ExprKind::InRange { value, int } => format!("(in {} {})", int.name().replace(' ', "_"), show(value)),
        ExprKind::PrivateIndex { index, length } => format!("(private_index {length} {})", show(index)),
        ExprKind::Ticket { counter, cell, site, int } => {
            format!("(ticket {} {} {site} {})", kernel.array(*counter).name, show(cell), int.name().replace(' ', "_"))
        }
    }
}

fn show(kernel: &Kernel, program: &Program, assertion: &Assertion) -> String {
    let recurse = |a: &Assertion| show(kernel, program, a);
    match &assertion.kind {
        AssertionKind::Pure(expr) => show_expr(kernel, program, expr),
        AssertionKind::Perm(atom) => {
            let amount = match &atom.amount {
                Amount::Exact(q) => q.to_string(),
                Amount::Divided { fraction, divisor } => {
                    format!("{fraction} \\ {}", show_expr(kernel, program, divisor))
                }
                Amount::Read => "read".to_string(),
            };
            format!("perm({}[{}], {amount})", kernel.array(atom.array).name, show_expr(kernel, program, &atom.index))
        }
        AssertionKind::Star(lhs, rhs) => format!("(** {} {})", recurse(lhs), recurse(rhs)),
        AssertionKind::Implies(cond, body) => format!("(-> {} {})", show_expr(kernel, program, cond), recurse(body)),
        AssertionKind::Cond(cond, lhs, rhs) => {
            format!("(? {} {} {})", show_expr(kernel, program, cond), recurse(lhs), recurse(rhs))
        }
        AssertionKind::ForallStar { var, range, body } => {
            format!("(forall* {} {} {})", kernel.var(*var).name, show_expr(kernel, program, range), recurse(body))
        }
    }
}

fn requires(text: &str) -> Vec<String> {
    let program = program(text);
    let kernel = &program.kernels[0];
    kernel.thread_contract.requires.iter().map(|clause| show(kernel, &program, &clause.assertion)).collect()
}

fn kernel_with(clauses: &str) -> String {
    format!(
        "kernel k(int n) {{\n  global int[gsize] a, b;\n  local int[gsize] t;\n{clauses}\n  void main() {{ }}\n}}\n"
    )
}

#[test]
fn the_separating_star_binds_loosest_as_in_the_seed() {
    let binomial = requires(include_str!("../../examples/seed/binomial.pvl"));
    assert_eq!(binomial[1], "(** (** (Gt gsize 1) perm(bin[tid], 1)) perm(tmp[tid], 1))");
    let demo = program(include_str!("../../examples/seed/demo.pvl"));
    let kernel = &demo.kernels[0];
    let ensures = show(kernel, &demo, &kernel.thread_contract.ensures[0].assertion);
    assert_eq!(ensures, "(** perm(b[tid], 1) (Eq b[tid] (Mod (Add tid 1) gsize)))");
}

#[test]
fn a_star_between_values_multiplies() {
    let found = requires(&kernel_with("  requires 2 * n > 0 * perm(a[2 * tid], 50);"));
    assert_eq!(found, ["(** (Gt (Mul 2 n) 0) perm(a[(Mul 2 tid)], 1/2))"]);
}

#[test]
fn amounts_are_exact_rationals() {
    let found = requires(&kernel_with(
        "  requires perm(a[tid], 10) ** Perm(b[tid], 1\\3) ** Perm(t[tid], 2/4) ** Perm(a[0], read) ** Perm(b[0], write);",
    ));
    assert_eq!(
        found,
        ["(** (** (** (** perm(a[tid], 1/10) perm(b[tid], 1/3)) perm(t[tid], 1/2)) perm(a[0], read)) perm(b[0], 1))"]
    );
}

#[test]
fn amounts_divided_by_a_value_of_the_launch_stay_symbolic() {
    let found = requires(&kernel_with(
        "  requires Perm(a[tid], write \\ gsize) ** Perm(b[tid], 1\\2 \\ (n + 1)) ** Perm(t[tid], 1 / tcount) ** Perm(a[0], write \\ 4);",
    ));
    assert_eq!(
        found,
        ["(** (** (** perm(a[tid], 1 \\ gsize) perm(b[tid], 1/2 \\ (Add n 1))) perm(t[tid], 1 \\ tcount)) perm(a[0], 1/4))"]
    );
}

#[test]
fn conditions_quantifiers_and_conditional_resources() {
    let found = requires(&kernel_with(
        "  requires tid < n -> perm(a[tid], 100);\n  requires tid == 0 ? perm(b[0], 100) : true;\n  requires \\forall* int i; 0 <= i && i < n; Perm(t[i], 1/2);\n  requires (\\forall int j; 0 <= j && j < n; a[j] >= 0 || a[j] < 0);",
    ));
    assert_eq!(
        found,
        [
            "(-> (Lt tid n) perm(a[tid], 1))",
            "(? (Eq tid 0) perm(b[0], 1) true)",
            "(forall* i (And (Le 0 i) (Lt i n)) perm(t[i], 1/2))",
            "(Forall j (And (Le 0 j) (Lt j n)) (Or (Ge a[j] 0) (Lt a[j] 0)))",
        ]
    );
}

#[test]
fn a_chain_of_comparisons_is_their_conjunction() {
    let text = kernel_with("  requires 0 <= n < 3;\n  requires n > 1 >= 0;");
    assert_eq!(requires(&text), ["(And (Le 0 n) (Lt n 3))", "(And (Gt n 1) (Ge 1 0))"]);
}

#[test]
fn a_sum_ranges_over_the_half_open_interval_its_bounds_give() {
    let text = kernel_with(
        "  requires \\sum(int j; 0 <= j < n; a[j]) == 0;\n  requires \\sum(j; 0 < j && j <= n; j) == 1;\n  requires \\sum(j; n > j && j >= 2; j) == 2;",
    );
    assert_eq!(
        requires(&text),
        ["(Eq (sum j 0 n a[j]) 0)", "(Eq (sum j (Add 0 1) (Add n 1) j) 1)", "(Eq (sum j 2 n j) 2)",]
    );
}

#[test]
fn boolean_connectives_and_implication_fold_into_pure_facts() {
    let found = requires(&kernel_with("  requires tid > 0 & n > 0 -> n mod 2 = 0 | n % 2 != 1;"));
    assert_eq!(found, ["(Implies (And (Gt tid 0) (Gt n 0)) (Or (Eq (Mod n 2) 0) (Ne (Rem n 2) 1)))"]);
}

#[test]
fn levels_barriers_and_loops_land_in_their_places() {
    let program = program(include_str!("../../examples/seed/binomial.pvl"));
    let kernel = &program.kernels[0];
    assert!(kernel.kernel_contract.is_none() && kernel.group_contract.is_none());
    assert_eq!(kernel.barriers.len(), 2);
    let first = &kernel.barriers[0];
    assert_eq!(first.label.as_ref().map(|label| label.to_string()), Some("1".to_string()));
    assert!(first.fences.local && !first.fences.global);
    assert_eq!((first.contract.requires.len(), first.contract.ensures.len()), (2, 3));
    let second = &kernel.barriers[1];
    assert!(!second.fences.local && !second.fences.global);
    let loop_stmt = kernel.body.stmts.iter().find(|stmt| matches!(stmt.kind, StmtKind::While { .. }));
    let Some(StmtKind::While { invariants, .. }) = loop_stmt.map(|stmt| &stmt.kind) else { panic!("no loop") };
    assert_eq!(invariants.len(), 3);
    assert_eq!(program.functions[0].name, "binom");
}

#[test]
fn kernel_and_group_contracts_are_kept_when_written() {
    let text = kernel_with(
        "  kernel requires tcount > 1;\n  group ensures (\\forall int i; gid * gsize <= i && i < (gid + 1) * gsize; a[i] == \\old(a[i]));\n  requires Perm(a[tid], write);",
    );
    let program = program(&text);
    let kernel = &program.kernels[0];
    let kernel_contract = kernel.kernel_contract.as_ref().expect("a kernel contract");
    assert_eq!((kernel_contract.requires.len(), kernel_contract.ensures.len()), (1, 0));
    let group_contract = kernel.group_contract.as_ref().expect("a group contract");
    assert_eq!(
        show(kernel, &program, &group_contract.ensures[0].assertion),
        "(Forall i (And (Le (Mul gid gsize) i) (Lt i (Mul (Add gid 1) gsize))) (Eq a[i] (old a[i])))"
    );
}

#[test]
fn a_star_between_conditional_resources_separates() {
    let found = requires(&kernel_with(
        "  requires (tid > 0 -> perm(a[tid],100)) * (tid > 0 -> perm(b[tid],100));\n  requires n > 0 ? perm(a[0],50) ** perm(b[0],50) : perm(t[lid],100);",
    ));
    assert_eq!(
        found,
        [
            "(** (-> (Gt tid 0) perm(a[tid], 1)) (-> (Gt tid 0) perm(b[tid], 1)))",
            "(? (Gt n 0) (** perm(a[0], 1/2) perm(b[0], 1/2)) perm(t[lid], 1))",
        ]
    );
}

#[test]
fn a_double_star_binds_like_and_and_a_quantifier_may_follow_an_arrow() {
    let found = requires(&kernel_with(
        "  requires tid < n -> perm(a[tid],100) ** perm(b[tid],100);\n  requires n > 0 -> \\forall* int i; 0 <= i && i < n; Perm(t[i], read);",
    ));
    assert_eq!(
        found,
        [
            "(-> (Lt tid n) (** perm(a[tid], 1) perm(b[tid], 1)))",
            "(-> (Gt n 0) (forall* i (And (Le 0 i) (Lt i n)) perm(t[i], read)))",
        ]
    );
}

#[test]
fn a_kernel_contract_may_quantify_over_a_variable_named_tid() {
    let text = kernel_with(
        "  kernel requires (\\forall int tid; 0 <= tid && tid < tcount; a[tid] >= 0);\n  requires Perm(a[tid], write);",
    );
    let program = program(&text);
    let kernel = &program.kernels[0];
    let contract = kernel.kernel_contract.as_ref().expect("a kernel contract");
    assert_eq!(
        show(kernel, &program, &contract.requires[0].assertion),
        "(Forall tid (And (Le 0 tid) (Lt tid tcount)) (Ge a[tid] 0))"
    );
    // Inside the quantifier `tid` is the bound variable, not the reserved name.
    let AssertionKind::Pure(Expr { kind: ExprKind::Quantifier { var, .. }, .. }) = &contract.requires[0].assertion.kind
    else {
        panic!()
    };
    assert_eq!(kernel.var(*var).kind, lockstep_logic::VarKind::Bound);
}

/// The barrier intervals of the seed's binomial kernel (`logic::fences`): the loop makes barrier 1
/// reachable from the launch and from barrier 2 of the previous round, and barrier 2 from barrier 1
/// only. Barrier 2 fences nothing, so for global memory its unordered intervals reach back through
/// barrier 1 (which fences only local memory) to the launch; for local memory they stop at barrier 1.
#[test]
fn barrier_intervals_follow_loops_and_stop_at_fencing_barriers() {
    use lockstep_logic::fences::{Intervals, Start};
    use lockstep_logic::{BarrierId, Memory};
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/seed/binomial.pvl")).unwrap();
    let program = program(&text);
    let kernel = &program.kernels[0];
    let intervals = Intervals::of(kernel);
    let (first, second) = (BarrierId(0), BarrierId(1));
    let starts = |map: &std::collections::BTreeMap<Start, _>| map.keys().copied().collect::<Vec<Start>>();
    assert_eq!(starts(intervals.ending_at(first)), [Start::Launch, Start::Barrier(second)]);
    assert_eq!(starts(intervals.ending_at(second)), [Start::Barrier(first)]);
    assert_eq!(starts(&intervals.unordered(kernel, second, Memory::Local)), [Start::Barrier(first)]);
    assert_eq!(
        starts(&intervals.unordered(kernel, second, Memory::Global)),
        [Start::Launch, Start::Barrier(first), Start::Barrier(second)]
    );
    // `N := N+1` and `temp := ...` lie between the barriers, and a whole round between barrier 2
    // and itself: the variables a writer's copy may have changed since.
    let names = |start: Start| {
        let unordered = intervals.unordered(kernel, second, Memory::Global);
        let mut names: Vec<String> = unordered[&start].iter().map(|var| kernel.var(*var).name.clone()).collect();
        names.sort();
        names
    };
    assert_eq!(names(Start::Barrier(first)), ["N", "temp"]);
    assert_eq!(names(Start::Barrier(second)), ["N", "temp"]);
}

/// A private variable set once from the thread's ids is determined (`logic::lockstep`); one
/// assigned twice, or from memory, is not.
#[test]
fn a_private_copy_of_a_thread_id_is_determined() {
    use lockstep_logic::lockstep::LockStep;
    let program = program(
        "kernel k(int n) { global int[tcount] a; requires Perm(a[tid], write); void main() {
           int t := lid; int u := t + n * gsize; int v := lid; v := 0; int w := a[tid]; } }",
    );
    let kernel = &program.kernels[0];
    let lockstep = LockStep::of(kernel);
    let determined = |name: &str| {
        let var = (0..kernel.vars.len() as u32)
            .map(lockstep_logic::VarId)
            .find(|var| kernel.var(*var).name == name)
            .expect("declared");
        lockstep.determined(var).map(|value| show_expr(kernel, &program, value))
    };
    assert_eq!(determined("t").as_deref(), Some("lid"));
    assert_eq!(determined("u").as_deref(), Some("(Add lid (Mul n gsize))"));
    assert_eq!(determined("v"), None);
    assert_eq!(determined("w"), None);
}

/// The values the statements of a kernel's body assign, in order.
fn assigned_values(path: &str, text: &str) -> Vec<String> {
    let program = program_in(path, text);
    let kernel = &program.kernels[0];
    kernel
        .body
        .stmts
        .iter()
        .filter_map(|stmt| match &stmt.kind {
            StmtKind::Declare { init: Some(value), .. } | StmtKind::Assign { value, .. } => Some(value),
            StmtKind::Write { value, .. } => Some(value),
            _ => None,
        })
        .map(|value| show_expr(kernel, &program, value))
        .collect()
}

/// C's integers in CUDA code: index arithmetic within the launch stays exact, a signed addition
/// that may leave `int` is checked, unsigned arithmetic wraps, a narrowing conversion wraps as two's
/// complement, and `x & 7`, `x >> 1` and `x << 2` are `mod`, division and (checked) multiplication.
#[test]
fn c_integers_wrap_check_or_stay_exact_by_their_types() {
    let text = "__global__ void k(int* a, unsigned int* u, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        a[i] = a[i] + 1;
        u[i] = u[i] + 1u;
        char c = n;
        unsigned int m = i & 7;
        int h = i >> 1;
        int d = i << 2;
    }";
    assert_eq!(
        assigned_values("k.cu", text),
        [
            "(Add (Mul gid_x gsize_x) lid_x)",
            "(in int (Add a[i] 1))",
            "(Mod (Add u[i] 1) 4294967296)",
            "(Add (Mod (Sub n -128) 256) -128)",
            "(Mod i 8)",
            "(Div i 2)",
            "(in int (Mul i 4))",
        ]
    );
    // Read as mathematical integers, as VerCors reads them, nothing wraps or is checked.
    let checked = lockstep_frontend::check_bytes_reading(
        "k.cu",
        text.as_bytes().to_vec(),
        Some(lockstep_frontend::Integers::Mathematical),
        &Default::default(),
    );
    let program = checked.program.expect("well formed");
    let kernel = &program.kernels[0];
    let StmtKind::Write { value, .. } = &kernel.body.stmts[1].kind else { panic!("a write") };
    assert_eq!(show_expr(kernel, &program, value), "(Add a[i] 1)");
}

/// The increments of a counter are its sites in the order of the code, each the value of the
/// thread's own increment; the kernel's launch promises no more increments than the counter
/// has values. A counter also decremented is no counter: its increment's value is arbitrary.
#[test]
fn increments_of_a_counter_are_its_sites() {
    let text = "kernel void k(global unsigned* c, global int* d, global int* out) {
        unsigned first = atomic_inc(c);
        unsigned second = atomic_inc(&c[get_group_id(0)]);
        int third = atomic_inc(d);
        atomic_dec(d);
    }";
    let values = assigned_values("k.cl", text);
    assert_eq!(values[..2], ["(ticket c 0 0 unsigned_int)", "(ticket c gid_x 1 unsigned_int)"]);
    assert!(!values[2].contains("ticket"), "{values:?}");
    let program = program_in("k.cl", text);
    let kernel = &program.kernels[0];
    let facts: Vec<String> =
        kernel.thread_contract.requires.iter().map(|clause| show(kernel, &program, &clause.assertion)).collect();
    assert!(facts.contains(&"(Le (Mul 2 tcount) 4294967296)".to_string()), "{facts:?}");
}

/// Every C kernel assumes the launch's limit and its integer parameters' ranges, before its own
/// clauses.
#[test]
fn c_kernels_assume_the_launch_limit_and_their_parameters_types() {
    let text = "/*@ requires n > 0; @*/ __kernel void k(global int* a, uint n) { }";
    let program = program_in("k.cl", text);
    let kernel = &program.kernels[0];
    let clauses: Vec<String> =
        kernel.thread_contract.requires.iter().map(|clause| show(kernel, &program, &clause.assertion)).collect();
    assert_eq!(
        clauses,
        ["(Le tcount 2147483647)", "(Le 0 \\pointer_length(a))", "(And (Le 0 n) (Le n 4294967295))", "(Gt n 0)",]
    );
}
