//! The verification condition grows linearly with the program: a thousand `if`s in a row give a
//! VC about ten times the size of a hundred (a naive weakest precondition would double per `if`).

use lockstep_encoder::ivl::{self, Declaration};
use lockstep_encoder::vcgen;

/// A procedure with `count` sequential `if`s, each changing the same variable on both branches.
pub fn sequential_ifs(count: usize) -> String {
    let body: String =
        (0..count).map(|_| "  if (y > 0) {\n    y := y - 1;\n  } else {\n    y := y + 2;\n  }\n").collect();
    format!("procedure p(x: int) returns (y: int)\n  ensures y > -1;\n{{\n  y := x;\n  assume y >= 0;\n{body}  assert y >= 0;\n}}\n")
}

fn vc_size(count: usize) -> usize {
    let program = ivl::parse::program(&sequential_ifs(count)).expect("parses");
    let Declaration::Procedure(procedure) = &program.declarations[0] else { unreachable!() };
    vcgen::procedure(&program, procedure).script.to_string().len()
}

#[test]
fn a_thousand_ifs_cost_about_ten_times_a_hundred() {
    let (small, large) = (vc_size(100), vc_size(1000));
    let ratio = large as f64 / small as f64;
    assert!(ratio <= 11.0, "VC sizes {small} and {large}: ratio {ratio:.2}");
    assert!(ratio >= 9.0, "VC sizes {small} and {large}: ratio {ratio:.2} is suspiciously small");
}
