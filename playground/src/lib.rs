//! lockstep in the browser: the pipeline of the command line (`lockstep_frontend::verify::file`),
//! compiled to WebAssembly, with z3's own WebAssembly build deciding the checks in the page.
//!
//! The page calls [`check`] as the text changes and [`verify`] on its Verify button, and draws
//! what they return: the findings of `lockstep_frontend::editor`, each kernel's verdict, and what
//! `lockstep explain` says with the verdicts. The checks go to the page's z3 through the SMT-LIB
//! check loop of `lockstep_encoder::smt::smtlib`, over batches of commands: the page provides
//! `globalThis.lockstepZ3` with `start()` (a fresh z3 context, by number), `evaluate(context,
//! commands)` (their output; the worker this module runs in waits for it) and `end(context)`.
//!
//! This crate never starts a process, reads a file or links a native library; it decides nothing
//! and has no pipeline of its own: it translates between the page and the frontend.

use lockstep_encoder::run::{Backend, TransportRef};
use lockstep_encoder::smt::smtlib::{Batches, Evaluator, Flavour, Transport};
use lockstep_encoder::smt::SolverError;
use lockstep_frontend::editor::{self, Finding, Level};
use lockstep_frontend::source::SourceFile;
use lockstep_frontend::verify;
use lockstep_logic::Span;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = lockstepZ3, js_name = start)]
    fn start_context() -> u32;
    #[wasm_bindgen(js_namespace = lockstepZ3, js_name = evaluate, catch)]
    fn evaluate_in(context: u32, commands: &str) -> Result<String, JsValue>;
    #[wasm_bindgen(js_namespace = lockstepZ3, js_name = end)]
    fn end_context(context: u32);
}

/// The examples of the page's menu: the seed's and a few others, with a bug each. All are PVL:
/// OpenCL C and CUDA are read by Clang, which does not run in the page.
const EXAMPLES: [(&str, &str); 4] = [
    ("seed/demo.pvl", include_str!("../../examples/seed/demo.pvl")),
    ("seed/binomial.pvl", include_str!("../../examples/seed/binomial.pvl")),
    (
        "variants/barrier_post_does_not_follow.pvl",
        include_str!("../../examples/variants/barrier_post_does_not_follow.pvl"),
    ),
    ("variants/demo_without_one_group.pvl", include_str!("../../examples/variants/demo_without_one_group.pvl")),
];

/// The examples, as `[{"name", "text"}]`.
#[wasm_bindgen]
pub fn examples() -> String {
    let list: Vec<Value> = EXAMPLES.iter().map(|(name, text)| json!({ "name": name, "text": text })).collect();
    Value::Array(list).to_string()
}

/// Parses and checks the text (of a file named `path`: its extension gives the language), as
/// `lockstep check` does: `{"findings": [...]}`.
#[wasm_bindgen]
pub fn check(path: &str, text: &str) -> String {
    let checked = verify::check(path, text.as_bytes().to_vec(), &verify::Settings::default());
    let findings = editor::check_findings(&checked);
    json!({ "findings": findings_json(&checked.file, &findings) }).to_string()
}

/// Verifies the text as `lockstep verify` does, with the page's z3: `{"findings": [...],
/// "kernels": [{"name", "verdict"}], "explain": "..."}`.
#[wasm_bindgen]
pub fn verify(path: &str, text: &str) -> String {
    let settings =
        verify::Settings { backend: Backend::SmtLib(Flavour::Z3, TransportRef(&page_z3)), ..Default::default() };
    let verification = verify::file(path, text.as_bytes().to_vec(), &settings);
    let findings = editor::findings(&verification);
    let file = &verification.checked.file;
    let (kernels, explain) = match (&verification.checked.program, &verification.kernels) {
        (Some(program), Some(Ok(results))) => {
            let kernels =
                results.iter().map(|result| json!({ "name": result.name, "verdict": result.verdict().name() }));
            let memory_model = settings.memory_model_of(path);
            let explained = lockstep_frontend::explain::kernels(file, program, Some(results), memory_model);
            let explain: String = explained
                .iter()
                .map(|kernel| kernel.explanation.human(file, kernel.verdicts.as_deref()))
                .collect::<Vec<_>>()
                .join("\n");
            (kernels.collect(), explain)
        }
        _ => (Vec::new(), String::new()),
    };
    json!({ "findings": findings_json(file, &findings), "kernels": kernels, "explain": explain }).to_string()
}

/// The transport to the page's z3.
fn page_z3() -> Box<dyn Transport> {
    Box::new(Batches(PageZ3::start))
}

/// One z3 context of the page.
struct PageZ3 {
    context: u32,
}

impl PageZ3 {
    fn start() -> Result<Box<dyn Evaluator>, SolverError> {
        Ok(Box::new(PageZ3 { context: start_context() }))
    }
}

/// The page cannot stop z3 once it evaluates: the wait is left to z3's own timer (`:timeout`).
impl Evaluator for PageZ3 {
    fn evaluate(&mut self, commands: &str, _: std::time::Duration) -> Result<Option<String>, SolverError> {
        let output = evaluate_in(self.context, commands);
        output.map(Some).map_err(|error| SolverError(format!("the page's z3 failed: {error:?}")))
    }
}

impl Drop for PageZ3 {
    fn drop(&mut self) {
        end_context(self.context);
    }
}

/// Findings with their places as the page counts: UTF-16 offsets into the text (JavaScript's
/// string indices), and 1-based lines and columns.
fn findings_json(file: &SourceFile, findings: &[Finding]) -> Vec<Value> {
    let place = |span: Span| {
        let offset = |byte: usize| file.text[..byte.min(file.text.len())].encode_utf16().count();
        let position = file.position(span.start);
        json!({ "from": offset(span.start), "to": offset(span.end), "line": position.line, "column": position.column })
    };
    findings
        .iter()
        .map(|finding| {
            let related: Vec<Value> = finding
                .related
                .iter()
                .map(|(span, message)| json!({ "at": place(*span), "message": message }))
                .collect();
            json!({
                "at": place(finding.span),
                "level": match finding.level { Level::Error => "error", Level::Warning => "warning" },
                "code": finding.code,
                "message": finding.message,
                "related": related,
                "counterexample": finding.counterexample,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_well_formed() {
        for (name, text) in EXAMPLES {
            let answer: Value = serde_json::from_str(&check(name, text)).expect("JSON");
            assert_eq!(answer["findings"], json!([]), "{name}");
        }
    }

    #[test]
    fn a_syntax_error_is_placed_in_utf16_units() {
        let text = "// é𝔸\nkernel k { void main() { int x := 1 } }";
        let answer: Value = serde_json::from_str(&check("k.pvl", text)).expect("JSON");
        let finding = &answer["findings"][0];
        assert_eq!(finding["code"], "syntax::missing-semicolon", "{answer}");
        let from = finding["at"]["from"].as_u64().expect("an offset") as usize;
        // `é` is one UTF-16 unit and `𝔸` two: the offset counts them so.
        let utf16: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(String::from_utf16_lossy(&utf16[from - 1..from]), "1", "{finding}");
    }
}
