//! `--format sarif`: what `check` and `verify` found, as a SARIF 2.1.0 log for CI systems and
//! code-scanning dashboards.
//!
//! One run, whose tool lists a rule for every diagnostic code and every obligation id (so a
//! viewer can explain a result it has never seen). Each diagnostic is a result of kind `fail` at
//! its level; with `verify`, each obligation is a result too: `fail` (level `error`) when it
//! failed, `pass` when it verified, `open` when the solver could not decide it (SARIF's "could
//! not determine whether the rule was met", whose level is `none` by the standard), and
//! `notApplicable` when the user chose not to check it. The second place a failure involves (the
//! barrier an `ensures` does not follow from, a diagnostic's secondary labels) is a related
//! location; the counterexample is in the message and, as values, in the result's properties.
//! Columns count characters (`columnKind: unicodeCodePoints`), as every other output does.

use lockstep_frontend::diagnostics::{Code, Diagnostic, Severity};
use lockstep_frontend::source::SourceFile;
use lockstep_frontend::verify::{ObligationResult, Verdict};
use lockstep_logic::{ObligationId, Span};
use serde_sarif::sarif;
use std::collections::BTreeMap;

/// The SARIF log being written: the results so far.
#[derive(Default)]
pub struct Log {
    results: Vec<sarif::Result>,
}

impl Log {
    /// A diagnostic of `check` (or of verification: a warning, a solver failure).
    pub fn diagnostic(&mut self, file: &SourceFile, diagnostic: &Diagnostic) {
        let level = match diagnostic.severity {
            Severity::Error => sarif::ResultLevel::Error,
            Severity::Warning => sarif::ResultLevel::Warning,
        };
        let text = match &diagnostic.help {
            Some(help) => format!("{} ({}). Help: {help}", diagnostic.message, diagnostic.primary.message),
            None if diagnostic.primary.message.is_empty() => diagnostic.message.clone(),
            None => format!("{} ({})", diagnostic.message, diagnostic.primary.message),
        };
        let related = diagnostic.secondary.iter().map(|label| (label.span, label.message.as_str()));
        let result = result(
            diagnostic.code.as_str(),
            text,
            (sarif::ResultKind::Fail, level),
            (file, diagnostic.primary.span),
            related,
        );
        self.results.push(result);
    }

    /// The verdict on one obligation of kernel `kernel`, with the replay of its counterexample
    /// (`verify --replay`) when there is one.
    pub fn obligation(
        &mut self,
        file: &SourceFile,
        kernel: &str,
        outcome: &ObligationResult,
        replay: Option<serde_json::Value>,
    ) {
        let obligation = &outcome.obligation;
        let (kind, verdict) = match &outcome.verdict {
            Verdict::Verified => (sarif::ResultKind::Pass, "verified".to_string()),
            Verdict::Failed => (sarif::ResultKind::Fail, "failed".to_string()),
            Verdict::Undecided(reason) => (sarif::ResultKind::Open, format!("undecided: {reason}")),
            Verdict::NotChecked(reason) => (sarif::ResultKind::NotApplicable, format!("not checked: {reason}")),
        };
        let mut text = format!("kernel {kernel}: {} ({verdict})", obligation.message);
        if let Some(help) = obligation.help.as_ref().filter(|_| outcome.verdict == Verdict::Failed) {
            text.push_str(&format!(". Help: {help}"));
        }
        if let Some(values) = outcome.counterexample_text() {
            text.push_str(&format!(". Counterexample: {values}"));
        }
        let mut properties = BTreeMap::from([("kernel".to_string(), serde_json::json!(kernel))]);
        if !outcome.counterexample.is_empty() {
            // In the kernel's order (thread ids first), as `--format json` gives it.
            let values: Vec<serde_json::Value> = outcome
                .counterexample
                .iter()
                .map(|(name, value)| serde_json::json!({ "name": name, "value": value }))
                .collect();
            properties.insert("counterexample".to_string(), serde_json::Value::Array(values));
        }
        if let Some(replay) = replay {
            properties.insert("replay".to_string(), replay);
        }
        // SARIF: a result whose kind is not `fail` has level `none`.
        let level = if kind == sarif::ResultKind::Fail { sarif::ResultLevel::Error } else { sarif::ResultLevel::None };
        let related = obligation.related.iter().map(|(span, label)| (*span, label.as_str()));
        let mut result = result(obligation.id.as_str(), text, (kind, level), (file, obligation.span), related);
        result.properties = Some(sarif::PropertyBag::builder().additional_properties(properties).build());
        self.results.push(result);
    }

