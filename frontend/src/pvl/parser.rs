//! The parser driver: lexes, runs the lalrpop parser with error recovery, and turns every lexical
//! and syntax error into a [`Diagnostic`].
//!
//! A missing `;` is the most common slip, and a plain LR parser only notices it at the next token,
//! often on the next line, and then recovers badly. So when an error of a run is a `;` that the
//! grammar expected where the next token starts a new line (or closes a block), the driver reports
//! "missing `;`" at the end of the previous token, inserts the `;` and parses again. Every other
//! error is left to lalrpop's recovery at the item, kernel-member and statement level, and only the
//! first error of each line is reported (the rest of a line is usually an echo of it).

use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast::{File, TooDeep};
use crate::pvl::grammar::FileParser;
use crate::pvl::lexer::{lex, LexError, Spanned, Token};
use lalrpop_util::{ErrorRecovery, ParseError};
use lockstep_logic::Span;

/// How many missing `;` one run inserts before it reports the rest as they come.
const MAX_INSERTED_SEMICOLONS: usize = 64;

/// Parses a whole file. The tree is returned even when there were errors (with error nodes where
/// text was skipped); it is `None` only when the parser could not recover at all.
pub fn parse(source: &str) -> (Option<File>, Vec<Diagnostic>) {
    let (mut tokens, lex_errors) = lex(source);
    let mut diagnostics: Vec<Diagnostic> =
        lex_errors.iter().map(|error| lex_diagnostic(source, error.error.clone(), error.span)).collect();
    let lex_error_starts: Vec<usize> = lex_errors.iter().map(|error| error.span.start).collect();
    let mut insertions = 0;
    loop {
        let (file, errors) = run_parser(&tokens);
        let errors = first_of_each_line(source, &lex_error_starts, errors);
        let insertion = errors
            .iter()
            .find_map(|error| missing_semicolon(source, &tokens, error))
            .filter(|_| insertions < MAX_INSERTED_SEMICOLONS);
        if let Some(at) = insertion {
            diagnostics.push(missing_semicolon_diagnostic(at));
            tokens.insert(at.index, (at.offset, Token::Semi, at.offset));
            insertions += 1;
            continue;
        }
        diagnostics.extend(errors.iter().map(|error| syntax_diagnostic(source, &tokens, error)));
        diagnostics.sort_by_key(|diagnostic| diagnostic.primary.span.start);
        return (file, diagnostics);
    }
}

type Error = ParseError<usize, Token, TooDeep>;

/// The syntax errors worth reporting, in order: the first on each line. After an error the parser
/// skips ahead and resumes, and what it then says about the rest of the same line is nearly always
/// an echo of the first mistake; a lexical error, whose text the lexer dropped, counts as the first
/// on its line too.
fn first_of_each_line(source: &str, lex_error_starts: &[usize], mut errors: Vec<Error>) -> Vec<Error> {
    errors.sort_by_key(error_start);
    let mut kept_starts: Vec<usize> = lex_error_starts.to_vec();
    let mut kept = Vec::new();
    for error in errors {
        let start = error_start(&error);
        let echoes = kept_starts
            .iter()
            .any(|&earlier| earlier <= start && source.get(earlier..start).is_some_and(|gap| !gap.contains('\n')));
        if !echoes {
            kept_starts.push(start);
            kept.push(error);
        }
    }
    kept
}

fn run_parser(tokens: &[Spanned]) -> (Option<File>, Vec<Error>) {
    let mut recovered: Vec<ErrorRecovery<usize, Token, TooDeep>> = Vec::new();
    let result = FileParser::new().parse(&mut recovered, tokens.iter().cloned().map(Ok::<_, TooDeep>));
    let mut errors: Vec<Error> = recovered.into_iter().map(|recovery| recovery.error).collect();
    match result {
        Ok(file) => (Some(file), errors),
        Err(error) => {
            errors.push(error);
            (None, errors)
        }
    }
}

fn error_start(error: &Error) -> usize {
    match error {
        ParseError::InvalidToken { location } | ParseError::UnrecognizedEof { location, .. } => *location,
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => token.0,
        ParseError::User { error } => error.span.start,
    }
}

/// Where a `;` is missing: the index in the token list to insert it at, and the byte offset.
#[derive(Clone, Copy)]
struct Insertion {
    index: usize,
    offset: usize,
}

fn missing_semicolon(source: &str, tokens: &[Spanned], error: &Error) -> Option<Insertion> {
    let (location, expected, closes_or_ends) = match error {
        ParseError::UnrecognizedToken { token, expected } => (token.0, expected, token.1 == Token::RBrace),
        ParseError::UnrecognizedEof { location, expected } => (*location, expected, true),
        _ => return None,
    };
    if !expected.iter().any(|name| name == "\";\"") {
        return None;
    }
    let index = tokens.partition_point(|token| token.0 < location);
    let previous_end = tokens[..index].last()?.2;
    let on_a_later_line = source.get(previous_end..location).is_some_and(|gap| gap.contains('\n'));
    (closes_or_ends || on_a_later_line).then_some(Insertion { index, offset: previous_end })
}

