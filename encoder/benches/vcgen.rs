//! VC generation time and size for 100 and 1000 sequential `if`s: both should grow linearly.
//! Run with `cargo bench -p lockstep-encoder --bench vcgen`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use lockstep_encoder::ivl::{self, Declaration, Program};
use lockstep_encoder::vcgen;

fn sequential_ifs(count: usize) -> Program {
    let body: String =
        (0..count).map(|_| "  if (y > 0) {\n    y := y - 1;\n  } else {\n    y := y + 2;\n  }\n").collect();
    let text = format!("procedure p(x: int) returns (y: int)\n  ensures y > -1;\n{{\n  y := x;\n  assume y >= 0;\n{body}  assert y >= 0;\n}}\n");
    ivl::parse::program(&text).expect("parses")
}

fn generate(c: &mut Criterion) {
    for count in [100, 1000] {
        let program = sequential_ifs(count);
        let Declaration::Procedure(procedure) = &program.declarations[0] else { unreachable!() };
        let size = vcgen::procedure(&program, procedure).script.to_string().len();
        println!("{count} ifs: VC of {size} bytes of SMT-LIB");
        c.bench_function(&format!("vcgen {count} ifs"), |b| {
            b.iter(|| vcgen::procedure(black_box(&program), procedure))
        });
    }
}

criterion_group!(benches, generate);
criterion_main!(benches);
