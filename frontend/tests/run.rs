//! The concrete executor (`lockstep run`): what it finds, on which threads, under which schedules.

use lockstep_frontend::check_bytes;
use lockstep_frontend::run::{self, Failure, Options, Replay};
use lockstep_logic::execute::{self, Bug, Outcome, RunError, Schedule};
use lockstep_logic::fences::MemoryModel;
use lockstep_logic::{ObligationId, Program};
use num_bigint::{BigInt, BigUint};
use std::path::Path;

fn program(source: &str) -> Program {
    let checked = check_bytes("test.pvl", source.as_bytes().to_vec());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    checked.program.expect("a program")
}

fn example(path: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(path);
    program(&std::fs::read_to_string(&path).expect("the example exists"))
}

fn options(groups: u32, gsize: u32) -> Options {
    Options { groups: groups.into(), gsize: gsize.into(), ..Options::default() }
}

fn run_with(program: &Program, options: &Options, schedule: &Schedule) -> Result<Outcome, RunError> {
    let kernel = &program.kernels[0];
    let launch = run::launch(program, kernel, options).expect("the launch is well formed");
    execute::run(program, kernel, &launch, schedule, MemoryModel::Seed)
}

fn bug(program: &Program, groups: u32, gsize: u32) -> Bug {
    let outcome = run_with(program, &options(groups, gsize), &Schedule::Canonical).expect("the run ends");
    outcome.bug.expect("a bug is found").0
}

fn clean(program: &Program, groups: u32, gsize: u32) -> Outcome {
    let outcome = run_with(program, &options(groups, gsize), &Schedule::Canonical).expect("the run ends");
    assert_eq!(outcome.bug, None);
    outcome
}

fn ints(values: &[i64]) -> Vec<BigInt> {
    values.iter().map(|&value| BigInt::from(value)).collect()
}

#[test]
fn the_seed_example_computes_its_rotation() {
    let demo = example("seed/demo.pvl");
    for gsize in [1, 2, 3, 8] {
        let outcome = clean(&demo, 1, gsize);
        let expected: Vec<i64> = (0..i64::from(gsize)).map(|tid| (tid + 1) % i64::from(gsize)).collect();
        // Arrays in declaration order: a, b.
        assert_eq!(outcome.memory[1], ints(&expected), "gsize {gsize}");
    }
}

#[test]
fn a_missing_barrier_is_a_race_between_two_named_threads() {
    let shift = |barrier: &str| {
        program(&format!(
            "kernel shift {{
  local int[gsize] tmp;
  requires tcount == gsize;
  requires Perm(tmp[lid], write);
  void main() {{
    tmp[lid] := lid;
    {barrier}
    int x := tmp[(lid + 1) % gsize];
  }}
}}"
        ))
    };
    let Bug::Race { location, first, second } = bug(&shift(""), 1, 4) else { panic!("a race") };
    // Thread 0 reads tmp[1] first (canonical order); thread 1 then writes it.
    assert_eq!((location.index, location.group), (1, Some(0)));
    assert_eq!((first.thread.tid, first.write), (0, false));
    assert_eq!((second.thread.tid, second.write), (1, true));
    // With the barrier, no race.
    clean(&shift("barrier(local) { ensures Perm(tmp[(lid + 1) % gsize], read); }"), 1, 4);
}

#[test]
fn groups_race_on_global_memory_that_no_barrier_orders() {
    let racy = example("variants/race_between_groups.pvl");
    clean(&racy, 1, 4);
    let Bug::Race { first, second, .. } = bug(&racy, 2, 4) else { panic!("a race") };
    assert_ne!(first.thread.gid, second.thread.gid);
}

#[test]
fn a_barrier_without_the_right_fence_leaves_a_read_stale() {
    let Bug::StaleRead { write, read, .. } = bug(&example("variants/wrong_fence.pvl"), 1, 4) else {
        panic!("a stale read")
    };
    assert_ne!(write.thread.tid, read.thread.tid);
    clean(&example("seed/demo.pvl"), 1, 4);
}

#[test]
fn divergent_barriers_are_found_with_the_threads_that_finished() {
    let Bug::Divergence { group, waiting, finished } = bug(&example("variants/divergent_barrier.pvl"), 1, 4) else {
        panic!("divergence")
    };
    assert_eq!(group, 0);
    assert!(!waiting.is_empty() && !finished.is_empty(), "{waiting:?} {finished:?}");
}

/// The kernel without any annotation, with `between` in place of its barrier.
fn clean_neighbor(between: &str) -> Program {
    program(&format!(
        "kernel clean_neighbor {{
  local int[gsize] s;
  global int[tcount] out;
  void main() {{ s[lid] := lid; {between} out[tid] := s[(lid + 1) mod gsize]; }}
}}"
    ))
}

