use std::path::{Path, PathBuf};
fn example_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() { example_files(&path, found); } else if path.extension().is_some_and(|e| e == "pvl") { found.push(path); }
    }
}
#[test]
fn outline_numbers_the_encoders_obligations() {
    let mut files = Vec::new();
    example_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples"), &mut files);
    example_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"), &mut files);
    let mut bad = Vec::new();
    for path in files {
        let checked = lockstep_frontend::check_bytes(&path.display().to_string(), std::fs::read(&path).unwrap());
        let Some(program) = checked.program else { continue };
        for model in [lockstep_logic::fences::MemoryModel::Seed, lockstep_logic::fences::MemoryModel::OpenCl] {
            for kernel in &program.kernels {
                let options = lockstep_encoder::kernel::Options { memory_model: model };
                let encoding = lockstep_encoder::kernel::encode(&program, kernel, &options);
                let outline = lockstep_logic::outline::Outline::of(&program, kernel, model);
                if encoding.obligations != outline.obligations {
                    let first = encoding.obligations.iter().zip(&outline.obligations).position(|(a, b)| a != b);
                    bad.push(format!("{} {:?}: {} vs {}; first diff {:?}: {:?} / {:?}", path.display(), model, encoding.obligations.len(), outline.obligations.len(), first,
                        first.map(|i| &encoding.obligations[i]), first.map(|i| &outline.obligations[i])));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
