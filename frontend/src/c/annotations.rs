//! VerCors's annotations in an OpenCL C or CUDA file: the `/*@ ... @*/` and `//@ ...` comments,
//! found in the text (Clang drops comments) and read by lockstep's own parser ([`lexer`] and the
//! `Annotation` rule of the grammar), with offsets into the file. [`crate::c::tree`] places each
//! before the kernel, function, loop, barrier or statement that follows it.
//!
//! - Consecutive `//@` lines are one annotation, as in VerCors.
//! - The macros an annotation uses are expanded by Clang's preprocessor, at the annotation's
//!   place in the file (so a `#define` after it does not apply, as in C): each use of a name, or
//!   of a name and the parenthesised arguments after it, is written out for `clang -E` between
//!   markers, and where Clang's text differs from the written one, the use is the macro's
//!   expansion, with the span of the use.
//! - `/*@ pure @*/` before a function is dropped, as lockstep inlines functions and so reads what
//!   they do; VerCors's ghost arguments (`/*@ given ... @*/`) are left out with
//!   `warning::left-out`, neither assumed nor checked.

use crate::c::ast::{self, TooDeep};
use crate::c::clang;
use crate::c::grammar::AnnotationParser;
use crate::c::lexer::{self, Spanned, Token};
use crate::c::Dialect;
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax;
use lockstep_logic::Span;

/// An annotation and the span of its comment.
#[derive(Clone, Debug)]
pub struct Found {
    pub span: Span,
    pub annotation: ast::Annotation,
}