#[test]
fn a_kernel_without_annotations_owns_all_memory_and_is_judged_by_its_accesses() {
    let outcome = clean(&clean_neighbor("barrier(local);"), 2, 4);
    // Arrays in declaration order: s (the first group's copy), out.
    assert_eq!(outcome.memory[1], ints(&[1, 2, 3, 0, 1, 2, 3, 0]));
    let Bug::Race { location, first, second } = bug(&clean_neighbor(""), 2, 4) else { panic!("a race") };
    assert_eq!((location.index, first.write, second.write), (1, false, true));
    let Bug::StaleRead { .. } = bug(&clean_neighbor("barrier(global);"), 2, 4) else { panic!("a stale read") };
    let Bug::Divergence { .. } =
        bug(&clean_neighbor("if (lid == 0) { barrier(local); } else { barrier(local); }"), 2, 4)
    else {
        panic!("divergence")
    };
}

#[test]
fn one_permission_anywhere_makes_every_access_need_its_permission() {
    let annotated = program(
        "kernel annotated {
  local int[gsize] s;
  global int[tcount] out;
  requires Perm(out[tid], write);
  void main() { s[lid] := lid; barrier(local); out[tid] := s[(lid + 1) mod gsize]; }
}",
    );
    let Bug::Failed { obligation, .. } = bug(&annotated, 2, 4) else { panic!("a failed check") };
    assert_eq!(obligation, ObligationId::AccessWrite);
}

#[test]
fn failed_checks_name_their_obligation_and_thread() {
    let cases = [
        ("variants/failing_assert.pvl", ObligationId::Assert),
        ("variants/division_by_zero.pvl", ObligationId::DivisionByZero),
        ("variants/wrong_postcondition.pvl", ObligationId::ThreadPost),
        ("multigroup/block_reverse_off_by_one.pvl", ObligationId::AccessBounds),
    ];
    for (path, expected) in cases {
        match bug(&example(path), 1, 4) {
            Bug::Failed { obligation, .. } => assert_eq!(obligation, expected, "{path}"),
            other => panic!("{path}: {other:?}"),
        }
    }
}

#[test]
fn a_race_outranks_the_failed_check_it_caused() {
    // Without its barrier, thread 0 reads cells the others have not written yet and breaks its loop
    // invariant first; the race found later is the cause, and is what the run reports.
    let bug = bug(&example("reduction/sum_ones_pow2_missing_barrier.pvl"), 1, 4);
    assert!(matches!(bug, Bug::Race { .. }), "{bug:?}");
}

#[test]
fn a_launch_that_breaks_the_precondition_is_refused() {
    let demo = example("seed/demo.pvl");
    let refused = run_with(&demo, &options(2, 4), &Schedule::Canonical);
    assert!(matches!(refused, Err(RunError::Precondition { .. })), "{refused:?}");
}

#[test]
fn preconditions_pin_parameters_and_memory() {
    // `in[tid] == 1` pins the input, and `n == tcount` the parameter: the run meets both.
    let kernel = program(
        "kernel copy(int n) {
  global int[n] in;
  global int[n] out;
  requires n == tcount;
  requires Perm(in[tid], read) * in[tid] == 1 * Perm(out[tid], write);
  ensures Perm(out[tid], write) * out[tid] == 1;
  void main() { out[tid] := in[tid]; }
}",
    );
    let outcome = clean(&kernel, 2, 3);
    assert_eq!(outcome.memory[1], ints(&[1; 6]));
    // A parameter the user gives is kept, and then breaks the precondition.
    let given = Options { params: vec![("n".into(), BigInt::from(5))], ..options(2, 3) };
    assert!(matches!(run_with(&kernel, &given, &Schedule::Canonical), Err(RunError::Precondition { .. })));
}

#[test]
fn random_schedules_of_a_race_free_kernel_end_alike() {
    for path in ["seed/binomial.pvl", "seed/demo.pvl", "scan/hillis_steele_ones.pvl"] {
        let program = example(path);
        let canonical = clean(&program, 1, 4);
        for seed in 0..20 {
            let outcome = run_with(&program, &options(1, 4), &Schedule::Random { seed }).expect("the run ends");
            assert_eq!(outcome.bug, None, "{path}, seed {seed}");
            assert_eq!(outcome.memory, canonical.memory, "{path}, seed {seed}");
        }
    }
}

