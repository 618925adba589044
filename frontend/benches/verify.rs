//! End-to-end verification time per example: read, check, encode, generate VCs and solve with
//! z3 in-process. Target (issue 4): each seed example under 0.5 s. The number of threads is a
//! symbolic parameter of the encoding, so no launch size appears here: the cost is the same for 2
//! threads or 2 million. Run with `cargo bench -p lockstep --bench verify`.

use criterion::{criterion_group, criterion_main, Criterion};
use lockstep_encoder::run::Backend;
use lockstep_encoder::smt::Limits;
use lockstep_frontend::{check_bytes, verify};
use std::path::{Path, PathBuf};

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut found = Vec::new();
    let mut work = vec![root];
    while let Some(dir) = work.pop() {
        for entry in std::fs::read_dir(dir).expect("examples/ is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                work.push(path);
            } else if path.extension().is_some_and(|extension| extension == "pvl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn verify_examples(c: &mut Criterion) {
    let mut group = c.benchmark_group("verify");
    group.sample_size(10);
    for path in examples() {
        let name = path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples"))
            .unwrap_or(&path)
            .display()
            .to_string();
        let bytes = std::fs::read(&path).expect("readable");
        group.bench_function(&name, |b| {
            b.iter(|| {
                let checked = check_bytes(&name, bytes.clone());
                let program = checked.program.expect("examples are well formed");
                verify::program(&program, Backend::Z3, &Limits::default()).expect("verification runs")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, verify_examples);
criterion_main!(benches);