    /// The log as JSON text: one run, the rules, the results, and whether lockstep ran to the end
    /// on every file (`executionSuccessful`: false when an input was rejected or the solver failed).
    pub fn into_json(self, successful: bool) -> String {
        let driver = sarif::ToolComponent::builder()
            .name("lockstep")
            .full_name("lockstep: a deductive verifier for GPU kernels in permission-based separation logic")
            .version(env!("CARGO_PKG_VERSION"))
            .semantic_version(env!("CARGO_PKG_VERSION"))
            .rules(rules())
            .build();
        let run = sarif::Run::builder()
            .tool(sarif::Tool::builder().driver(driver).build())
            .column_kind(serde_json::json!("unicodeCodePoints"))
            .invocations(vec![sarif::Invocation::builder().execution_successful(successful).build()])
            .results(self.results)
            .build();
        let log = sarif::Sarif::builder()
            .schema("https://json.schemastore.org/sarif-2.1.0.json")
            .version(serde_json::json!("2.1.0"))
            .runs(vec![run])
            .build();
        serde_json::to_string_pretty(&log).expect("SARIF values serialise")
    }
}

/// A result of rule `rule`: what it says, its kind and level, its place and the other places it involves.
fn result<'a>(
    rule: &str,
    text: String,
    (kind, level): (sarif::ResultKind, sarif::ResultLevel),
    (file, span): (&SourceFile, Span),
    related: impl Iterator<Item = (Span, &'a str)>,
) -> sarif::Result {
    sarif::Result::builder()
        .rule_id(rule)
        .rule_index(rule_index(rule))
        .kind(kind)
        .level(level)
        .message(sarif::Message::builder().text(text).build())
        .locations(vec![location(file, span, None)])
        .related_locations(related.map(|(span, message)| location(file, span, Some(message))).collect::<Vec<_>>())
        .build()
}

/// Every rule: the diagnostic codes, then the obligation ids, each with what it is about.
fn rules() -> Vec<sarif::ReportingDescriptor> {
    let describe = |id: &str, description: &str| {
        sarif::ReportingDescriptor::builder()
            .id(id)
            .short_description(sarif::MultiformatMessageString::builder().text(description).build())
            .build()
    };
    let codes = Code::ALL.iter().map(|code| describe(code.as_str(), code.description()));
    let obligations = ObligationId::ALL.iter().map(|id| describe(id.as_str(), id.summary()));
    codes.chain(obligations).collect()
}

/// The position of rule `rule` in [`rules`].
fn rule_index(rule: &str) -> i64 {
    let codes = Code::ALL.iter().map(|code| code.as_str());
    let obligations = ObligationId::ALL.iter().map(|id| id.as_str());
    let index = codes.chain(obligations).position(|id| id == rule).expect("every rule is listed");
    i64::try_from(index).expect("a handful of rules")
}

/// `span` of `file`, with a message when it is a related location.
fn location(file: &SourceFile, span: Span, message: Option<&str>) -> sarif::Location {
    let start = file.position(span.start);
    let end = file.position(span.end);
    let as_number = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let region = sarif::Region::builder()
        .start_line(as_number(start.line))
        .start_column(as_number(start.column))
        .end_line(as_number(end.line))
        .end_column(as_number(end.column))
        .build();
    let physical = sarif::PhysicalLocation::builder()
        .artifact_location(sarif::ArtifactLocation::builder().uri(uri(&file.path)).build())
        .region(region)
        .build();
    let location = sarif::Location::builder().physical_location(physical);
    match message.filter(|message| !message.is_empty()) {
        Some(message) => location.message(sarif::Message::builder().text(message).build()).build(),
        None => location.build(),
    }
}

/// A path as a URI reference: relative paths stay relative (to where lockstep ran, as code
/// scanning expects), and every byte other than an unreserved character or `/` is percent-encoded.
fn uri(path: &str) -> String {
    let mut uri = String::new();
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("examples/seed/demo.pvl"), "examples/seed/demo.pvl");
        assert_eq!(uri("my kernels/a#1.cl"), "my%20kernels/a%231.cl");
        assert_eq!(uri("é.pvl"), "%C3%A9.pvl");
    }

    #[test]
    fn every_rule_has_its_index() {
        let rules = rules();
        for (index, rule) in rules.iter().enumerate() {
            assert_eq!(rule_index(&rule.id), i64::try_from(index).unwrap());
        }
    }
}