/// The comments of the text that are annotations, as spans of the whole comment, in order.
pub fn comments(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut found: Vec<Span> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match (bytes[at], bytes.get(at + 1), bytes.get(at + 2)) {
            (b'"' | b'\'', ..) => {
                let quote = bytes[at];
                at += 1;
                while at < bytes.len() && bytes[at] != quote && bytes[at] != b'\n' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
            }
            (b'/', Some(b'*'), next) => {
                let end = text[at + 2..].find("*/").map_or(bytes.len(), |end| at + 2 + end + 2);
                if next == Some(&b'@') {
                    found.push(Span::new(at, end));
                }
                at = end;
            }
            (b'/', Some(b'/'), next) => {
                let end = text[at..].find('\n').map_or(bytes.len(), |end| at + end);
                if next == Some(&b'@') {
                    // A `//@` line right after another is the same annotation.
                    let joined = found
                        .last_mut()
                        .filter(|last| text[last.start..].starts_with("//@") && text[last.end..at].trim().is_empty());
                    match joined {
                        Some(last) => last.end = end,
                        None => found.push(Span::new(at, end)),
                    }
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    found
}

/// The annotations of a file, lexed, with the uses of names that may be macros, before Clang has
/// expanded them ([`Lexed::parse`]).
pub struct Lexed {
    annotations: Vec<(Span, Vec<Spanned>)>,
    uses: Vec<Use>,
    diagnostics: Vec<Diagnostic>,
}

/// The annotations of the text, lexed, with the problems found lexing them.
pub fn lex(text: &str, dialect: Dialect) -> Lexed {
    let mut diagnostics = Vec::new();
    let mut annotations: Vec<(Span, Vec<Spanned>)> = Vec::new();
    for span in comments(text) {
        let (tokens, errors) = tokens_of(text, span, dialect);
        for error in errors {
            diagnostics.push(match error.error {
                lexer::LexError::UnknownCharacter => syntax::unknown_character(text, error.span),
                lexer::LexError::UnterminatedComment => syntax::unterminated_comment(error.span),
                lexer::LexError::NumberTooLong => syntax::number_too_long(error.span),
            });
        }
        match words(&tokens).as_slice() {
            ["pure"] => {}
            ["given" | "yields", ..] => diagnostics.push(
                Diagnostic::warning(Code::LeftOut, "VerCors's ghost arguments are left out", span, "neither assumed nor checked")
                    .with_help("lockstep's built-in functions take no ghost parameters, and it inlines helper functions, so their specifications need none"),
            ),
            _ => annotations.push((span, tokens)),
        }
    }
    let uses = macro_uses(&annotations);
    Lexed { annotations, uses, diagnostics }
}

impl Lexed {
    /// The text to read after the file in Clang's run of its syntax tree, whose `#pragma
    /// message`s expand the macros the annotations use; `None` when no annotation uses a name,
    /// or when the macros at the end of the file may not be those at an annotation's place (a
    /// directive after the first annotation), or the uses hold quotes: [`Lexed::parse`] then
    /// expands them with a run of Clang's preprocessor of their own.
    pub fn macro_requests(&self, text: &str) -> Option<String> {
        let first = self.uses.first().map(|found| self.annotations[found.annotation].0.start)?;
        let directive_after = text[first..].match_indices('#').any(|(at, _)| {
            let rest = text[first + at + 1..].trim_start();
            let pragma = rest.strip_prefix("pragma").map(str::trim_start);
            pragma.is_none_or(|pragma| pragma.starts_with("push_macro") || pragma.starts_with("pop_macro"))
        });
        let requests: Vec<String> = (0..self.uses.len()).map(|number| self.request(text, number)).collect();
        if directive_after
            || text[first..].contains("_Pragma")
            || requests.iter().any(|request| request.contains(['"', '\'']))
        {
            return None;
        }
        let mut appended = format!(
            "#define {MARKER}string(...) #__VA_ARGS__\n#define {MARKER}expanded(...) {MARKER}string(__VA_ARGS__)\n"
        );
        for request in requests {
            // A backslash is no token of C: in a name (`\gtid`) or a number (`1\2`) it stays.
            let request = request.replace('\\', BACKSLASH);
            appended.push_str(&format!("#pragma message({MARKER}expanded({request}))\n"));
        }
        Some(appended)
    }

    /// The annotations parsed, their macros expanded: from `messages`, the `#pragma message`s of
    /// [`Lexed::macro_requests`] in Clang's run of the syntax tree, or else by a run of Clang's
    /// preprocessor.
    pub fn parse(
        mut self,
        text: &str,
        dialect: Dialect,
        options: &clang::Options,
        messages: Option<Vec<String>>,
    ) -> (Vec<Found>, Vec<Diagnostic>) {
        let mut diagnostics = std::mem::take(&mut self.diagnostics);
        if !self.uses.is_empty() {
            let from_messages = messages.map(|messages| messages.join("\n").replace(BACKSLASH, "\\"));
            let expanded = match from_messages.filter(|expanded| self.all_answered(expanded)) {
                Some(expanded) => Ok(expanded),
                None => clang::preprocessed(&self.preprocessor_text(text), dialect, options),
            };
            match expanded {
                Ok(expanded) => self.expand(text, dialect, &expanded),
                Err(diagnostic) => diagnostics.push(diagnostic),
            }
        }
        let annotations = self.annotations;
        let mut found = Vec::new();
        let semicolons = syntax::Semicolons {
            semicolon: Token::Semi,
            closes_block: |token: &Token| *token == Token::AnnotationClose,
        };
        for (span, tokens) in annotations {
            let (annotation, tokens, errors) =
                syntax::parse_inserting_semicolons(text, tokens, &[], &semicolons, parse, &mut diagnostics);
            diagnostics.extend(errors.iter().map(|error| {
                let unclosed = None;
                syntax::diagnostic(text, error, &TERMINALS, Token::describe, |_, _, _| None, unclosed)
            }));
            drop(tokens);
            if let Some(annotation) = annotation {
                found.push(Found { span, annotation });
            }
        }
        (found, diagnostics)
    }

    /// Whether Clang's text answers every use's request.
    fn all_answered(&self, expanded: &str) -> bool {
        (0..self.uses.len()).all(|number| {
            expanded.contains(&format!("{MARKER}{number}_a ")) && expanded.contains(&format!("{MARKER}{number}_b"))
        })
    }

    /// The request of a use: its name, and its name with its arguments, between markers.
    fn request(&self, text: &str, number: usize) -> String {
        let found = &self.uses[number];
        let tokens = &self.annotations[found.annotation].1;
        let name = &text[tokens[found.first].0..tokens[found.first].2];
        let mut request = format!("{MARKER}{number}_a {name} {MARKER}{number}_b");
        if let Some(end) = found.call_end {
            request.push_str(&format!(" {} {MARKER}{number}_c", &text[tokens[found.first].0..tokens[end - 1].2]));
        }
        request
    }

    /// The text for `clang -E`: the file's, with each annotation replaced by the requests of its
    /// uses, a line each, at its place.
    fn preprocessor_text(&self, text: &str) -> String {
        let mut requests = String::new();
        let mut written = 0;
        for (index, (span, _)) in self.annotations.iter().enumerate() {
            requests.push_str(&text[written..span.start]);
            requests.push('\n');
            for number in (0..self.uses.len()).filter(|number| self.uses[*number].annotation == index) {
                requests.push_str(&self.request(text, number));
                requests.push('\n');
            }
            written = span.end;
        }
        requests.push_str(&text[written..]);
        requests
    }

    /// Replaces each use that Clang's text `expanded` expands by its expansion, with the span
    /// of the use. A use inside the arguments of an expanded call is part of the call's expansion.
    fn expand(&mut self, text: &str, dialect: Dialect, expanded: &str) {
        let mut replacements: Vec<(usize, usize, usize, String)> = Vec::new();
        for (number, found) in self.uses.iter().enumerate() {
            let inside_call = replacements
                .last()
                .is_some_and(|(annotation, _, end, _)| *annotation == found.annotation && found.first < *end);
            if inside_call {
                continue;
            }
            let between = |from: &str, to: &str| -> Option<String> {
                let start =
                    expanded.find(&format!("{MARKER}{number}_{from} "))? + MARKER.len() + number.to_string().len() + 3;
                let end = expanded[start..].find(&format!("{MARKER}{number}_{to}"))? + start;
                Some(expanded[start..end].split_whitespace().collect::<Vec<_>>().join(" "))
            };
            let tokens = &self.annotations[found.annotation].1;
            let written_text = |from: usize, to: usize| {
                text[tokens[from].0..tokens[to - 1].2].split_whitespace().collect::<Vec<_>>().join(" ")
            };
            let replacement =
                match (between("a", "b"), found.call_end.and_then(|end| between("b", "c").map(|call| (end, call)))) {
                    (Some(name), _) if name != written_text(found.first, found.first + 1) => (found.first + 1, name),
                    (_, Some((end, call))) if !same_tokens(&call, &written_text(found.first, end), dialect) => {
                        (end, call)
                    }
                    _ => continue,
                };
            replacements.push((found.annotation, found.first, replacement.0, replacement.1));
        }
        // Replaced from the last use back, so that earlier uses keep their token indices.
        for (annotation, first, end, replacement) in replacements.into_iter().rev() {
            let tokens = &mut self.annotations[annotation].1;
            let span = Span::new(tokens[first].0, tokens[end - 1].2);
            let (expansion, _) = lexer::lex(&format!("/*@ {replacement} @*/"), dialect);
            let expansion = expansion
                .into_iter()
                .filter(|(_, token, _)| !matches!(token, Token::AnnotationOpen | Token::AnnotationClose))
                .map(|(_, token, _)| (span.start, token, span.end));
            tokens.splice(first..end, expansion);
        }
    }
}

fn parse(tokens: &[Spanned]) -> syntax::Parsed<Token, ast::Annotation> {
    let mut recovered = Vec::new();
    let result = AnnotationParser::new().parse(&mut recovered, tokens.iter().cloned().map(Ok::<_, TooDeep>));
    syntax::parsed(result, recovered)
}

/// The words of an annotation before its first symbol: `["pure"]` for `/*@ pure @*/`.
fn words(tokens: &[Spanned]) -> Vec<&str> {
    tokens
        .iter()
        .filter(|(_, token, _)| !matches!(token, Token::AnnotationOpen | Token::AnnotationClose))
        .map(|(_, token, _)| match token {
            Token::Ident(word) => word.as_str(),
            _ => "",
        })
        .collect()
}

/// The tokens of the annotation at `span`, with offsets into the file.
fn tokens_of(text: &str, span: Span, dialect: Dialect) -> (Vec<Spanned>, Vec<lexer::LexDiagnostic>) {
    let (tokens, errors) = lexer::lex(&text[span.start..span.end], dialect);
    let shift = |(start, token, end): Spanned| (start + span.start, token, end + span.start);
    // Consecutive `//@` lines are one annotation: the delimiters between them go.
    let last = tokens.len().saturating_sub(1);
    let tokens = tokens
        .into_iter()
        .enumerate()
        .filter(|(index, (_, token, _))| {
            let delimiter = matches!(token, Token::AnnotationOpen | Token::AnnotationClose);
            !delimiter || *index == 0 || *index == last
        })
        .map(|(_, spanned)| shift(spanned))
        .collect();
    let errors = errors
        .into_iter()
        .map(|error| lexer::LexDiagnostic {
            span: Span::new(error.span.start + span.start, error.span.end + span.start),
            ..error
        })
        .collect();
    (tokens, errors)
}

/// A use of a name in an annotation that may be a macro's: where its tokens are, and the text
/// of the name alone and of the name with its arguments.
struct Use {
    annotation: usize,
    first: usize,
    /// One past the `)` of the arguments, when a `(` follows the name.
    call_end: Option<usize>,
}

const MARKER: &str = "__lockstep_macro_use_";

/// Stands for a backslash in the text of a `#pragma message` request ([`Lexed::macro_requests`]).
const BACKSLASH: &str = "__lockstep_backslash_";

/// Every use in the annotations of a name, which may be a macro's.
fn macro_uses(annotations: &[(Span, Vec<Spanned>)]) -> Vec<Use> {
    let mut uses = Vec::new();
    for (index, (_, tokens)) in annotations.iter().enumerate() {
        for (first, (_, token, _)) in tokens.iter().enumerate() {
            if matches!(token, Token::Ident(_)) {
                let call_end = (tokens.get(first + 1).map(|(_, token, _)| token) == Some(&Token::LParen))
                    .then(|| closing_paren(tokens, first + 1))
                    .flatten();
                uses.push(Use { annotation: index, first, call_end });
            }
        }
    }
    uses
}

/// Whether two texts are the same tokens (Clang's preprocessor spaces them its own way).
fn same_tokens(a: &str, b: &str, dialect: Dialect) -> bool {
    let kinds = |text: &str| lexer::lex(text, dialect).0.into_iter().map(|(_, token, _)| token).collect::<Vec<_>>();
    kinds(a) == kinds(b)
}

/// One past the `)` that closes the `(` at `open`.
fn closing_paren(tokens: &[Spanned], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (index, (_, token, _)) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(index + 1);
                }
            }
            Token::AnnotationClose => return None,
            _ => {}
        }
    }
    None
}

const TERMINALS: syntax::Terminals = syntax::Terminals {
    operators: &[
        "\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"%\"", "\"\\\\\"", "\"==\"", "\"=\"", "\"!=\"", "\"<\"", "\"<=\"",
        "\">\"", "\">=\"", "\"&&\"", "\"||\"", "\"==>\"", "\"?\"", "\"**\"", "\"&\"", "\"|\"", "\"^\"", "\"<<\"",
        "\">>\"", "\"[\"", "\".\"", "\"->\"", "\",\"",
    ],
    expression_starts: &[
        "\"(\"",
        "\"true\"",
        "\"false\"",
        "\"!\"",
        "\"-\"",
        "\"+\"",
        "\"~\"",
        "\"*\"",
        "\"&\"",
        "\"sizeof\"",
        "\"Perm\"",
        "\"read\"",
        "\"write\"",
        "\"\\\\old\"",
        "\"\\\\result\"",
        "\"\\\\gtid\"",
        "\"\\\\ltid\"",
        "BackslashWord",
        "FloatNumber",
        "CharNumber",
    ],
};
