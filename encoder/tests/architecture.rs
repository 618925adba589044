//! The kernel encoding's files import one another without a circle: each file (`mod.rs`
//! included) is a node, each `super::name` a file names (in a `use` line or a path) an edge to the
//! sibling `name.rs`, or to `mod.rs` for an item declared there.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/kernel");
    let files: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("src/kernel is readable")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "rs"))
        .map(|path| path.file_stem().expect("a name").to_string_lossy().into_owned())
        .collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(dir.join(format!("{file}.rs"))).expect("readable");
        let mut targets = BTreeSet::new();
        for (position, _) in text.match_indices("super::") {
            let rest = &text[position + "super::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            // `super::{a, b}` names several at once.
            let names: Vec<String> = if rest.starts_with('{') {
                rest[1..rest.find('}').expect("a closed group")]
                    .split(',')
                    .map(|part| part.trim().split("::").next().unwrap_or("").to_string())
                    .filter(|part| !part.is_empty())
                    .collect()
            } else {
                vec![name]
            };
            // `super::*` in a file's own test module names the file itself.
            for name in names.into_iter().filter(|name| !name.is_empty()) {
                let target = if files.contains(&name) && name != "mod" { name } else { "mod".to_string() };
                if &target != file {
                    targets.insert(target);
                }
            }
        }
        graph.insert(file.clone(), targets);
    }
    graph
}

#[test]
fn the_kernel_encoding_has_no_import_circle() {
    let graph = edges();
    assert!(graph.len() > 5, "the files are found: {graph:?}");
    // Depth-first search for a back edge.
    fn visit<'g>(
        node: &'g str,
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'g str>,
        done: &mut BTreeSet<&'g str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|&on| on == node) {
            return Some(path[start..].iter().map(|name| name.to_string()).chain([node.to_string()]).collect());
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(circle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            panic!("an import circle: {}", circle.join(" -> "));
        }
    }
    // The files of the encoding never reach back to `mod.rs`, which only puts them together.
    for (file, targets) in &graph {
        assert!(!targets.contains("mod"), "{file}.rs imports from mod.rs");
    }
}
