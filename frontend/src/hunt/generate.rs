//! Random small kernels, well typed by construction and mostly close to correct, so that many
//! verify and the rest fail in small ways: a thread owns a cell of `a` and reads a cell of `b`
//! (its index from a pool of thread-dependent expressions, sometimes guarded), computes a value
//! with `+ - * / % mod` and pure functions (recursive or with a precondition), may pass values
//! through local memory at a barrier (with fences and functional barrier contracts), may count in
//! a loop with an invariant (sometimes inside an `if`), and states the result in its postcondition, under `\old` or not.
//! Each choice has a correct default and a slip (a wrong index, fence, bound, guard or value) that
//! the verifier must catch: a slip that a run shows and `verify` misses is a soundness hole.

use super::Rng;

/// Cells of a global array of `tcount` elements that a thread may claim, the first its own.
const GLOBAL_INDICES: &[&str] = &[
    "tid",
    "tcount - 1 - tid",
    "(tid + 1) mod tcount",
    "tid / 2",
    "2 * tid",
    "tid + 1",
    "lid",
    "gid * gsize + lid",
    "(tid + n) mod tcount",
    "tid % gsize",
    "gid * gsize + (lid + 5) % gsize",
];

/// Cells of a local array of `gsize` elements, the first the thread's own.
const LOCAL_INDICES: &[&str] = &[
    "lid",
    "gsize - 1 - lid",
    "(lid + 1) mod gsize",
    "(lid + 1) % gsize",
    "(lid + 3) % gsize",
    "((lid + 2) mod gsize + 3) mod gsize",
    "(lid - 2) mod gsize",
    "lid / 2",
    "lid + 1",
    "tid",
    "0",
];

/// Values computed from `V`, the value read.
const VALUES: &[&str] = &[
    "V",
    "V + 1",
    "2 * V",
    "V / 2",
    "V % 3",
    "V mod 4",
    "V / n",
    "V mod n",
    "(V + 7) mod gsize",
    "f(V)",
    "V * V - tid",
    "(V > 0 ? V : 0 - V)",
    "V / (V - 1)",
    "lid + V",
    "f(lid) + V",
];

/// Pure functions `f`, with the preconditions their calls must meet.
const FUNCTIONS: &[&str] = &[
    "pure int f(int x) requires x >= 0; = x == 0 ? 0 : f(x - 1) + 2;",
    "pure int f(int x) = x * x + 1;",
    "pure int f(int x) requires x != 0; = 100 / x;",
    "pure int f(int x) requires x >= 0; = x <= 1 ? x : f(x - 2);",
    "pure int f(int x) requires x >= 0; decreases x; = x == 0 ? 1 : 2 * f(x - 1);",
];

/// The amount of its cell of `b` a thread holds, `read` first: a launch-dependent share adds up
/// to all of a cell over the threads that name it only for `write \ tcount` (a slip elsewhere
/// when every thread names one cell), and `write \ (tcount + n)` is positive only for `n > -tcount`.
const READ_SHARES: &[&str] = &["read", "write \\ tcount", "write \\ gsize", "1\\2", "write \\ (tcount + n)"];

/// Facts about the cell read that a precondition may give.
const READ_FACTS: &[&str] = &["V >= 0", "V > 1", "V != 1", "V < 100"];

/// What a thread writes to local memory before the barrier, over `L` (its `lid`).
const LOCAL_VALUES: &[&str] = &["L", "2 * L + 1", "L * L", "L mod 3", "gsize - L"];

