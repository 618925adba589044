//! The generated kernels of `lockstep bench` (`lockstep_frontend::families`) are correct, and not
//! vacuously: each verifies at several sizes, and a one-place change to each fails at the
//! obligation it breaks.

use lockstep_frontend::families::Family;
use lockstep_frontend::verify::{self, Verdict};

/// The verdict of the kernel and the ids of its failed obligations.
fn verdict(name: &str, text: &str) -> (Verdict, Vec<String>) {
    let verification = verify::file(name, text.as_bytes().to_vec(), &verify::Settings::default());
    let kernels = verification.kernels.expect("a well-formed kernel").expect("verification runs");
    let kernel = &kernels[0];
    let failed = kernel
        .results
        .iter()
        .filter(|result| result.verdict == Verdict::Failed)
        .map(|result| result.obligation.id.as_str().to_string())
        .collect();
    (kernel.verdict(), failed)
}

#[test]
fn every_family_verifies() {
    for family in Family::ALL {
        for size in [1, 2, 3] {
            let name = format!("{}{size}.pvl", family.name());
            let (verdict, failed) = verdict(&name, &family.kernel(size));
            assert_eq!(verdict, Verdict::Verified, "{name}: {failed:?}");
        }
    }
}

/// A change to a family's kernel that breaks it, and the obligation that must then fail.
fn broken(family: Family, text: &str) -> (String, &'static str) {
    let (from, to, fails) = match family {
        // The first barrier promises the wrong writer of the cell that wraps round.
        Family::Ring => (
            "a[lid + 1 - gsize] == (lid + 1 < gsize ? lid + 1 : 0)",
            "a[lid + 1 - gsize] == (lid + 1 < gsize ? lid + 1 : 1)",
            "barrier.functional",
        ),
        Family::RingMod => ("== (lid + 1) % gsize;\n    }", "== lid % gsize;\n    }", "barrier.functional"),
        // The value written before the first barrier is not the one it promises.
        Family::PingPong => ("a[lid] := lid + 0;", "a[lid] := lid + 1;", "barrier.pre"),
        // The second barrier gives each thread its neighbour's cell, not its own, which the loop
        // invariant holds.
        Family::SeqLoop => (
            "ensures Perm(a[lid], write);\n      }",
            "ensures Perm(a[(lid + 1) % gsize], write);\n      }",
            "loop.invariant.preserved",
        ),
        // The first array is written with a value the barrier does not promise.
        Family::ArrBar => ("a0[lid] := lid + 0;", "a0[lid] := lid + 1;", "barrier.pre"),
    };
    assert!(text.contains(from), "{} lacks {from:?}", family.name());
    (text.replacen(from, to, 1), fails)
}

#[test]
fn a_broken_kernel_of_every_family_fails() {
    for family in Family::ALL {
        let (text, fails) = broken(family, &family.kernel(3));
        let (verdict, failed) = verdict(&format!("{}_broken.pvl", family.name()), &text);
        assert_eq!(verdict, Verdict::Failed, "{}:\n{text}", family.name());
        assert!(failed.iter().any(|id| id == fails), "{}: {failed:?}, not {fails}", family.name());
    }
}
