//! How long the frontend takes on the seed examples: decode, lex, parse, resolve and type-check.
//! Target (issue 2): under 10 ms per example. Run with `cargo bench -p lockstep --bench frontend`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use lockstep_frontend::check_bytes;

const EXAMPLES: &[(&str, &str)] = &[
    ("seed/demo.pvl", include_str!("../../examples/seed/demo.pvl")),
    ("seed/binomial.pvl", include_str!("../../examples/seed/binomial.pvl")),
];

fn check_examples(c: &mut Criterion) {
    for (name, text) in EXAMPLES {
        c.bench_function(&format!("check {name}"), |b| {
            b.iter(|| {
                let checked = check_bytes(name, black_box(text.as_bytes().to_vec()));
                assert!(checked.program.is_some());
                checked
            })
        });
    }
}

criterion_group!(benches, check_examples);
criterion_main!(benches);
