//! What an editor shows of a file, whatever carries it there (`lockstep lsp`, the playground):
//! the problems found, at once from [`crate::check_file`] and from [`crate::verify::file`] once it
//! is done; what a contract clause or a barrier stands for (its obligations with their verdicts,
//! from [`crate::explain`]); and where a name is declared.
//!
//! Values only: no I/O, no threads, no protocol. Places are byte spans of the file; the carrier
//! turns them into its own positions.

use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::explain::Explained;
use crate::source::SourceFile;
use crate::verify::{KernelResult, Verdict, Verification};
use crate::Checked;
use lockstep_logic::{Program, Span};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

/// One problem, as an editor draws it on the text.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub span: Span,
    pub level: Level,
    /// The diagnostic code or obligation id.
    pub code: &'static str,
    /// What is wrong, then how to fix it where that is known.
    pub message: String,
    /// The other places involved, each with what it has to do with the finding.
    pub related: Vec<(Span, String)>,
    /// For a failure: the values that show it, in a sentence.
    pub counterexample: Option<String>,
}

/// The diagnostics of `check`: syntax, name and type errors, unsupported constructs, warnings.
pub fn check_findings(checked: &Checked) -> Vec<Finding> {
    checked.diagnostics.iter().map(diagnostic_finding).collect()
}

fn diagnostic_finding(diagnostic: &Diagnostic) -> Finding {
    Finding {
        span: diagnostic.primary.span,
        level: match diagnostic.severity {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
        },
        code: diagnostic.code.as_str(),
        message: with_help(&diagnostic.message, diagnostic.help.as_deref()),
        related: diagnostic.secondary.iter().map(|label| (label.span, label.message.clone())).collect(),
        counterexample: None,
    }
}

/// What verification found: its warnings, each failed obligation (an error) and each undecided
/// one (a warning, with the solver's reason).
pub fn verification_findings(kernels: &[KernelResult]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for kernel in kernels {
        findings.extend(kernel.warnings.iter().map(diagnostic_finding));
        for outcome in &kernel.results {
            let obligation = &outcome.obligation;
            let (level, message) = match &outcome.verdict {
                Verdict::Verified | Verdict::NotChecked(_) => continue,
                Verdict::Failed => (
                    Level::Error,
                    with_help(&format!("{} (kernel {})", obligation.message, kernel.name), obligation.help.as_deref()),
                ),
                Verdict::Undecided(reason) => {
                    (Level::Warning, format!("{} (kernel {}): undecided: {reason}", obligation.message, kernel.name))
                }
            };
            let counterexample = outcome.counterexample_text().map(|values| format!("counterexample: {values}"));
            findings.push(Finding {
                span: obligation.span,
                level,
                code: obligation.id.as_str(),
                message,
                related: obligation.related.iter().cloned().collect(),
                counterexample,
            });
        }
    }
    findings
}

/// Everything a verification found: `check`'s diagnostics, then, when the file was verified,
/// [`verification_findings`], or the solver's failure.
pub fn findings(verification: &Verification) -> Vec<Finding> {
    let mut findings = check_findings(&verification.checked);
    match &verification.kernels {
        Some(Ok(kernels)) => findings.extend(verification_findings(kernels)),
        Some(Err(error)) => findings.push(Finding {
            span: error.span,
            level: Level::Error,
            code: Code::SolverFailed.as_str(),
            message: error.message.clone(),
            related: Vec::new(),
            counterexample: None,
        }),
        None => {}
    }
    findings
}

fn with_help(message: &str, help: Option<&str>) -> String {
    match help {
        Some(help) => format!("{message}\nhelp: {help}"),
        None => message.to_string(),
    }
}

/// What the construct at `offset` stands for, as Markdown: the steps of `lockstep explain` about
/// it, each obligation with its verdict when the kernels were verified, and the span it covers.
pub fn hover(file: &SourceFile, explained: &[Explained], offset: usize) -> Option<(Span, String)> {
    explained.iter().find_map(|kernel| {
        let verdicts = kernel.verdicts.as_deref();
        let (span, steps) = kernel.explanation.at(file, offset, verdicts)?;
        let state = if verdicts.is_some() { "with the verdicts of `lockstep verify`" } else { "not verified yet" };
        let text = format!(
            "**kernel `{}`**: what lockstep proves here ({state})\n\n```text\n{steps}```\n",
            kernel.explanation.kernel
        );
        Some((span, text))
    })
}