fn missing_semicolon_diagnostic(at: Insertion) -> Diagnostic {
    Diagnostic::error(Code::MissingSemicolon, "missing `;`", Span::new(at.offset, at.offset), "expected `;` here")
        .with_help("every statement, declaration and contract clause ends with `;`")
}

fn lex_diagnostic(source: &str, error: LexError, span: Span) -> Diagnostic {
    let text = source.get(span.start..span.end).unwrap_or("");
    match error {
        LexError::UnknownCharacter => {
            let shown = text.chars().next().map_or_else(String::new, |c| c.escape_debug().to_string());
            Diagnostic::error(Code::UnknownCharacter, format!("unknown character `{shown}`"), span, "not part of the language")
                .with_help("remove it, or put it inside a comment")
        }
        LexError::UnterminatedComment => Diagnostic::error(
            Code::UnterminatedComment,
            "unterminated block comment",
            Span::new(span.start, span.start + 2),
            "this comment is never closed",
        )
        .with_help("close the comment with `*/`"),
        LexError::NumberTooLong => Diagnostic::error(
            Code::NumberTooLong,
            "number literal too long",
            Span::new(span.start, span.start + 1),
            format!("more than {} digits", crate::pvl::lexer::MAX_DIGITS),
        )
        .with_help("integers are unbounded, but a literal this long is surely a mistake"),
        LexError::UnknownBackslashWord => {
            Diagnostic::error(Code::UnknownBackslashWord, format!("unknown keyword `{text}`"), span, "not a keyword")
                .with_help("the keywords that start with `\\` are `\\forall`, `\\forall*`, `\\exists`, `\\old` and `\\result`; for a fraction write `1 \\ 2`")
        }
    }
}

fn syntax_diagnostic(source: &str, tokens: &[Spanned], error: &Error) -> Diagnostic {
    match error {
        ParseError::UnrecognizedToken { token: (start, token, end), expected } => {
            let span = Span::new(*start, *end);
            let diagnostic = Diagnostic::error(
                Code::UnexpectedToken,
                format!("unexpected {}", token.describe()),
                span,
                format!("expected {}", describe_expected(expected)),
            );
            match syntax_help(tokens, *start, token, expected) {
                Some(help) => diagnostic.with_help(help),
                None => diagnostic,
            }
        }
        ParseError::ExtraToken { token: (start, token, end) } => Diagnostic::error(
            Code::UnexpectedToken,
            format!("unexpected {}", token.describe()),
            Span::new(*start, *end),
            "nothing may follow here",
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            let end = source.len();
            let span = Span::new(*location.min(&end), end);
            match unclosed_brace(tokens) {
                Some(open) if expected.iter().any(|name| name == "\"}\"") => {
                    Diagnostic::error(Code::UnexpectedEnd, "unexpected end of file", span, "expected `}`")
                        .with_secondary(open, "this `{` is never closed")
                        .with_help("add the missing `}`")
                }
                _ => Diagnostic::error(
                    Code::UnexpectedEnd,
                    "unexpected end of file",
                    span,
                    format!("expected {}", describe_expected(expected)),
                ),
            }
        }
        // The lexer hands the parser only good tokens, so this does not happen; were it to, it is
        // reported like any bad character rather than trusted away.
        ParseError::InvalidToken { location } => Diagnostic::error(
            Code::UnknownCharacter,
            "invalid token",
            Span::new(*location, *location),
            "not part of the language",
        ),
        // The start of the construct is enough: its whole span may be the rest of the file.
        ParseError::User { error } => Diagnostic::error(
            Code::NestingTooDeep,
            "nested too deeply",
            Span::new(error.span.start, error.span.start + 1),
            format!("more than {} levels of nesting", crate::pvl::ast::MAX_DEPTH),
        )
        .with_help("split the expression or statement, for example with a pure function or a private variable"),
    }
}