/// A random kernel from the seed.
pub fn kernel(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let rng = &mut rng;
    // A slip is rare per choice, so that most kernels carry none or one.
    let slip = |rng: &mut Rng| rng.chance(8);
    let own = if rng.chance(60) { GLOBAL_INDICES[0] } else { rng.pick(GLOBAL_INDICES) };
    // Sometimes every thread reads one broadcast cell.
    let read = if rng.chance(10) {
        "0"
    } else if rng.chance(50) {
        GLOBAL_INDICES[0]
    } else {
        rng.pick(GLOBAL_INDICES)
    };
    let share = if rng.chance(75) { READ_SHARES[0] } else { rng.pick(READ_SHARES) };
    let written = if slip(rng) { rng.pick(GLOBAL_INDICES) } else { own };
    let read_in_code = if slip(rng) { rng.pick(GLOBAL_INDICES) } else { read };
    // A read that may lie past the end is guarded, or (a slip) not.
    let may_overflow = ["tid + 1", "2 * tid"].contains(&read);
    let guard = (may_overflow && !slip(rng)).then(|| format!("{read} < tcount"));
    let guarded = |fact: String| match &guard {
        Some(guard) => format!("({guard} ==> {fact})"),
        None => fact,
    };
    let function = rng.chance(35).then(|| rng.pick(FUNCTIONS));
    let mut value = rng.pick(VALUES);
    if function.is_none() && value.contains("f(") {
        value = "V + 1";
    }
    let read_fact = rng.chance(40).then(|| rng.pick(READ_FACTS).replace('V', &format!("b[{read}]")));
    let positive_n = rng.chance(60);

    let mut text = String::new();
    if let Some(function) = function {
        text.push_str(function);
        text.push('\n');
    }
    text.push_str("kernel hunted(int n) {\n  global int[tcount] a;\n  global int[tcount] b;\n");
    let barrier = rng.chance(40).then(|| Barrier::random(rng, slip));
    if barrier.is_some() {
        text.push_str("  local int[gsize] s;\n");
    }
    if positive_n {
        text.push_str("  requires n > 0;\n");
    }
    if barrier.is_some() && rng.chance(50) {
        text.push_str("  requires gsize >= 2;\n");
    }
    // Written resources: what the host hands over (a slip: `a` for reading only, or one cell
    // short), and each group's block of `a`.
    if rng.chance(20) {
        let a_amount = if slip(rng) { "read" } else { "write" };
        let a_end = if slip(rng) { "tcount - 1" } else { "tcount" };
        let b_amount = if share == "read" { "read" } else { "write" };
        text.push_str(&format!(
            "  kernel requires (\\forall* int i; 0 <= i && i < {a_end}; Perm(a[i], {a_amount}));\n  kernel requires (\\forall* int i; 0 <= i && i < tcount; Perm(b[i], {b_amount}));\n"
        ));
    }
    if share == "read" && rng.chance(15) {
        let end = if slip(rng) { "gid * gsize + gsize + 1" } else { "gid * gsize + gsize" };
        text.push_str(&format!(
            "  group requires (\\forall* int i; gid * gsize <= i && i < {end}; Perm(a[i], write));\n  group requires (\\forall* int i; 0 <= i && i < tcount; Perm(b[i], read));\n"
        ));
    }
    let read_permission = guarded(format!("Perm(b[{read}], {share})"));
    let mut requires = format!("Perm(a[{own}], write) ** {read_permission}");
    if barrier.is_some() {
        requires.push_str(&format!(" ** Perm(s[{}], write)", LOCAL_INDICES[0]));
    }
    text.push_str(&format!("  requires {requires};\n"));
    if let Some(fact) = &read_fact {
        text.push_str(&format!("  requires {};\n", guarded(fact.clone())));
    }

    // The value, in code over `v`, in the postcondition over the cell itself.
    let (old_open, old_close) = if rng.chance(30) { ("\\old(", ")") } else { ("", "") };
    let read_in_post = match &guard {
        Some(guard) => format!("({guard} ? {old_open}b[{read}]{old_close} : 0)"),
        None => format!("{old_open}b[{read}]{old_close}"),
    };
    let mut code_value = value.replace('V', "v");
    let mut post_value = value.replace('V', &format!("({read_in_post})"));
    let mut body = String::from("    int v := 0;\n");
    match &guard {
        Some(guard) => body.push_str(&format!("    if ({guard}) {{ v := b[{read_in_code}]; }}\n")),
        None => body.push_str(&format!("    v := b[{read_in_code}];\n")),
    }
    if let Some(barrier) = &barrier {
        let (code, received) = barrier.code(&requires, own, rng, slip);
        body.push_str(&code);
        if let Some(received) = received {
            code_value = format!("{code_value} + y");
            post_value = format!("{post_value} + ({received})");
        }
    }
    if rng.chance(30) {
        let rounds = rng.below(4);
        let step = 1 + rng.below(3);
        let bound = if slip(rng) { format!("i <= {rounds}") } else { format!("i < {rounds}") };
        let invariant = if slip(rng) { format!("x == i * {step} + 1") } else { format!("x == i * {step}") };
        let counted = format!(
            "    loop_invariant 0 <= i && i <= {rounds} && {invariant};\n    while ({bound}) {{ x := x + {step}; i := i + 1; }}\n"
        );
        body.push_str("    int i := 0;\n    int x := 0;\n");
        // Sometimes the loop runs only when n > 0: a loop in a branch is encoded in a body of
        // its own (it once crashed the encoder).
        if rng.chance(30) {
            body.push_str(&format!("    if (n > 0) {{\n{counted}    }}\n"));
            post_value = format!("{post_value} + (n > 0 ? {} : 0)", rounds * step);
        } else {
            body.push_str(&counted);
            post_value = format!("{post_value} + {}", rounds * step);
        }
        code_value = format!("{code_value} + x");
    }
    if slip(rng) {
        post_value = format!("{post_value} + 1");
    }
    body.push_str(&format!("    a[{written}] := {code_value};\n"));
    if rng.chance(20) {
        body.push_str(&format!("    assert a[{written}] == {code_value};\n"));
    }
    let mut ensures = format!("Perm(a[{own}], write) ** {read_permission}");
    if rng.chance(85) {
        ensures.push_str(&format!(" ** a[{own}] == {post_value}"));
    }
    text.push_str(&format!("  ensures {ensures};\n  void main() {{\n{body}  }}\n}}\n"));
    text
}

