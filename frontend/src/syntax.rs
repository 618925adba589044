//! What the parsers of every source language share about syntax errors: which of lalrpop's errors
//! are worth reporting, and how an error and its expected tokens are put into words.
//!
//! The token types differ by language, so the functions here are generic over the token, and
//! take what they must know about it (its description, the operator and expression-start
//! terminals of the grammar) as arguments.

use crate::diagnostics::{Code, Diagnostic};
use lalrpop_util::ParseError;
use lockstep_logic::Span;

pub use crate::pvl::ast::TooDeep;

/// lalrpop's error, over a language's tokens.
pub type Error<T> = ParseError<usize, T, TooDeep>;

/// A token with its byte range, in the shape lalrpop's external lexers use.
pub type Spanned<T> = (usize, T, usize);

/// What a parser run gives: the tree, if it recovered, and the errors.
pub type Parsed<T, Tree> = (Option<Tree>, Vec<Error<T>>);

/// How a grammar names its terminals in lalrpop's lists of expected tokens.
pub struct Terminals {
    /// The binary operators: a list with many is summed up as "an operator".
    pub operators: &'static [&'static str],
    /// The terminals that may start an expression besides identifiers and numbers.
    pub expression_starts: &'static [&'static str],
}

/// How many missing `;` one run inserts before it reports the rest as they come.
const MAX_INSERTED_SEMICOLONS: usize = 64;

/// What the `;` insertion needs to know of a language's tokens.
pub struct Semicolons<T, F: Fn(&T) -> bool> {
    pub semicolon: T,
    /// Whether a token closes a block (`}`), before which a missing `;` is inserted too.
    pub closes_block: F,
}

/// Runs a parser over the tokens, inserting a missing `;` and running it again where that is the
/// mistake. A missing `;` is the most common slip, and a plain LR parser only notices it at the
/// next token, often on the next line, and then recovers badly. So when an error of a run is a
/// `;` that the grammar expected where the next token starts a new line (or closes a block), a
/// "missing `;`" diagnostic is added at the end of the previous token, the `;` inserted, and the
/// parser run again. Returns the tree, the tokens (with the insertions), and the remaining
/// errors, the first of each line.
pub fn parse_inserting_semicolons<T: Clone, F: Fn(&T) -> bool, Tree>(
    source: &str,
    mut tokens: Vec<Spanned<T>>,
    lex_error_starts: &[usize],
    semicolons: &Semicolons<T, F>,
    run: impl Fn(&[Spanned<T>]) -> Parsed<T, Tree>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Option<Tree>, Vec<Spanned<T>>, Vec<Error<T>>) {
    let mut insertions = 0;
    loop {
        let (tree, errors) = run(&tokens);
        let errors = first_of_each_line(source, lex_error_starts, errors);
        let insertion = errors
            .iter()
            .find_map(|error| missing_semicolon(source, &tokens, error, &semicolons.closes_block))
            .filter(|_| insertions < MAX_INSERTED_SEMICOLONS);
        let Some((index, offset)) = insertion else { return (tree, tokens, errors) };
        diagnostics.push(
            Diagnostic::error(Code::MissingSemicolon, "missing `;`", Span::new(offset, offset), "expected `;` here")
                .with_help("every statement, declaration and contract clause ends with `;`"),
        );
        tokens.insert(index, (offset, semicolons.semicolon.clone(), offset));
        insertions += 1;
    }
}

/// Where a `;` is missing: the index in the token list to insert it at, and the byte offset.
fn missing_semicolon<T>(
    source: &str,
    tokens: &[Spanned<T>],
    error: &Error<T>,
    closes_block: impl Fn(&T) -> bool,
) -> Option<(usize, usize)> {
    let (location, expected, closes_or_ends) = match error {
        ParseError::UnrecognizedToken { token, expected } => (token.0, expected, closes_block(&token.1)),
        ParseError::UnrecognizedEof { location, expected } => (*location, expected, true),
        _ => return None,
    };
    if !expected.iter().any(|name| name == "\";\"") {
        return None;
    }
    let index = tokens.partition_point(|token| token.0 < location);
    let previous_end = tokens[..index].last()?.2;
    let on_a_later_line = source.get(previous_end..location).is_some_and(|gap| gap.contains('\n'));
    (closes_or_ends || on_a_later_line).then_some((index, previous_end))
}

/// What a lalrpop parser with error recovery gave: the tree, if it recovered, and all its errors.
pub fn parsed<T, Tree>(
    result: Result<Tree, Error<T>>,
    recovered: Vec<lalrpop_util::ErrorRecovery<usize, T, TooDeep>>,
) -> Parsed<T, Tree> {
    let mut errors: Vec<Error<T>> = recovered.into_iter().map(|recovery| recovery.error).collect();
    match result {
        Ok(tree) => (Some(tree), errors),
        Err(error) => {
            errors.push(error);
            (None, errors)
        }
    }
}

