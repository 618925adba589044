//! The verification pipeline gives the same verdicts whichever way the solver is reached: z3 in
//! this process, or z3 reached as the playground reaches its WebAssembly build, through the
//! SMT-LIB check loop over batches of commands (`Backend::SmtLib`).

#[path = "../../encoder/tests/support/z3_batches.rs"]
mod z3_batches;

use lockstep_encoder::run::{Backend, TransportRef};
use lockstep_encoder::smt::smtlib::{Batches, Flavour, Transport};
use lockstep_frontend::verify::{self, Settings};
use std::path::Path;
use z3_batches::Z3Batches;

fn batches() -> Box<dyn Transport> {
    Box::new(Batches(Z3Batches::start))
}

/// A kernel's name, verdict, and the ids and lines of its obligations that are not verified.
type KernelVerdict = (String, String, Vec<(String, usize)>);

fn verdicts(path: &str, backend: Backend) -> Vec<KernelVerdict> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    let bytes = std::fs::read(&full).expect("the example");
    let settings = Settings { backend, ..Settings::default() };
    let verification = verify::file(path, bytes, &settings);
    let file = verification.checked.file;
    let kernels = verification.kernels.expect("well formed").expect("the solver runs");
    kernels
        .iter()
        .map(|kernel| {
            let open = kernel
                .results
                .iter()
                .filter(|outcome| outcome.verdict != verify::Verdict::Verified)
                .map(|outcome| {
                    (outcome.obligation.id.as_str().to_string(), file.position(outcome.obligation.span.start).line)
                })
                .collect();
            (kernel.name.clone(), format!("{:?}", kernel.verdict()), open)
        })
        .collect()
}

#[test]
fn batches_of_smtlib_give_the_verdicts_of_z3_in_process() {
    let smtlib = Backend::SmtLib(Flavour::Z3, TransportRef(&batches));
    for path in [
        "examples/seed/demo.pvl",
        "examples/seed/binomial.pvl",
        "examples/variants/barrier_post_does_not_follow.pvl",
        "examples/variants/demo_without_one_group.pvl",
        "examples/basic/saxpy_wrong_result.pvl",
        "examples/opencl/blur_missing_barrier.cl",
        "examples/opencl/binomial.cl",
    ] {
        let expected = verdicts(path, Backend::Z3);
        assert_eq!(verdicts(path, smtlib), expected, "{path}");
    }
}
