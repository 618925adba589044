//! `lockstep lsp`, driven over stdio as an editor drives it: initialize, open, change, wait for
//! diagnostics, hover, go to definition, shut down.

#[path = "support/lsp_client.rs"]
mod client;

use client::Client;
use lockstep_frontend::families::Family;
use serde_json::{json, Value};
use std::path::Path;

fn demo() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed/demo.pvl")).expect("the demo")
}

/// The 0-based line and column of the first `needle` in `text` (ASCII text).
fn place(text: &str, needle: &str) -> Value {
    let offset = text.find(needle).unwrap_or_else(|| panic!("`{needle}` in the text"));
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
    json!({ "line": line, "character": column })
}

const URI: &str = "file:///kernels/demo.pvl";

#[test]
fn an_editing_session_on_the_demo() {
    let demo = demo();
    let mut client = Client::start();
    client.open(URI, &demo);
    let (verdicts, diagnostics) = client.verified_diagnostics(1);
    assert_eq!(verdicts["kernels"], json!([{ "name": "demo", "verdict": "verified" }]));
    assert_eq!(diagnostics, Vec::<Value>::new(), "the demo verifies");

    // The seed's bug: the barrier does not fence the global array it hands over.
    let broken = demo.replace("barrier(global)", "barrier(local)");
    client.change(URI, 2, &broken);
    let (verdicts, diagnostics) = client.verified_diagnostics(2);
    assert_eq!(verdicts["kernels"][0]["verdict"], "failed");
    let functional = diagnostics
        .iter()
        .find(|diagnostic| diagnostic["code"] == "barrier.functional")
        .unwrap_or_else(|| panic!("barrier.functional: {diagnostics:?}"));
    assert_eq!(functional["severity"], 1);
    assert_eq!(functional["source"], "lockstep");
    assert_eq!(functional["range"]["start"], place(&broken, "a[(tid+1) mod gsize]=(tid+1)"), "{functional}");
    let related = functional["relatedInformation"].as_array().expect("related information");
    assert!(
        related
            .iter()
            .any(|info| info["message"].as_str().is_some_and(|text| text.starts_with("counterexample: tid = "))),
        "{related:?}"
    );
    assert!(related.iter().all(|info| info["location"]["uri"] == URI));

    // Hover on the barrier: its obligations, with the verdicts of this version.
    let barrier = place(&broken, "barrier(local)");
    let hover = client.request("textDocument/hover", json!({ "textDocument": { "uri": URI }, "position": barrier }));
    let text = hover["contents"]["value"].as_str().expect("Markdown");
    assert!(text.contains("barrier.functional") && text.contains("[failed]"), "{text}");
    assert!(text.contains("barrier.pre") && text.contains("[verified]"), "{text}");

    // Go to definition of `a` in `a[tid]:=tid`.
    let use_of_a = place(&broken, "a[tid]:=tid");
    let definition =
        client.request("textDocument/definition", json!({ "textDocument": { "uri": URI }, "position": use_of_a }));
    assert_eq!(definition["uri"], URI);
    assert_eq!(definition["range"]["start"]["line"], place(&broken, "global int[gsize] a;")["line"], "{definition}");

    // A syntax error is published at once, and nothing is verified.
    let unfinished = broken.replace("a[tid]:=tid;", "a[tid]:=tid");
    client.change(URI, 3, &unfinished);
    let published = client.wait_for(|message| {
        message["method"] == "textDocument/publishDiagnostics" && message["params"]["version"] == 3
    });
    let codes: Vec<&Value> =
        published["params"]["diagnostics"].as_array().expect("a list").iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("syntax::missing-semicolon")]);

    let received = client.shut_down();
    assert!(!received
        .iter()
        .any(|message| message["method"] == "lockstep/verifying" && message["params"]["version"] == 3));
}

#[test]
fn typing_cancels_the_verification_it_makes_stale() {
    let mut client = Client::start();
    let uri = "file:///kernels/ring.pvl";
    client.open(uri, &Family::RingMod.kernel(64));
    // A ring of 64 barriers takes seconds to verify.
    // Changed while it is verified: the solver stops, and the new text is verified instead.
    client.notification("lockstep/verifying", 1);
    client.change(uri, 2, &demo());
    let cancelled = client.notification("lockstep/cancelled", 1);
    assert!(cancelled["stopped"].as_u64().is_some_and(|stopped| stopped > 0), "{cancelled}");
    let (verdicts, diagnostics) = client.verified_diagnostics(2);
    assert_eq!(verdicts["kernels"][0]["verdict"], "verified");
    assert!(diagnostics.is_empty());
    // Changes in quick succession: only the last text is verified.
    for version in 3..=5 {
        client.change(uri, version, &demo().replace("barrier(global)", &format!("barrier(global) /* {version} */")));
    }
    client.verified_diagnostics(5);
    let received = client.shut_down();
    let verified: Vec<&Value> = received
        .iter()
        .filter(|message| message["method"] == "lockstep/verified")
        .map(|message| &message["params"]["version"])
        .collect();
    assert_eq!(verified, [&json!(2), &json!(5)]);
}

fn repository_file(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).expect("readable")
}

/// Every keyword of the PVL lexer, and every name of the launch, is highlighted by the grammar
/// of `editors/vscode/`, which the package names for `.pvl` files.
#[test]
fn the_editor_package_highlights_every_keyword() {
    let package: Value = serde_json::from_str(&repository_file("editors/vscode/package.json")).expect("JSON");
    assert_eq!(package["contributes"]["languages"][0]["extensions"], json!([".pvl"]));
    let grammar_path = package["contributes"]["grammars"][0]["path"].as_str().expect("a grammar");
    let grammar: Value =
        serde_json::from_str(&repository_file(&format!("editors/vscode/{}", grammar_path.trim_start_matches("./"))))
            .expect("JSON");
    let patterns: Vec<(String, regex::Regex)> = grammar["repository"]
        .as_object()
        .expect("a repository of patterns")
        .values()
        .flat_map(|group| group["patterns"].as_array().expect("patterns").clone())
        .filter_map(|pattern| {
            let source = pattern["match"].as_str()?;
            Some((
                pattern["name"].as_str()?.to_string(),
                regex::Regex::new(&format!("^(?:{source})$")).expect("a regex"),
            ))
        })
        .collect();
    let scope = |word: &str| patterns.iter().find(|(_, regex)| regex.is_match(word)).map(|(name, _)| name.clone());
    let lexer = repository_file("frontend/src/pvl/lexer.rs");
    let keywords: Vec<&str> = lexer
        .lines()
        .filter_map(|line| line.trim().strip_prefix("#[token(\"")?.split("\")]").next())
        .map(|token| token.trim_start_matches("\\\\"))
        .filter(|token| token.chars().next().is_some_and(|first| first.is_ascii_alphabetic()))
        .collect();
    assert!(keywords.len() > 30, "{keywords:?}");
    for keyword in keywords {
        let word = if lexer.contains(&format!("#[token(\"\\\\{keyword}\")]")) {
            format!("\\{keyword}")
        } else {
            keyword.to_string()
        };
        assert!(scope(&word).is_some_and(|name| !name.starts_with("comment")), "`{word}` is not highlighted");
    }
    for builtin in lockstep_logic::Builtin::ALL {
        assert_eq!(scope(builtin.name()).as_deref(), Some("variable.language.launch.pvl"), "{}", builtin.name());
    }
    assert_eq!(scope("total"), None);
}
