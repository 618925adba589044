//! A procedure's verification condition in parts (`proofs/vcgen.md`, V11): each part asks some
//! checks with only the commands they involve, every check is asked in one part, what a part
//! cannot verify is asked of the whole VC, and the verdicts are the whole VC's.

use lockstep_encoder::ivl::{self, Declaration, Program};
use lockstep_encoder::smt::z3_native::Z3Solver;
use lockstep_encoder::smt::Limits;
use lockstep_encoder::vcgen::{Generator, Part};
use lockstep_encoder::verify::{self, Status};

fn program(text: &str) -> Program {
    let program = ivl::parse::program(text).expect("the program parses");
    ivl::check::program(&program).expect("the program type-checks");
    program
}

fn procedure(program: &Program) -> &ivl::Procedure {
    program
        .declarations
        .iter()
        .find_map(|declaration| match declaration {
            Declaration::Procedure(procedure) => Some(procedure),
            _ => None,
        })
        .expect("a procedure")
}

/// `count` intervals, each of which forgets the map `h` and says and checks something of its own
/// about it, like the heap between two barriers.
fn intervals(count: usize) -> String {
    (0..count).map(|k| format!("  havoc h;\n  assume h[t] == {k};\n  assert h[t] >= {k};\n")).collect()
}

/// The parts of the procedure of `text` and the number of its checks.
fn parts_of(text: &str, probe: &dyn Fn(&str) -> bool) -> (Vec<Part>, usize) {
    let program = program(text);
    let generator = Generator::of(&program);
    let analysis = generator.analyse(procedure(&program));
    (analysis.parts(probe), analysis.checks().len())
}

/// The part that asks the last check.
fn last_part(parts: &[Part], checks: usize) -> &Part {
    parts.iter().find(|part| part.checks.contains(&(checks - 1))).expect("a part asks the last check")
}

fn in_parts(text: &str) -> Vec<Status> {
    let program = program(text);
    let generator = Generator::of(&program);
    let analysis = generator.analyse(procedure(&program));
    let mut solver = Z3Solver::new(Limits::default());
    let outcomes = verify::procedure_in_parts(&analysis, &mut solver, &[ivl::Expr::var("t")], &[], &|_| false)
        .expect("z3 answers");
    outcomes.into_iter().map(|outcome| outcome.status).collect()
}

#[test]
fn each_check_is_asked_in_one_part_with_the_commands_of_its_interval() {
    let text = format!("procedure p(t: int) {{\n  var h: [int]int;\n{}}}\n", intervals(600));
    let (parts, checks) = parts_of(&text, &|_| false);
    assert!(parts.len() >= 2, "{} parts", parts.len());
    let mut asked = vec![0; checks];
    for part in &parts {
        for (local, &check) in part.checks.iter().enumerate() {
            if part.vc.asks(local) {
                asked[check] += 1;
            }
        }
        // A part holds its own intervals' facts, not every interval's.
        let facts = part.vc.script.to_string().matches("(assert (= ok@").count();
        assert!(facts < checks / 2, "a part with {facts} blocks of {checks}");
    }
    assert!(asked.iter().all(|&count| count == 1), "{asked:?}");
    assert!(in_parts(&text).iter().all(|status| *status == Status::Verified));
}

#[test]
fn a_fact_linked_through_a_variable_goes_with_the_check_that_needs_it() {
    // `x` is read from the first interval's map and checked after all the others.
    let text = format!(
        "procedure p(t: int) {{\n  var h: [int]int;\n  var x: int;\n  havoc h;\n  assume h[t] == 7;\n  x := h[t];\n{}  assert x == 7;\n}}\n",
        intervals(600)
    );
    let (parts, checks) = parts_of(&text, &|_| false);
    let part = last_part(&parts, checks);
    assert!(part.vc.script.to_string().contains("(= (select h@1 t@0) 7)"), "{}", part.vc.script);
    assert!(in_parts(&text).iter().all(|status| *status == Status::Verified));
}