#[test]
fn exhaustive_exploration_meets_every_interleaving_one_schedule_stands_for() {
    let demo = example("seed/demo.pvl");
    for gsize in [1, 2, 3] {
        let canonical = clean(&demo, 1, gsize);
        let all = run_with(&demo, &options(1, gsize), &Schedule::Exhaustive { limit: 1_000_000 }).expect("it ends");
        assert_eq!(all.bug, None);
        assert_eq!(BigUint::from(all.schedules), canonical.interleavings.exact(), "gsize {gsize}");
        assert_eq!(all.memory, canonical.memory);
    }
    let too_many = run_with(&demo, &options(1, 4), &Schedule::Exhaustive { limit: 100 });
    assert!(matches!(too_many, Err(RunError::GaveUp { .. })), "{too_many:?}");
}

#[test]
fn a_loop_that_never_ends_gives_up_rather_than_hang() {
    let kernel =
        program("kernel spin { requires tcount == gsize; void main() { int i := 0; while (true) { i := i + 1; } } }");
    let outcome = run_with(&kernel, &options(1, 1), &Schedule::Canonical);
    assert!(matches!(outcome, Err(RunError::GaveUp { .. })), "{outcome:?}");
}

/// A loop that doubles a value forever: without a bound on the size of values, each step costs
/// more than the last, and the run takes hours to reach its step limit (the soundness hunt met
/// this in a mutant of `sum_ones_pow2.pvl`). With the bound, it gives up at the doubling.
#[test]
fn a_value_that_grows_without_bound_gives_up_at_the_expression_that_grows_it() {
    let source = "kernel doubling {
  requires tcount == gsize;
  void main() { int m := 1; while (true) { m := 2 * m; } }
}";
    let outcome = run_with(&program(source), &options(1, 1), &Schedule::Canonical);
    let Err(RunError::GaveUp { span: Some(span), detail }) = outcome else { panic!("{outcome:?}") };
    assert_eq!(&source[span.start..span.end], "2 * m", "{detail}");
    assert!(detail.contains("4096 bits"), "{detail}");
}

/// A failed check is a bug found, even when the run gives up later: here the invariant is false
/// after the first iteration, and the loop (which never ends) then grows `m` beyond the bound.
#[test]
fn a_check_that_failed_before_the_run_gave_up_is_still_reported() {
    let kernel = program(
        "kernel halving_forgotten {
  requires tcount == gsize;
  void main() {
    int n := 2;
    int m := 1;
    invariant n * m == 2;
    while (n > 1) { n := n / 1; m := 2 * m; }
  }
}",
    );
    let found = bug(&kernel, 1, 1);
    assert!(matches!(found, Bug::Failed { obligation: ObligationId::LoopInvariantPreserved, .. }), "{found:?}");
}

#[test]
fn a_contract_reads_only_what_it_has_named_before() {
    let kernel = |clause: &str| {
        program(&format!(
            "kernel framed {{
  global int[tcount] a;
  {clause}
  void main() {{ a[tid] := 1; }}
}}"
        ))
    };
    // Left to right within a clause: the fact comes before the permission that frames it.
    let unframed = bug(&kernel("requires a[tid] == 0 * Perm(a[tid], write);"), 1, 2);
    assert!(matches!(unframed, Bug::Failed { obligation: ObligationId::Frame, .. }), "{unframed:?}");
    clean(&kernel("requires Perm(a[tid], write) * a[tid] == 0;"), 1, 2);
}

#[test]
fn pure_calls_are_memoised_so_the_seed_binomial_runs_at_64_threads() {
    // binom(62, 31) unfolds into about 10^17 calls without the memo, far beyond any step budget.
    let outcome = clean(&example("seed/binomial.pvl"), 1, 64);
    let binom = |n: u64, k: u64| (0..k).fold(BigInt::from(1), |acc, i| acc * (n - i) / (i + 1));
    let expected: Vec<BigInt> = (0..64).map(|tid| binom(63, tid)).collect();
    assert_eq!(outcome.memory[0], expected);
}

#[test]
fn a_contract_beyond_the_evaluators_reach_makes_the_run_incomplete_at_its_clause() {
    let kernel = program(
        "kernel huge {
  requires tcount == gsize;
  ensures (\\forall int j; 0 <= j && j < 100000000; j >= 0);
  void main() { }
}",
    );
    let outcome = run_with(&kernel, &options(1, 1), &Schedule::Canonical);
    let Err(RunError::GaveUp { span: Some(span), detail }) = outcome else { panic!("{outcome:?}") };
    assert_eq!(span.start, "kernel huge {\n  requires tcount == gsize;\n  ".len(), "{detail}");
}

fn run_under(program: &Program, gsize: u32, memory_model: MemoryModel) -> Outcome {
    let kernel = &program.kernels[0];
    let launch = run::launch(program, kernel, &options(1, gsize)).expect("the launch is well formed");
    execute::run(program, kernel, &launch, &Schedule::Canonical, memory_model).expect("the run ends")
}