/// A help line for the slips that users of C, OpenCL and other verifiers make.
fn syntax_help(tokens: &[Spanned], start: usize, token: &Token, expected: &[String]) -> Option<String> {
    let expects = |name: &str| expected.iter().any(|expected| expected == name);
    let expects_only = |names: &[&str]| expected.iter().all(|name| names.contains(&name.as_str()));
    let index = tokens.partition_point(|token| token.0 < start);
    let previous = index.checked_sub(1).map(|previous| &tokens[previous].1);
    let help = match token {
        _ if expects_only(&["\"while\"", "\"invariant\""]) => "loop invariants stand right before their `while`",
        _ if expects_only(&["\"[\""]) && matches!(previous, Some(Token::Int | Token::Bool)) => {
            "the size comes after the element type: `global int[gsize] a;`"
        }
        _ if expects_only(&["\"(\""]) && matches!(previous, Some(Token::If | Token::While)) => {
            "conditions are written in parentheses: `if (c) ...`, `while (c) ...`"
        }
        Token::Comma if matches!(previous, Some(Token::Local | Token::Global)) => {
            "several fences go in braces: `barrier({local, global})`"
        }
        Token::Lt | Token::Le | Token::Gt | Token::Ge => "comparisons do not chain: write `0 <= n && n < 3`",
        Token::Forall | Token::ForallStar | Token::Exists => {
            "put the quantifier in parentheses: `(\\forall int i; 0 <= i && i < n; ...)`"
        }
        Token::Ident(name) if name.starts_with("CLK_") => "write the fences as `local`, `global` or `{local, global}`",
        keyword if expects("Identifier") && keyword.spelling().chars().all(|c| c.is_ascii_alphabetic() || c == '_') => {
            return Some(format!("`{}` is a keyword and cannot name anything", keyword.spelling()));
        }
        _ => return None,
    };
    Some(help.to_string())
}

/// The innermost `{` that is never closed.
fn unclosed_brace(tokens: &[Spanned]) -> Option<Span> {
    let mut open = Vec::new();
    for (start, token, end) in tokens {
        match token {
            Token::LBrace => open.push(Span::new(*start, *end)),
            Token::RBrace => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

const OPERATORS: &[&str] = &[
    "\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"%\"", "\"mod\"", "\"\\\\\"", "\"==\"", "\"=\"", "\"!=\"", "\"<\"", "\"<=\"",
    "\">\"", "\">=\"", "\"&&\"", "\"||\"", "\"->\"", "\"?\"", "\"**\"", "SepStar",
];

/// Turns lalrpop's list of expected terminals into words: `;`, `)`, an operator, an expression.
fn describe_expected(expected: &[String]) -> String {
    let operators = expected.iter().filter(|name| OPERATORS.contains(&name.as_str())).count();
    let starts_expression =
        expected.iter().any(|name| name == "Identifier") && expected.iter().any(|name| name == "Number");
    let mut words: Vec<String> = Vec::new();
    for name in expected {
        if operators >= 3 && OPERATORS.contains(&name.as_str()) {
            continue;
        }
        let word = match name.as_str() {
            "Identifier" if starts_expression => "an expression".to_string(),
            "Identifier" => "a name".to_string(),
            "Number" => "a number".to_string(),
            "SepStar" => "`*`".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"').replace("\\\\", "\\")),
        };
        if starts_expression && is_expression_start(name) && word != "an expression" {
            continue;
        }
        if !words.contains(&word) {
            words.push(word);
        }
    }
    if operators >= 3 {
        words.push("an operator".to_string());
    }
    match words.len() {
        0 => "nothing more".to_string(),
        1 => words.remove(0),
        n if n > 7 => format!("one of {}, ...", words[..6].join(", ")),
        _ => {
            let last = words.pop().unwrap_or_default();
            format!("{} or {last}", words.join(", "))
        }
    }
}

fn is_expression_start(name: &str) -> bool {
    matches!(
        name,
        "Number"
            | "\"(\""
            | "\"true\""
            | "\"false\""
            | "\"!\""
            | "\"-\""
            | "\"perm\""
            | "\"Perm\""
            | "\"read\""
            | "\"write\""
            | "\"\\\\old\""
            | "\"\\\\sum\""
            | "\"\\\\result\""
            | "\"\\\\forall\""
            | "\"\\\\forall*\""
            | "\"\\\\exists\""
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(source: &str) -> Vec<(Code, usize)> {
        parse(source).1.iter().map(|diagnostic| (diagnostic.code, diagnostic.primary.span.start)).collect()
    }

    #[test]
    fn the_seed_demo_parses() {
        let source = include_str!("../../../examples/seed/demo.pvl");
        let (file, diagnostics) = parse(source);
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        assert_eq!(file.unwrap().items.len(), 1);
    }

    #[test]
    fn a_missing_semicolon_is_inserted_and_parsing_goes_on() {
        let source = "kernel k { void main() { int x := 1\n x := 2;\n x := ; } }";
        assert_eq!(codes(source), [(Code::MissingSemicolon, 35), (Code::UnexpectedToken, 51)]);
    }

    #[test]
    fn every_broken_statement_is_reported() {
        let source = "kernel k { void main() {\n int x := );\n x := 1 1;\n x := (;\n } }";
        let found = codes(source);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.iter().all(|(code, _)| *code == Code::UnexpectedToken));
    }
}