/// Where the array, variable or function named at `offset` is declared. Names are looked up
/// from the inside out, as the languages scope them: a pure function's parameters, then the
/// kernel's variables and arrays (of several of one name, in sibling blocks, the last declared
/// before `offset`), then the functions.
pub fn definition(file: &SourceFile, program: &Program, offset: usize) -> Option<Span> {
    let name = word_at(&file.text, offset)?;
    let inside = |span: Span| span.start <= offset && offset <= span.end;
    let closest = |declarations: Vec<Span>| {
        let before = declarations.iter().filter(|span| span.start <= offset).max_by_key(|span| span.start);
        before.or(declarations.first()).copied()
    };
    for function in program.functions.iter().filter(|function| inside(function.span)) {
        let params: Vec<Span> = function.vars.iter().filter(|var| var.name == name).map(|var| var.span).collect();
        if let Some(span) = closest(params) {
            return Some(span);
        }
    }
    for kernel in program.kernels.iter().filter(|kernel| inside(kernel.span)) {
        let vars = kernel.vars.iter().filter(|var| var.name == name).map(|var| var.span);
        let arrays = kernel.arrays.iter().filter(|array| array.name == name).map(|array| array.span);
        if let Some(span) = closest(vars.chain(arrays).collect()) {
            return Some(span);
        }
    }
    program.functions.iter().find(|function| function.name == name).map(|function| function.span)
}

/// The identifier that `offset` is in or just after.
fn word_at(text: &str, offset: usize) -> Option<&str> {
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let start = bytes[..offset].iter().rposition(|&byte| !is_word(byte)).map_or(0, |before| before + 1);
    let end = bytes[offset..].iter().position(|&byte| !is_word(byte)).map_or(bytes.len(), |after| offset + after);
    let word = &text[start..end];
    (!word.is_empty() && !word.as_bytes()[0].is_ascii_digit()).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEMO: &str = include_str!("../../examples/seed/demo.pvl");

    fn checked() -> Checked {
        crate::check_file(SourceFile::new("demo.pvl", DEMO))
    }

    #[test]
    fn a_name_leads_to_its_declaration() {
        let checked = checked();
        let program = checked.program.as_ref().expect("the demo is well formed");
        let use_of_a = DEMO.find("a[tid]:=tid").expect("the write");
        let declared = definition(&checked.file, program, use_of_a + 1).expect("`a` is declared");
        assert_eq!(checked.file.position(declared.start).line, 7);
        assert_eq!(
            definition(&checked.file, program, DEMO.find("b[tid]:=").unwrap())
                .map(|span| checked.file.position(span.start).line),
            Some(8)
        );
        // `tid` is the launch's, declared nowhere.
        assert_eq!(definition(&checked.file, program, use_of_a + 3), None);
    }

    #[test]
    fn words_are_found_from_inside_and_from_just_after() {
        assert_eq!(word_at("x := abc[1];", 6), Some("abc"));
        assert_eq!(word_at("x := abc[1];", 8), Some("abc"));
        assert_eq!(word_at("x := abc[1];", 9), None);
        assert_eq!(word_at("", 0), None);
    }

    #[test]
    fn a_barrier_shows_its_obligations() {
        let checked = checked();
        let program = checked.program.as_ref().expect("well formed");
        let explained =
            crate::explain::kernels(&checked.file, program, None, lockstep_logic::fences::MemoryModel::Seed);
        let barrier = DEMO.find("barrier(global)").expect("the barrier");
        let (span, text) = hover(&checked.file, &explained, barrier + 2).expect("the barrier has obligations");
        assert!(span.start <= barrier && barrier < span.end, "{span:?}");
        assert!(text.contains("barrier.functional") && text.contains("barrier.pre"), "{text}");
        assert!(text.contains("not verified yet"), "{text}");
        // Nothing is proved of a blank line between declarations.
        assert_eq!(hover(&checked.file, &explained, DEMO.find("\n\n").unwrap() + 1), None);
    }
}