#[test]
fn a_barrier_that_does_not_fence_the_memory_leaves_writes_on_both_sides_unordered() {
    let unfenced = example("fences/no_barrier_flags.pvl");
    for memory_model in [MemoryModel::Seed, MemoryModel::OpenCl] {
        let outcome = run_under(&unfenced, 4, memory_model);
        let Some((Bug::Race { first, second, .. }, _)) = outcome.bug else { panic!("a race: {outcome:?}") };
        assert!(first.write && second.write, "{first:?} {second:?}");
        assert_ne!(first.interval, second.interval, "the race spans the barrier");
        assert!(second.after.is_some(), "the later access follows the barrier");
        assert_eq!(run_under(&example("fences/local_barrier_flag.pvl"), 4, memory_model).bug, None);
    }
}

#[test]
fn under_opencl_a_read_before_an_unfenced_barrier_races_with_a_write_after_it() {
    // The seed's binomial kernel reads tmp before `barrier(2,)`, which fences nothing, and the
    // thread to its right overwrites tmp after it.
    let binomial = example("seed/binomial.pvl");
    assert_eq!(run_under(&binomial, 8, MemoryModel::Seed).bug, None);
    let outcome = run_under(&binomial, 8, MemoryModel::OpenCl);
    let Some((Bug::Race { first, second, .. }, _)) = outcome.bug else { panic!("a race: {outcome:?}") };
    assert!(!first.write && second.write, "{first:?} {second:?}");
    assert_ne!(first.interval, second.interval);
    let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed/binomial.pvl"))
        .expect("the example exists");
    let fenced = program(&source.replace("barrier(2,)", "barrier(2,{local})"));
    assert_eq!(run_under(&fenced, 8, MemoryModel::OpenCl).bug, None);
}

#[test]
fn a_favouring_schedule_runs_the_named_threads_first() {
    let racy = example("variants/race_between_groups.pvl");
    let race = |schedule: &Schedule| {
        let outcome = run_with(&racy, &options(2, 4), schedule).expect("the run ends");
        let Some((Bug::Race { first, second, .. }, _)) = outcome.bug else { panic!("a race: {outcome:?}") };
        (first.thread.tid, second.thread.tid)
    };
    assert_eq!(race(&Schedule::Canonical), (0, 4));
    // Thread 5, then the rest of its group, then group 0: thread 0 meets thread 4's write.
    assert_eq!(race(&Schedule::Favouring { first: vec![5] }), (4, 0));
    assert_eq!(race(&Schedule::Favouring { first: vec![5, 1] }), (5, 1));
    assert_eq!(race(&Schedule::Favouring { first: vec![6, 2] }), (6, 2));
}

fn counterexample(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect()
}

#[test]
fn a_replay_confirms_only_the_failure_the_counterexample_names() {
    let shift = example("basic/shift_writes_input.pvl");
    let kernel = &shift.kernels[0];
    let contract = Failure { obligation: ObligationId::GroupResources, span: kernel.thread_contract.requires[0].span };
    let replay = |failure: Failure, tcount: &str| {
        let named = counterexample(&[
            ("gid", "0"),
            ("gsize", "2"),
            ("tcount", tcount),
            ("location", "0"),
            ("lid of thread 1", "0"),
            ("lid of thread 2", "1"),
        ]);
        run::replay(&shift, kernel, failure, &named, MemoryModel::Seed)
    };
    // One group of two: threads 0 and 1 both claim in[0].
    let Replay::Confirmed { finding, .. } = replay(contract, "2") else { panic!("confirmed") };
    assert_eq!(finding.code, "group.resources", "{finding:?}");
    // Two groups: thread 2 of group 1 reads in[1] as thread 1 writes it, a race between groups
    // the group-level failure does not name.
    let other = replay(contract, "4");
    assert!(matches!(&other, Replay::Other { finding, .. } if finding.code == "race"), "{other:?}");
    // The same run does not confirm a failure of another obligation at another place.
    let write = kernel.body.stmts[0].span;
    let elsewhere = replay(Failure { obligation: ObligationId::AccessWrite, span: write }, "2");
    assert!(matches!(elsewhere, Replay::Other { .. }), "{elsewhere:?}");
    // A correct kernel's runs are clean, whatever failure is claimed.
    let demo = example("seed/demo.pvl");
    let claimed = Failure { obligation: ObligationId::BarrierFunctional, span: demo.kernels[0].span };
    let named = counterexample(&[("tid", "1"), ("gid", "0"), ("lid", "1"), ("gsize", "4"), ("tcount", "4")]);
    let clean = run::replay(&demo, &demo.kernels[0], claimed, &named, MemoryModel::Seed);
    assert!(matches!(clean, Replay::Clean { .. }), "{clean:?}");
}
