//! Diagnostics: what the user is told about an input, rendered by miette or as JSON.
//!
//! Every diagnostic has a stable [`Code`] (part of the user interface: tests, scripts and the
//! README refer to it), a message, a primary labelled span, optional secondary labels for the
//! other places involved, and a help line where a fix is known.

use crate::source::{Position, SourceFile};
use lockstep_logic::Span;
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan,
    SpanContents,
};
use std::fmt;

macro_rules! codes {
    ($($variant:ident => $text:literal: $doc:literal,)*) => {
        /// The stable code of every diagnostic the frontend gives.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $(#[doc = $doc] $variant,)*
        }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }

            /// What the code is about, in a phrase (the rule's description in SARIF output).
            pub fn description(self) -> &'static str {
                match self {
                    $(Code::$variant => $doc,)*
                }
            }
        }
    };
}

codes! {
    InvalidUtf8 => "source::invalid-utf8": "the file is not valid UTF-8 text",
    Unreadable => "source::unreadable": "the file cannot be read",
    EmptyFile => "source::no-kernel": "the file declares no kernel",
    UnknownCharacter => "lex::unknown-character": "a character that is not part of the language",
    UnterminatedComment => "lex::unterminated-comment": "a `/*` comment without its `*/`",
    UnknownBackslashWord => "lex::unknown-keyword": "a `\\` word that is not a keyword (`\\forall`, `\\old`, ...)",
    NumberTooLong => "lex::number-too-long": "a number literal of more than 1000 digits",
    NoClang => "c::no-clang": "an OpenCL C or CUDA file, which Clang reads, where Clang is not installed",
    Clang => "c::clang-error": "an error Clang finds in an OpenCL C or CUDA file",
    MissingSemicolon => "syntax::missing-semicolon": "a statement or clause not ended by `;`",
    UnexpectedToken => "syntax::unexpected-token": "a token where the grammar does not allow it",
    UnexpectedEnd => "syntax::unexpected-end": "the file ends in the middle of a construct",
    NestingTooDeep => "syntax::nesting-too-deep": "expressions or statements nested too deeply",
    StrayClause => "syntax::stray-clause": "a `requires`/`ensures` between statements",
    UnknownName => "resolve::unknown-name": "a name that is not declared",
    UnknownArray => "resolve::unknown-array": "an indexed name that is not a declared array",
    UnknownFunction => "resolve::unknown-function": "a call of a function that is not declared",
    DuplicateName => "resolve::duplicate-name": "a name declared twice in one scope",
    ReservedName => "resolve::reserved-name": "a declaration or assignment of `tid`, `gid`, `lid`, `tcount` or `gsize`",
    AssignToParameter => "resolve::assign-to-parameter": "an assignment to a kernel parameter",
    OutOfScope => "resolve::out-of-scope": "a name used at a level where it has no meaning",
    TypeMismatch => "type::mismatch": "an expression of the wrong type",
    ResourceInExpression => "type::resource-in-expression": "a permission where a value is needed",
    NotAnArray => "type::not-an-array": "an array access on something that is not an array",
    ArrayAsValue => "type::array-as-value": "an array used as a value without an index",
    ArgumentCount => "type::argument-count": "a call with the wrong number of arguments",
    PermissionLocation => "type::permission-location": "a permission on something other than an array element",
    PermissionAmount => "type::permission-amount": "a permission amount that is not a constant in (0, 1], `read` or `write`",
    MisplacedOld => "type::misplaced-old": "`\\old` outside a postcondition",
    SumRange => "type::sum-range": "a `\\sum` range that does not bound its variable from below and above",
    MisplacedResult => "type::misplaced-result": "`\\result` outside a pure function's postcondition",
    MemoryInFunction => "type::memory-in-function": "a pure function that reads memory",
    MissingMain => "kernel::missing-main": "a kernel without `void main()`",
    DuplicateMain => "kernel::duplicate-main": "a kernel with more than one body",
    MainSignature => "kernel::main-signature": "a kernel body that is not `void main()`",
    UnknownFence => "kernel::unknown-fence": "a barrier fence other than `local` and `global`",
    AmbiguousBarrier => "kernel::ambiguous-barrier": "`barrier(N)`: a label without fences",
    DuplicateLabel => "kernel::duplicate-barrier-label": "two barriers with the same label",
    DuplicateDecreases => "resolve::duplicate-decreases": "a pure function with more than one `decreases` clause",
    Unsupported => "kernel::unsupported": "a construct the language does not support",
    UncheckedAssume => "warning::unchecked-assume": "an `assume`, which lockstep takes on trust",
    Vacuous => "warning::vacuous": "assumptions no state satisfies, after which everything holds vacuously",
    LeftOut => "warning::left-out": "a proof hint (GPUVerify's, or VerCors's ghost arguments) that lockstep leaves out: neither assumed nor checked",
    UnstatedClaim => "warning::unstated-claim": "a claim over GPUVerify's pair of threads, which lockstep, checking one thread at a time, cannot state: reported undecided",
    VariableFlags => "warning::variable-flags": "a barrier flag that is a variable, taken to fence no memory",
    KernelArgs => "launch::kernel-args": "`--kernel-args` that do not fit the file's kernels",
    SolverFailed => "verify::solver-failed": "a kernel the solver could not be run on (it crashed, or gave an answer that cannot be read)",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            primary: Label { span, message: label.into() },
            secondary: Vec::new(),
            help: None,
        }
    }

    pub fn warning(code: Code, message: impl Into<String>, span: Span, label: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, message, span, label) }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label { span, message: message.into() });
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic as the command line shows it, without colours.
    pub fn render(&self, file: &SourceFile) -> String {
        self.render_with(file, false)
    }

    /// Renders the diagnostic, with colours if asked for.
    pub fn render_with(&self, file: &SourceFile, color: bool) -> String {
        // miette cannot draw a label that starts past column 65535 (Rust's format width limit), so
        // far out on a very long line the snippet gives way to a plain position.
        let too_far = std::iter::once(&self.primary)
            .chain(&self.secondary)
            .any(|label| file.position(label.span.end).column > MAX_SNIPPET_COLUMN);
        let source = (!too_far).then_some(file);
        let report = Rendered { diagnostic: self, source };
        let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
        let mut out = String::new();
        handler.render_report(&mut out, &report).expect("rendering into a String cannot fail");
        if too_far {
            let Position { line, column } = file.position(self.primary.span.start);
            out.push_str(&format!("  at {}:{line}:{column}: {}\n", file.path, self.primary.message));
        }
        out
    }

    /// The diagnostic as JSON, with positions as a user counts them.
    pub fn to_json(&self, file: &SourceFile) -> serde_json::Value {
        let start = file.position(self.primary.span.start);
        let end = file.position(self.primary.span.end);
        let label_json = |label: &Label| {
            let Position { line, column } = file.position(label.span.start);
            serde_json::json!({ "line": line, "column": column, "message": label.message })
        };
        serde_json::json!({
            "code": self.code.as_str(),
            "severity": self.severity,
            "line": start.line,
            "column": start.column,
            "end_line": end.line,
            "end_column": end.column,
            "message": self.message,
            "label": self.primary.message,
            "secondary": self.secondary.iter().map(label_json).collect::<Vec<_>>(),
            "help": self.help,
        })
    }
}

