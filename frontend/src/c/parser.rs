//! The parser driver of OpenCL C and CUDA: lexes, preprocesses, runs the lalrpop parser with error
//! recovery, and turns every lexical and syntax error into a [`Diagnostic`].
//!
//! As in PVL ([`crate::syntax`]), a missing `;` is inserted and reported, and only the first error
//! of each line is reported. A syntax error at a C construct that lockstep does not support
//! (`union`, `goto`, an event or image type, ...) is reported as `kernel::unsupported`
//! naming it, rather than as a token the grammar did not expect.

use crate::c::ast::{File, TooDeep};
use crate::c::grammar::FileParser;
use crate::c::lexer::{lex, LexError, Spanned, Token};
use crate::c::preprocess::preprocess;
use crate::c::Dialect;
use crate::diagnostics::{Code, Diagnostic};
use crate::syntax;
use lalrpop_util::ParseError;
use lockstep_logic::Span;

type Error = syntax::Error<Token>;

/// Parses a whole file. The tree is returned even when there were errors (with error nodes where
/// text was skipped); it is `None` only when the parser could not recover at all.
pub fn parse(source: &str, dialect: Dialect) -> (Option<File>, Vec<Diagnostic>) {
    let (tokens, lex_errors) = lex(source, dialect);
    let mut diagnostics: Vec<Diagnostic> = lex_errors
        .iter()
        .map(|error| match error.error {
            LexError::UnknownCharacter => syntax::unknown_character(source, error.span),
            LexError::UnterminatedComment => syntax::unterminated_comment(error.span),
            LexError::NumberTooLong => syntax::number_too_long(error.span),
        })
        .collect();
    let lex_error_starts: Vec<usize> = lex_errors.iter().map(|error| error.span.start).collect();
    let (tokens, preprocess_diagnostics) = preprocess(source, tokens);
    diagnostics.extend(preprocess_diagnostics);
    let tokens = with_type_names(without_ghost_parts(tokens, &mut diagnostics));
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

/// The tokens without VerCors's annotations that lockstep has no use for: the ghost arguments of
/// a call, `f(x) /*@ given {r = 1\\2} @*/`, which pass values to the callee's specification, are
/// left out with `warning::left-out` (lockstep's built-ins have no ghost parameters, and its
/// helpers are inlined), so nothing is assumed; the modifier `/*@ pure @*/` before a function is
/// dropped, as lockstep inlines the function and so reads what it does.
fn without_ghost_parts(tokens: Vec<Spanned>, diagnostics: &mut Vec<Diagnostic>) -> Vec<Spanned> {
    const GHOST_WORDS: &[&str] = &["given", "yields"];
    let mut kept = Vec::with_capacity(tokens.len());
    let mut index = 0;
    while index < tokens.len() {
        let word = match (&tokens[index].1, tokens.get(index + 1)) {
            (Token::AnnotationOpen, Some((_, Token::Ident(word), _))) => word.as_str(),
            _ => "",
        };
        // Only an annotation that opens with one of the words is looked through for its end.
        let wanted = word == "pure" || GHOST_WORDS.contains(&word);
        let close =
            wanted.then(|| tokens[index..].iter().position(|(_, token, _)| *token == Token::AnnotationClose)).flatten();
        match close {
            Some(2) if word == "pure" => index += 3,
            Some(close) if GHOST_WORDS.contains(&word) => {
                let span = Span::new(tokens[index].0, tokens[index + close].2);
                diagnostics.push(
                    Diagnostic::warning(Code::LeftOut, "VerCors's ghost arguments are left out", span, "neither assumed nor checked")
                        .with_help("lockstep's built-in functions take no ghost parameters, and it inlines helper functions, so their specifications need none"),
                );
                index += close + 1;
            }
            _ => {
                kept.push(tokens[index].clone());
                index += 1;
            }
        }
    }
    kept
}

/// The tokens with every use of a name that a `typedef` declares retagged as a
/// [`Token::TypeName`]: C's grammar cannot tell `(T) x`, a cast, from `(t) * x` without knowing
/// which names are types. A `typedef`'s names are the identifiers of its declaration outside
/// brackets that end a declarator (before `;`, `,` or `[`). The retagging ignores scopes: a
/// variable that takes a type's name later is a syntax error, not a misreading.
fn with_type_names(mut tokens: Vec<Spanned>) -> Vec<Spanned> {
    let mut type_names = std::collections::HashSet::new();
    let mut index = 0;
    while index < tokens.len() {
        // A struct's tag is no type name, even where a typedef gives the struct that name.
        let after_struct = index.checked_sub(1).is_some_and(|previous| tokens[previous].1 == Token::Struct);
        match &tokens[index].1 {
            Token::Ident(name) if type_names.contains(name) && !after_struct => {
                tokens[index].1 = Token::TypeName(name.clone());
            }
            Token::Typedef => {
                let mut depth = 0usize;
                let mut at = index + 1;
                while let Some((_, token, _)) = tokens.get(at) {
                    match token {
                        Token::LBrace | Token::LParen | Token::LBracket => depth += 1,
                        Token::RBrace | Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
                        Token::Semi if depth == 0 => break,
                        Token::Ident(name) if type_names.contains(name) && tokens[at - 1].1 != Token::Struct => {
                            tokens[at].1 = Token::TypeName(name.clone());
                        }
                        Token::Ident(name) if depth == 0 => {
                            let ends_declarator = matches!(
                                tokens.get(at + 1).map(|(_, token, _)| token),
                                Some(Token::Semi | Token::Comma | Token::LBracket)
                            );
                            if ends_declarator {
                                type_names.insert(name.clone());
                            }
                        }
                        _ => {}
                    }
                    at += 1;
                }
                index = at;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    tokens
}

fn run_parser(tokens: &[Spanned]) -> syntax::Parsed<Token, File> {
    let mut recovered = Vec::new();
    let result = FileParser::new().parse(&mut recovered, tokens.iter().cloned().map(Ok::<_, TooDeep>));
    syntax::parsed(result, recovered)
}

/// The C constructs lockstep does not support, by the token that starts them, with what to say.
fn unsupported_construct(token: &Token) -> Option<(String, &'static str)> {
    let (construct, help) = match token {
        Token::Union => ("a `union` type".to_string(), "pass the members as separate arrays"),
        Token::Enum => ("an `enum` type".to_string(), "use `#define` constants"),
        Token::Goto => ("`goto`".to_string(), "use structured control flow: `if`, loops, `break` and `continue`"),
        Token::Ellipsis => ("a variadic function".to_string(), "give the function a fixed list of parameters"),
        Token::Ident(name) if is_opaque_type(name) => (
            format!("the type `{name}`"),
            "lockstep reads the scalar and vector types of OpenCL C and CUDA, not their events, images and samplers",
        ),
        _ => return None,
    };
    Some((construct, help))
}

/// OpenCL's and CUDA's opaque types (`event_t`, images, samplers) and image qualifiers.
fn is_opaque_type(name: &str) -> bool {
    [
        "event_t",
        "sampler_t",
        "image1d_t",
        "image2d_t",
        "image3d_t",
        "dim3",
        "__read_only",
        "__write_only",
        "read_only",
        "write_only",
    ]
    .contains(&name)
}

fn syntax_diagnostic(source: &str, tokens: &[Spanned], error: &Error) -> Diagnostic {
    // An opaque type is an identifier to the grammar: the error is at the name after it.
    let construct = match error {
        ParseError::UnrecognizedToken { token: (start, token, end), .. } => {
            let index = tokens.partition_point(|token| token.0 < *start);
            let previous = index.checked_sub(1).map(|previous| &tokens[previous]);
            match (unsupported_construct(token), previous) {
                (Some(found), _) => Some((found, Span::new(*start, *end))),
                (None, Some((start, previous, end))) => {
                    unsupported_construct(previous).map(|found| (found, Span::new(*start, *end)))
                }
                (None, None) => None,
            }
        }
        _ => None,
    };
    if let Some(((construct, help), span)) = construct {
        return Diagnostic::error(Code::Unsupported, format!("{construct} is not supported"), span, "not supported")
            .with_help(help);
    }
    let unclosed = syntax::unclosed(tokens, |token| *token == Token::LBrace, |token| *token == Token::RBrace);
    syntax::diagnostic(source, error, &TERMINALS, Token::describe, |_, _, _| None, unclosed)
}

const TERMINALS: syntax::Terminals = syntax::Terminals {
    operators: &[
        "\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"%\"", "\"\\\\\"", "\"==\"", "\"=\"", "\"!=\"", "\"<\"", "\"<=\"",
        "\">\"", "\">=\"", "\"&&\"", "\"||\"", "\"==>\"", "\"?\"", "\"**\"", "\"&\"", "\"|\"", "\"^\"", "\"<<\"",
        "\">>\"", "\"+=\"", "\"-=\"", "\"*=\"", "\"/=\"", "\"%=\"", "\"&=\"", "\"|=\"", "\"^=\"", "\"<<=\"", "\">>=\"",
        "\"++\"", "\"--\"", "\"[\"", "\".\"", "\"->\"", "\",\"",
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
        "\"++\"",
        "\"--\"",
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
        "StringLiteral",
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(source: &str) -> Vec<(Code, usize)> {
        parse(source, Dialect::OpenCl)
            .1
            .iter()
            .map(|diagnostic| (diagnostic.code, diagnostic.primary.span.start))
            .collect()
    }

    #[test]
    fn an_opencl_kernel_with_annotations_parses() {
        let source = "#include <opencl.h>\n/*@ context \\pointer_length(a) == n; requires Perm(&a[get_global_id(0)], write); @*/\n__kernel void k(global int* a, int n) {\n  int i = get_global_id(0);\n  for (int j = 0; j < 4; j++) { a[i] += j; }\n  /*@ requires true; @*/\n  barrier(CLK_GLOBAL_MEM_FENCE);\n}\n";
        let (file, diagnostics) = parse(source, Dialect::OpenCl);
        assert!(diagnostics.is_empty(), "{diagnostics:#?}");
        assert_eq!(file.unwrap().items.len(), 2);
    }

    #[test]
    fn a_missing_semicolon_is_inserted() {
        assert_eq!(codes("void f() { int x = 1\n x = 2; }"), [(Code::MissingSemicolon, 20)]);
    }

    #[test]
    fn unsupported_constructs_are_named() {
        for (source, construct) in [
            ("union U { int x; };", "a `union` type"),
            ("__kernel void k() { event_t e; }", "the type `event_t`"),
            ("__kernel void k() { goto end; }", "`goto`"),
        ] {
            let diagnostics = parse(source, Dialect::OpenCl).1;
            assert_eq!(diagnostics.len(), 1, "{source}: {diagnostics:#?}");
            assert_eq!(diagnostics[0].code, Code::Unsupported);
            assert_eq!(diagnostics[0].message, format!("{construct} is not supported"));
        }
    }
}