/// A barrier that hands local memory over: each thread writes its own cell of `s`, and after the
/// barrier reads another thread's.
struct Barrier {
    fence: &'static str,
    /// The cell the barrier gives the thread, and the one it reads.
    given: &'static str,
    read: &'static str,
    /// What each thread writes, over `L`.
    written: &'static str,
    /// Whether the contract states the values (and, a slip, states a wrong one).
    functional: bool,
    wrong_value: bool,
    /// A slip: the barrier sits under a condition that differs between threads.
    divergent: bool,
    /// A slip: the barrier's `ensures` drops the thread's permission on `a`.
    drops_permission: bool,
    /// Whether the contract says the thread's cell of `a` still has its launch value (`\old`),
    /// and, a slip, whether the `ensures` says one more.
    launch_value: Option<bool>,
}

impl Barrier {
    fn random(rng: &mut Rng, slip: impl Fn(&mut Rng) -> bool) -> Barrier {
        let given = if rng.chance(30) { LOCAL_INDICES[0] } else { rng.pick(&LOCAL_INDICES[..6]) };
        Barrier {
            fence: if slip(rng) { "global" } else { "local" },
            given,
            read: if slip(rng) { rng.pick(LOCAL_INDICES) } else { given },
            written: rng.pick(LOCAL_VALUES),
            functional: rng.chance(70),
            wrong_value: slip(rng),
            divergent: slip(rng),
            drops_permission: slip(rng),
            launch_value: rng.chance(30).then(|| slip(rng)),
        }
    }