/// A diagnostic together with its source, in the shape miette renders.
struct Rendered<'a> {
    diagnostic: &'a Diagnostic,
    source: Option<&'a SourceFile>,
}

/// miette reads snippets through this. Lines and columns are the file's own (columns in
/// characters, lines ended by `\n`, `\r\n` or `\r`), so that the header of a rendered diagnostic
/// says what the JSON says; miette's own would count bytes.
impl SourceCode for SourceFile {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let contents = self.text.as_str().read_span(span, context_lines_before, context_lines_after)?;
        let start = self.position(contents.span().offset());
        Ok(Box::new(MietteSpanContents::new_named(
            self.path.clone(),
            contents.data(),
            *contents.span(),
            start.line - 1,
            start.column - 1,
            contents.line_count(),
        )))
    }
}

/// The last column at which a label is drawn in a source snippet.
const MAX_SNIPPET_COLUMN: usize = 4096;

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diagnostic, f)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for Rendered<'_> {}

fn source_span(span: Span) -> SourceSpan {
    SourceSpan::from(span.start..span.end)
}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.diagnostic.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diagnostic.help.as_ref().map(|help| Box::new(help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.map(|source| source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let primary = &self.diagnostic.primary;
        let primary = LabeledSpan::new_primary_with_span(Some(primary.message.clone()), source_span(primary.span));
        let secondary = self
            .diagnostic
            .secondary
            .iter()
            .map(|label| LabeledSpan::new_with_span(Some(label.message.clone()), source_span(label.span)));
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}