pub fn error_start<T>(error: &Error<T>) -> usize {
    match error {
        ParseError::InvalidToken { location } | ParseError::UnrecognizedEof { location, .. } => *location,
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => token.0,
        ParseError::User { error } => error.span.start,
    }
}

/// The syntax errors worth reporting, in order: the first on each line. After an error the parser
/// skips ahead and resumes, and what it then says about the rest of the same line is nearly always
/// an echo of the first mistake; a lexical error, whose text the lexer dropped, counts as the first
/// on its line too.
pub fn first_of_each_line<T>(source: &str, lex_error_starts: &[usize], mut errors: Vec<Error<T>>) -> Vec<Error<T>> {
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

/// The diagnostic for a syntax error. `describe` says how a token is written; `help` may add a
/// help line for an unexpected token (given the token and the expected terminals); `unclosed` is
/// the innermost `{` never closed, for an error at the end of the file.
pub fn diagnostic<T>(
    source: &str,
    error: &Error<T>,
    terminals: &Terminals,
    describe: impl Fn(&T) -> String,
    help: impl Fn(usize, &T, &[String]) -> Option<String>,
    unclosed: Option<Span>,
) -> Diagnostic {
    match error {
        ParseError::UnrecognizedToken { token: (start, token, end), expected } => {
            let diagnostic = Diagnostic::error(
                Code::UnexpectedToken,
                format!("unexpected {}", describe(token)),
                Span::new(*start, *end),
                format!("expected {}", describe_expected(expected, terminals)),
            );
            match help(*start, token, expected) {
                Some(help) => diagnostic.with_help(help),
                None => diagnostic,
            }
        }
        ParseError::ExtraToken { token: (start, token, end) } => Diagnostic::error(
            Code::UnexpectedToken,
            format!("unexpected {}", describe(token)),
            Span::new(*start, *end),
            "nothing may follow here",
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            let end = source.len();
            let span = Span::new(*location.min(&end), end);
            match unclosed {
                Some(open) if expected.iter().any(|name| name == "\"}\"") => {
                    Diagnostic::error(Code::UnexpectedEnd, "unexpected end of file", span, "expected `}`")
                        .with_secondary(open, "this `{` is never closed")
                        .with_help("add the missing `}`")
                }
                _ => Diagnostic::error(
                    Code::UnexpectedEnd,
                    "unexpected end of file",
                    span,
                    format!("expected {}", describe_expected(expected, terminals)),
                ),
            }
        }
        // The lexers hand the parsers only good tokens, so this does not happen; were it to, it is
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

/// The innermost opening token (a `{`) that is never closed.
pub fn unclosed<T>(tokens: &[Spanned<T>], opens: impl Fn(&T) -> bool, closes: impl Fn(&T) -> bool) -> Option<Span> {
    let mut open = Vec::new();
    for (start, token, end) in tokens {
        if opens(token) {
            open.push(Span::new(*start, *end));
        } else if closes(token) {
            open.pop();
        }
    }
    open.pop()
}

/// Turns lalrpop's list of expected terminals into words: `;`, `)`, an operator, an expression.
pub fn describe_expected(expected: &[String], terminals: &Terminals) -> String {
    let is_operator = |name: &str| terminals.operators.contains(&name);
    let operators = expected.iter().filter(|name| is_operator(name)).count();
    let starts_expression =
        expected.iter().any(|name| name == "Identifier") && expected.iter().any(|name| name == "Number");
    let mut words: Vec<String> = Vec::new();
    for name in expected {
        if operators >= 3 && is_operator(name) {
            continue;
        }
        let word = match name.as_str() {
            "Identifier" if starts_expression => "an expression".to_string(),
            "Identifier" => "a name".to_string(),
            "Number" => "a number".to_string(),
            "SepStar" => "`*`".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"').replace("\\\\", "\\")),
        };
        let starts = name == "Number" || terminals.expression_starts.contains(&name.as_str());
        if starts_expression && starts && word != "an expression" {
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

/// The diagnostic for a character no token of the language starts with.
pub fn unknown_character(source: &str, span: Span) -> Diagnostic {
    let text = source.get(span.start..span.end).unwrap_or("");
    let shown = text.chars().next().map_or_else(String::new, |c| c.escape_debug().to_string());
    Diagnostic::error(Code::UnknownCharacter, format!("unknown character `{shown}`"), span, "not part of the language")
        .with_help("remove it, or put it inside a comment")
}

pub fn unterminated_comment(span: Span) -> Diagnostic {
    Diagnostic::error(
        Code::UnterminatedComment,
        "unterminated block comment",
        Span::new(span.start, span.start + 2),
        "this comment is never closed",
    )
    .with_help("close the comment with `*/`")
}

pub fn number_too_long(span: Span) -> Diagnostic {
    Diagnostic::error(
        Code::NumberTooLong,
        "number literal too long",
        Span::new(span.start, span.start + 1),
        format!("more than {} digits", crate::pvl::lexer::MAX_DIGITS),
    )
    .with_help("integers are unbounded, but a literal this long is surely a mistake")
}
