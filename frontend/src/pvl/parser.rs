//! The parser driver: lexes, runs the lalrpop parser with error recovery, and turns every lexical
//! and syntax error into a [`Diagnostic`].
//!
//! A missing `;` is inserted and reported, and the parser run again ([`syntax`]). Every other
//! error is left to lalrpop's recovery at the item, kernel-member and statement level, and only the
//! first error of each line is reported (the rest of a line is usually an echo of it).

use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast::{File, TooDeep};
use crate::pvl::grammar::FileParser;
use crate::pvl::lexer::{lex, LexError, Spanned, Token};
use crate::syntax;
use lockstep_logic::Span;

/// Parses a whole file. The tree is returned even when there were errors (with error nodes where
/// text was skipped); it is `None` only when the parser could not recover at all.
pub fn parse(source: &str) -> (Option<File>, Vec<Diagnostic>) {
    let (tokens, lex_errors) = lex(source);
    let mut diagnostics: Vec<Diagnostic> =
        lex_errors.iter().map(|error| lex_diagnostic(source, error.error.clone(), error.span)).collect();
    let lex_error_starts: Vec<usize> = lex_errors.iter().map(|error| error.span.start).collect();
    let semicolons =
        syntax::Semicolons { semicolon: Token::Semi, closes_block: |token: &Token| *token == Token::RBrace };
    let (file, tokens, errors) = syntax::parse_inserting_semicolons(
        source,
        tokens,
        &lex_error_starts,
        &semicolons,
        run_parser,
        &mut diagnostics,
    );
    diagnostics.extend(errors.iter().map(|error| syntax_diagnostic(source, &tokens, error)));
    diagnostics.sort_by_key(|diagnostic| diagnostic.primary.span.start);
    (file, diagnostics)
}

type Error = syntax::Error<Token>;

fn run_parser(tokens: &[Spanned]) -> syntax::Parsed<Token, File> {
    let mut recovered = Vec::new();
    let result = FileParser::new().parse(&mut recovered, tokens.iter().cloned().map(Ok::<_, TooDeep>));
    syntax::parsed(result, recovered)
}

fn lex_diagnostic(source: &str, error: LexError, span: Span) -> Diagnostic {
    match error {
        LexError::UnknownCharacter => syntax::unknown_character(source, span),
        LexError::UnterminatedComment => syntax::unterminated_comment(span),
        LexError::NumberTooLong => syntax::number_too_long(span),
        LexError::UnknownBackslashWord => {
            let text = source.get(span.start..span.end).unwrap_or("");
            Diagnostic::error(Code::UnknownBackslashWord, format!("unknown keyword `{text}`"), span, "not a keyword")
                .with_help("the keywords that start with `\\` are `\\forall`, `\\forall*`, `\\exists`, `\\old` and `\\result`; for a fraction write `1 \\ 2`")
        }
    }
}

fn syntax_diagnostic(source: &str, tokens: &[Spanned], error: &Error) -> Diagnostic {
    let unclosed = syntax::unclosed(tokens, |token| *token == Token::LBrace, |token| *token == Token::RBrace);
    syntax::diagnostic(
        source,
        error,
        &TERMINALS,
        Token::describe,
        |start, token, expected| syntax_help(tokens, start, token, expected),
        unclosed,
    )
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

const TERMINALS: syntax::Terminals = syntax::Terminals {
    operators: &[
        "\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"%\"", "\"mod\"", "\"\\\\\"", "\"==\"", "\"=\"", "\"!=\"", "\"<\"",
        "\"<=\"", "\">\"", "\">=\"", "\"&&\"", "\"||\"", "\"->\"", "\"?\"", "\"**\"", "SepStar",
    ],
    expression_starts: &[
        "\"(\"",
        "\"true\"",
        "\"false\"",
        "\"!\"",
        "\"-\"",
        "\"perm\"",
        "\"Perm\"",
        "\"read\"",
        "\"write\"",
        "\"\\\\old\"",
        "\"\\\\sum\"",
        "\"\\\\result\"",
        "\"\\\\forall\"",
        "\"\\\\forall*\"",
        "\"\\\\exists\"",
    ],
};

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