#[test]
fn what_a_part_cannot_prove_the_whole_decides() {
    // The first interval's facts bound `t`; the check about `t` alone goes with a later interval,
    // whose part does not hold them, so it fails there and is asked of the whole.
    let holds = format!(
        "procedure p(t: int) {{\n  var h: [int]int;\n  havoc h;\n  assume h[0] == t && h[0] > 5;\n{}  assert t > 5;\n}}\n",
        intervals(600)
    );
    // The part that asks the last check cannot prove it alone.
    let (parts, checks) = parts_of(&holds, &|_| false);
    let part = last_part(&parts, checks);
    let mut solver = Z3Solver::new(Limits::default());
    let alone = verify::procedure(&part.vc, &mut solver, &[], &[], &|_| false).expect("z3 answers");
    let local = part.checks.iter().position(|&check| check == checks - 1).expect("the last check");
    assert!(matches!(alone[local].status, Status::Failed { .. }), "{:?}", alone[local].status);
    let statuses = in_parts(&holds);
    assert!(statuses.iter().all(|status| *status == Status::Verified), "{:?}", statuses.last());
    let fails = holds.replace("assert t > 5;", "assert t > 6;");
    let statuses = in_parts(&fails);
    let Some(Status::Failed { model }) = statuses.last() else { panic!("{:?}", statuses.last()) };
    // The counterexample is the whole VC's: a `t` the first interval allows.
    assert_eq!(model.iter().find(|(name, _)| name == "t").map(|(_, value)| value.to_string()), Some("6".into()));
    assert!(statuses[..statuses.len() - 1].iter().all(|status| *status == Status::Verified));
}

#[test]
fn a_small_procedure_is_asked_whole() {
    let text = format!("procedure p(t: int) {{\n  var h: [int]int;\n{}}}\n", intervals(20));
    assert!(parts_of(&text, &|_| false).0.is_empty());
}

#[test]
fn probes_find_the_contradiction_in_their_parts() {
    // A probe after every interval; interval 400 assumes two values of one cell.
    let body: String = (0..600)
        .map(|k| {
            let contradiction = if k == 400 { "  assume h[t] == -1;\n" } else { "" };
            format!("  havoc h;\n  assume h[t] == {k};\n{contradiction}  assert h[t] >= {k};\n  if (*) {{ assert {{:tag \"v{k}\"}} false; }}\n")
        })
        .collect();
    let text = format!("procedure p(t: int) {{\n  var h: [int]int;\n{body}}}\n");
    let program = program(&text);
    let generator = Generator::of(&program);
    let analysis = generator.analyse(procedure(&program));
    let is_probe = |tag: &str| tag.starts_with('v');
    assert!(analysis.parts(&is_probe).iter().any(|part| part.probe));
    let mut solver = Z3Solver::new(Limits::default());
    let outcomes = verify::procedure_in_parts(&analysis, &mut solver, &[], &[], &is_probe).expect("z3 answers");
    let probe = |k: usize| {
        let tag = format!("v{k}");
        outcomes
            .iter()
            .find(|outcome| outcome.check.tag.as_deref() == Some(tag.as_str()))
            .expect("a probe")
            .status
            .clone()
    };
    // Reachable before the contradiction, unreachable at it (where the warning is drawn; a later
    // probe's part may leave the contradiction out, V11); the checks hold vacuously after it.
    assert!(matches!(probe(0), Status::Failed { .. }), "{:?}", probe(0));
    assert!(matches!(probe(399), Status::Failed { .. }), "{:?}", probe(399));
    assert_eq!(probe(400), Status::Verified);
    let checks = outcomes.iter().filter(|outcome| !outcome.check.tag.as_deref().is_some_and(is_probe));
    assert!(checks.clone().all(|outcome| outcome.status == Status::Verified));
}