    /// The code from the write to the read, and the value received over the barrier's cell when
    /// the contract states it (as an expression of the thread's ids).
    fn code(
        &self,
        requires: &str,
        own: &str,
        rng: &mut Rng,
        slip: impl Fn(&mut Rng) -> bool,
    ) -> (String, Option<String>) {
        let own_value = self.written.replace('L', "lid");
        let given_value = self.written.replace('L', &format!("({})", self.given));
        let mut barrier_requires = requires.to_string();
        let mut barrier_ensures = requires
            .replace(&format!("Perm(s[{}], write)", LOCAL_INDICES[0]), &format!("Perm(s[{}], read)", self.given));
        if self.drops_permission {
            barrier_ensures = barrier_ensures.replacen("write", "read", 1);
        }
        if self.functional {
            barrier_requires.push_str(&format!(" ** s[lid] == {own_value}"));
            let stated = if self.wrong_value { format!("{given_value} + 1") } else { given_value.clone() };
            barrier_ensures.push_str(&format!(" ** s[{}] == {stated}", self.given));
        }
        if let Some(wrong) = self.launch_value {
            // `a` is written only after the barrier, so its cell keeps the launch value until then.
            barrier_requires.push_str(&format!(" ** a[{own}] == \\old(a[{own}])"));
            let more = if wrong { " + 1" } else { "" };
            barrier_ensures.push_str(&format!(" ** a[{own}] == \\old(a[{own}]){more}"));
        }
        let open = if self.divergent { "    if (lid % 2 == 0) {\n" } else { "" };
        let close = if self.divergent { "    }\n" } else { "" };
        let written_value = if slip(rng) { format!("{own_value} + 1") } else { own_value };
        let code = format!(
            "    s[lid] := {written_value};\n{open}    barrier({}) {{\n      requires {barrier_requires};\n      ensures {barrier_ensures};\n    }}\n{close}    int y := s[{}];\n",
            self.fence, self.read
        );
        (code, self.functional.then_some(given_value))
    }
}

/// A generated kernel with its annotations stripped: the kernel's contract clauses, its loops'
/// invariants and its barriers' contracts (a `barrier(F) { ... }` becomes `barrier(F);`), so that
/// `verify` infers its permissions; the pure functions keep theirs.
pub fn unannotated(text: &str) -> String {
    let clause = ["requires ", "ensures ", "context ", "group ", "kernel ", "invariant ", "loop_invariant "];
    let mut out = Vec::new();
    let mut in_barrier = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if in_barrier {
            in_barrier = trimmed != "}";
            continue;
        }
        if trimmed.starts_with("barrier(") && trimmed.ends_with('{') {
            out.push(format!("{};", line.trim_end_matches('{').trim_end()));
            in_barrier = true;
            continue;
        }
        let indented = line.starts_with(' ');
        if indented && clause.iter().any(|start| trimmed.starts_with(start)) {
            continue;
        }
        out.push(line.to_string());
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripped_kernels_name_no_permission() {
        for seed in 0..100 {
            let text = unannotated(&kernel(seed));
            let checked = crate::check_bytes("generated.pvl", text.clone().into_bytes());
            let program = checked.program.unwrap_or_else(|| panic!("seed {seed}:\n{text}"));
            assert!(program.kernels.iter().all(|kernel| !kernel.has_permissions()), "seed {seed}:\n{text}");
        }
    }

    #[test]
    fn kernels_are_reproducible_and_varied() {
        assert_eq!(kernel(3), kernel(3));
        let distinct: std::collections::BTreeSet<String> = (0..50).map(kernel).collect();
        assert!(distinct.len() > 45, "{} distinct kernels of 50", distinct.len());
    }

    #[test]
    fn kernels_are_well_formed() {
        for seed in 0..200 {
            let text = kernel(seed);
            let checked = crate::check_bytes("generated.pvl", text.clone().into_bytes());
            let errors: Vec<String> = checked
                .diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.is_error())
                .map(|diagnostic| diagnostic.render(&checked.file))
                .collect();
            assert!(errors.is_empty(), "seed {seed}:\n{text}\n{}", errors.join("\n"));
        }
    }
}
