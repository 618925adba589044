//! The outline of a kernel (`lockstep_logic::outline`), built by the logic alone: no encoder and
//! no solver take part. The frontend only parses the seed's examples into the IR.

use expect_test::expect;
use lockstep_frontend::check_bytes;
use lockstep_logic::fences::MemoryModel;
use lockstep_logic::outline::{Check, Command, Formula, Global, Origin, Outline, Part, Requirement, Threads};
use lockstep_logic::{ObligationId, Program};

fn program(path: &str) -> (Program, String) {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).expect("the example is readable");
    let checked = check_bytes(path, text.clone().into_bytes());
    (checked.program.expect("the example is well formed"), text)
}

fn line(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// Every obligation as `number id line`, in the outline's numbering.
fn listing(outline: &Outline, text: &str) -> String {
    let rows: Vec<String> = outline
        .obligations
        .iter()
        .enumerate()
        .map(|(number, obligation)| {
            format!("{number} {} {}", obligation.id.as_str(), line(text, obligation.span.start))
        })
        .collect();
    rows.join("\n")
}

/// The numbers the outline's structure holds: its commands, global obligations and functions.
fn referenced(outline: &Outline) -> Vec<usize> {
    fn parts(parts: &[Part], out: &mut Vec<usize>) {
        for part in parts {
            push_checks(&part.checks, out);
            out.extend(part.holds);
            out.extend(part.distinct);
        }
    }
    fn commands(list: &[Command], out: &mut Vec<usize>) {
        for command in list {
            match command {
                Command::Inhale(inhaled) => parts(inhaled, out),
                Command::Exhale { parts: exhaled, .. } | Command::Assert { parts: exhaled, .. } => parts(exhaled, out),
                Command::Assign { checks, .. } | Command::Assume { checks, .. } => push_checks(checks, out),
                Command::Write { checks, bounds, write, .. } => {
                    push_checks(checks, out);
                    out.extend(bounds.iter().chain([write]));
                }
                Command::If { checks, then_branch, else_branch, .. } => {
                    push_checks(checks, out);
                    commands(then_branch, out);
                    commands(else_branch, out);
                }
                Command::Loop { entry, inhaled, cond_checks, body, preserved, exit, .. } => {
                    commands(std::slice::from_ref(entry), out);
                    parts(inhaled, out);
                    push_checks(cond_checks, out);
                    commands(body, out);
                    commands(std::slice::from_ref(preserved), out);
                    parts(exit, out);
                }
                Command::Barrier { pre, post, .. } => {
                    parts(pre, out);
                    parts(post, out);
                }
            }
        }
    }
    let mut found = Vec::new();
    for function in &outline.function_outlines {
        for checks in &function.requires {
            push_checks(checks, &mut found);
        }
        if let Some((_, checks)) = &function.measure {
            push_checks(checks, &mut found);
        }
        push_checks(&function.body, &mut found);
        for (checks, post) in &function.ensures {
            push_checks(checks, &mut found);
            found.push(*post);
        }
    }
    commands(&outline.thread, &mut found);
    for global in &outline.globals {
        found.extend(global.obligations());
    }
    found
}

/// The obligations of a list of checks, each once: a bounds check over a range is asked at the
/// range's two ends, two checks of one obligation side by side.
fn push_checks(checks: &[Check], out: &mut Vec<usize>) {
    for check in checks {
        if out.last() != Some(&check.obligation) {
            out.push(check.obligation);
        }
    }
}

/// The outline's structure holds each numbered obligation exactly once, in numbering order.
fn assert_each_obligation_has_one_place(outline: &Outline) {
    let found = referenced(outline);
    let expected: Vec<usize> = (0..outline.obligations.len()).collect();
    assert_eq!(found, expected, "each obligation is held once, in order");
}

#[test]
fn the_demo_outline_has_its_obligations_in_place() {
    let (program, text) = program("examples/seed/demo.pvl");
    let outline = Outline::of(&program, &program.kernels[0], MemoryModel::Seed);
    assert_each_obligation_has_one_place(&outline);
    expect![[r#"
        0 access.bounds 11
        1 access.bounds 11
        2 access.bounds 14
        3 access.write 14
        4 access.bounds 16
        5 frame 16
        6 barrier.pre 16
        7 division.by.zero 17
        8 access.bounds 17
        9 access.bounds 17
        10 division.by.zero 18
        11 access.bounds 18
        12 frame 18
        13 division.by.zero 18
        14 division.by.zero 19
        15 access.bounds 19
        16 access.read 19
        17 access.bounds 19
        18 access.write 19
        19 access.bounds 12
        20 thread.post 12
        21 access.bounds 12
        22 frame 12
        23 division.by.zero 12
        24 thread.post 12
        25 barrier.functional 18
        26 group.resources 11
        27 group.resources 11
        28 kernel.resources 11
        29 kernel.resources 11
        30 barrier.resources 17
        31 barrier.resources 17
        32 group.resources 11
        33 group.resources 11
        34 kernel.resources 11
        35 kernel.resources 11
        36 barrier.resources 17
        37 barrier.resources 17"#]]
    .assert_eq(&listing(&outline, &text));
    assert!(outline.divergence.is_empty());
    // The triple: the precondition inhaled, the write, the barrier as a call, the write, the
    // postcondition exhaled.
    let shape: Vec<&str> = outline
        .thread
        .iter()
        .map(|command| match command {
            Command::Inhale(_) => "inhale",
            Command::Exhale { id: ObligationId::ThreadPost, .. } => "exhale thread.post",
            Command::Write { .. } => "write",
            Command::Barrier { .. } => "barrier",
            _ => "other",
        })
        .collect();
    assert_eq!(shape, ["inhale", "write", "barrier", "write", "exhale thread.post"]);
}

#[test]
fn the_group_and_kernel_specifications_of_the_seed_are_generated_from_the_thread_contract() {
    for path in ["examples/seed/demo.pvl", "examples/seed/binomial.pvl"] {
        let (program, _) = program(path);
        let outline = Outline::of(&program, &program.kernels[0], MemoryModel::Seed);
        let over = |threads, separating, name| Formula::Iterated {
            over: threads,
            separating,
            body: Box::new(Formula::Named(name)),
        };
        assert_eq!(outline.group_spec.origin, Origin::Generated, "{path}");
        assert_eq!(outline.group_spec.resources, over(Threads::Group, true, "T_res(gid, lid)"), "{path}");
        assert_eq!(outline.group_spec.pre, over(Threads::Group, false, "T_pre(gid, lid)"), "{path}");
        assert_eq!(outline.group_spec.post, over(Threads::Group, false, "T_post(gid, lid)"), "{path}");
        assert_eq!(outline.kernel_spec.origin, Origin::Generated, "{path}");
        assert_eq!(outline.kernel_spec.resources, over(Threads::Kernel, true, "G_res(gid)"), "{path}");
    }
}

#[test]
fn the_binomial_outline_has_its_obligations_in_place() {
    let (program, text) = program("examples/seed/binomial.pvl");
    let outline = Outline::of(&program, &program.kernels[0], MemoryModel::Seed);
    assert_each_obligation_has_one_place(&outline);
    let count = |id: ObligationId| outline.obligations.iter().filter(|obligation| obligation.id == id).count();
    // `binom` calls itself twice: each call's precondition and its smaller measure.
    let lines = |id: ObligationId| -> Vec<usize> {
        outline
            .obligations
            .iter()
            .filter(|obligation| obligation.id == id)
            .map(|obligation| line(&text, obligation.span.start))
            .collect()
    };
    assert_eq!(lines(ObligationId::FunctionTermination), [11, 11]);
    // Two barriers: each with its precondition checked in the triple and its postcondition's
    // facts following from the preconditions it may use.
    assert_eq!(lines(ObligationId::BarrierFunctional), [33, 34, 44]);
    assert_eq!(lines(ObligationId::BarrierPre), [30, 31, 42]);
    assert_eq!(lines(ObligationId::ThreadPost), [19, 19]);
    assert_eq!(count(ObligationId::LoopInvariantEntry), 4);
    assert_eq!(count(ObligationId::LoopInvariantPreserved), 4);
    // `bin` is global, `tmp` local: kernel.resources only for `bin`; the fence rule at barrier 1
    // (which fences only local memory) for `bin`, at barrier 2 (no fence) for both.
    let fence_rules: Vec<(String, usize)> = outline
        .globals
        .iter()
        .filter_map(|global| match global {
            Global::Handover { array, barrier, .. } => {
                Some((program.kernels[0].array(*array).name.clone(), barrier.index()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(fence_rules, [("bin".to_string(), 0), ("bin".to_string(), 1), ("tmp".to_string(), 1)]);
    assert_eq!(lines(ObligationId::KernelResources), [18, 18]);
}

#[test]
fn written_kernel_contracts_get_their_level_obligations() {
    let (program, text) = program("examples/contracts/kernel_post_from_kernel_pre.pvl");
    let outline = Outline::of(&program, &program.kernels[0], MemoryModel::Seed);
    assert_each_obligation_has_one_place(&outline);
    assert_eq!(outline.kernel_spec.origin, Origin::Written);
    assert_eq!(outline.group_spec.origin, Origin::Generated);
    let levels: Vec<(&str, usize)> = outline
        .obligations
        .iter()
        .filter(|obligation| matches!(obligation.id, ObligationId::KernelPre | ObligationId::KernelPost))
        .map(|obligation| (obligation.id.as_str(), line(&text, obligation.span.start)))
        .collect();
    // K_pre ⇒ T_pre of every thread (the group contract is generated), and the threads'
    // postconditions ⇒ K_post.
    assert_eq!(levels, [("kernel.pre", 9), ("kernel.post", 8)]);
}

#[test]
fn the_memory_model_decides_which_earlier_accesses_the_fence_rule_counts() {
    let (program, _) = program("frontend/tests/verify/bad_read_then_write.pvl");
    let earlier = |model| -> Vec<usize> {
        Outline::of(&program, &program.kernels[0], model)
            .globals
            .iter()
            .filter_map(|global| match global {
                Global::Handover { earlier, .. } => Some(earlier.iter().map(|(_, _, atoms)| atoms.len()).sum()),
                _ => None,
            })
            .collect()
    };
    // A read before a barrier that fences nothing, and a write of another thread after it: no
    // fence-rule obligation under the seed's rule, one (with the read's atom) under OpenCL's.
    assert_eq!(earlier(MemoryModel::Seed), Vec::<usize>::new());
    assert_eq!(earlier(MemoryModel::OpenCl), [1]);
}

/// A bounds check over a range, with an index linear in the range's variable, is asked at the
/// range's two ends and binds no variable (E1), so the solver gets no quantifier for it; an index
/// that is not linear, or a guard besides the range that names the variable, keeps the quantifier.
#[test]
fn bounds_over_a_range_are_checked_at_its_two_ends() {
    let source = "kernel ends(int n) {
  global int[tcount] a;
  requires Perm(a[tid], write);
  ensures Perm(a[tid], write);
  ensures (\\forall int j; 0 <= j < n; a[2 * j + 1] == 0);
  ensures \\sum(int j; 1 <= j <= n; \\old(a[n - j])) == 0;
  ensures (\\forall int j; j < n && j >= 0; (\\forall int k; 0 < k && k <= 3; a[j * 4 + k] == 0));
  ensures (\\forall int j; 0 <= j < 3; a[j * j] == 0);
  ensures (\\forall int j; 0 <= j < n; j != 1 ==> a[j] == 0);
  void main() { a[tid] := 0; }
}
";
    let checked = check_bytes("ends.pvl", source.as_bytes().to_vec());
    let program = checked.program.expect("well formed");
    let outline = Outline::of(&program, &program.kernels[0], MemoryModel::Seed);
    let Some(Command::Exhale { parts, .. }) = outline.thread.last() else {
        panic!("the postcondition is exhaled last")
    };
    let bounds: Vec<(usize, usize)> = parts
        .iter()
        .map(|part| {
            let bounds = part.checks.iter().filter(|check| matches!(check.requirement, Requirement::InBounds { .. }));
            let quantified = bounds.clone().filter(|check| !check.binders.is_empty()).count();
            (bounds.count(), quantified)
        })
        .collect();
    // Per conjunct: (bounds checks, those still quantified). The permission `a[tid]` has one
    // ground check; `2 * j + 1` and `n - j` two ends each; the nested range two ends of two ends;
    // `j * j` and the guarded read keep their quantifier.
    assert_eq!(bounds, [(1, 0), (2, 0), (2, 0), (4, 0), (1, 1), (1, 1)]);
}

/// In a kernel verified with inferred permissions, an access the inferred ones do not cover and
/// an inferred loop invariant that fails are inference's shortfall (undecided), while a written
/// invariant's failure and a resource check (a race) stay the kernel's.
#[test]
fn inference_owns_only_its_own_clauses() {
    let text = "__kernel void k(__global int* a) {\n  for (int i = 0; __invariant(i >= 0), i < 4; i++) {\n    a[get_global_id(0) * 4 + i] = i;\n  }\n}\n";
    let checked = check_bytes("k.cl", text.as_bytes().to_vec());
    let program = checked.program.expect("accepted");
    let inferred = lockstep_frontend::verify::inferred(&program.kernels[0]).expect("names no permission");
    let at = |needle: &str| {
        let start = text.find(needle).expect("in the text");
        lockstep_logic::Span::new(start, start + 1)
    };
    let written = at("i >= 0");
    let elsewhere = at("a[");
    assert!(inferred.shortfall(ObligationId::AccessWrite, elsewhere).is_some());
    assert!(inferred.shortfall(ObligationId::AccessRead, elsewhere).is_some());
    assert!(inferred.shortfall(ObligationId::LoopInvariantEntry, elsewhere).is_some());
    assert!(inferred.shortfall(ObligationId::LoopInvariantPreserved, elsewhere).is_some());
    assert_eq!(inferred.shortfall(ObligationId::LoopInvariantEntry, written), None);
    assert_eq!(inferred.shortfall(ObligationId::GroupResources, elsewhere), None);
    assert_eq!(inferred.shortfall(ObligationId::Assert, elsewhere), None);
}
