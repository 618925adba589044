//! The lexer of VerCors's annotations in OpenCL C and CUDA (`/*@ ... @*/` and `//@ ...`): a logos
//! token enum for the text of one annotation comment, which [`crate::c::annotations`] finds in the
//! file (the C code around it is Clang's to read). The comment's delimiters become the tokens
//! [`Token::AnnotationOpen`] and [`Token::AnnotationClose`], and the text between them is cut into
//! tokens with offsets into the file, so that a diagnostic points into the comment. Words such as
//! `requires`, `Perm` or `write` are keywords only inside the delimiters ([`mark_annotations`]); so
//! are OpenCL's address-space words (`global`, `local`, ...) only in an OpenCL file, as CUDA
//! spells them with underscores. The lexer never stops at an error: a character it does not know
//! is reported and skipped.

use crate::c::Dialect;
use lockstep_logic::Span;
use logos::{FilterResult, Logos};
use num_bigint::BigInt;

/// What can go wrong while cutting the text into tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    #[default]
    UnknownCharacter,
    UnterminatedComment,
    NumberTooLong,
}

/// The most digits a number literal may have (as in PVL, `crate::pvl::lexer::MAX_DIGITS`).
pub use crate::pvl::lexer::MAX_DIGITS;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"\\\r?\n")]
pub enum Token {
    #[token("/*", block_comment)]
    BlockComment,
    #[regex(r"//([^@\n][^\n]*)?", line_comment)]
    LineComment,
    #[token("/*@")]
    AnnotationOpen,
    #[token("@*/")]
    AnnotationClose,
    /// `//@`: an annotation up to the end of the line ([`lex`] closes it).
    #[token("//@")]
    LineAnnotationOpen,
    /// `@` at the start of a line inside an annotation, as JML and VerCors allow; dropped.
    #[token("@")]
    At,

    // Types and qualifiers.
    #[token("void")]
    Void,
    #[token("bool")]
    #[token("_Bool")]
    Bool,
    #[token("char")]
    Char,
    #[token("short")]
    Short,
    #[token("int")]
    Int,
    #[token("long")]
    Long,
    #[token("unsigned")]
    Unsigned,
    #[token("signed")]
    Signed,
    #[token("float")]
    Float,
    #[token("double")]
    Double,
    #[token("half")]
    Half,
    #[token("size_t")]
    SizeT,
    #[token("uint")]
    Uint,
    #[token("uchar")]
    Uchar,
    #[token("ushort")]
    Ushort,
    #[token("ulong")]
    Ulong,
    /// A vector type of OpenCL C or CUDA: `float4`, `uint2`, `char16`, ... (its name).
    #[regex(r"(u?(char|short|int|long)|float|double|half)(2|3|4|8|16)", |lex| lex.slice().to_string(), priority = 5)]
    VectorType(String),
    #[token("const")]
    Const,
    #[token("volatile")]
    Volatile,
    #[token("struct")]
    Struct,
    #[token("sizeof")]
    Sizeof,
    #[token("__global")]
    UnderscoreGlobal,
    /// OpenCL's `global`; an identifier in CUDA.
    Global,
    #[token("__local")]
    UnderscoreLocal,
    /// OpenCL's `local`; an identifier in CUDA.
    Local,
    #[token("__constant")]
    UnderscoreConstant,
    /// OpenCL's `constant`; an identifier in CUDA.
    Constant,
    #[token("__private")]
    UnderscorePrivate,
    /// OpenCL's `private`; an identifier in CUDA.
    Private,

    #[token("true")]
    True,
    #[token("false")]
    False,

    // Annotation keywords: identifiers in code, keywords inside `/*@ @*/` (see `mark_annotations`).
    Requires,
    Ensures,
    Context,
    LoopInvariant,
    Assert,
    Assume,
    Perm,
    Read,
    Write,
    #[token("\\forall")]
    Forall,
    #[token("\\forall*")]
    ForallStar,
    #[token("\\exists")]
    Exists,
    #[token("\\old")]
    Old,
    #[token("\\result")]
    Result,
    #[token("\\gtid")]
    Gtid,
    #[token("\\ltid")]
    Ltid,
    /// Any other `\word` of VerCors's specification language: `\pointer_length`,
    /// `\shared_mem_size`, ..., or one lockstep does not support (the lowering says which).
    #[regex(r"\\[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    BackslashWord(String),

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    Ident(String),
    /// An integer literal: its value and whether a `u`/`U` suffix makes it unsigned.
    #[regex(r"[0-9]+[uUlL]*", decimal)]
    #[regex(r"0[xX][0-9a-fA-F]+[uUlL]*", hexadecimal)]
    Number((BigInt, bool)),
    /// A floating-point literal, kept as written: floats are uninterpreted values.
    #[regex(r"([0-9]+\.[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFhH]?", |lex| lex.slice().to_string())]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+[fFhH]?", |lex| lex.slice().to_string())]
    #[regex(r"[0-9]+[fF]", |lex| lex.slice().to_string())]
    FloatNumber(String),
    /// A character literal such as `'a'` or `'\n'`, as its value.
    #[regex(r"'([^'\\\n]|\\[^\n])'", character)]
    CharNumber(BigInt),
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    StringLiteral,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,
    #[token("%=")]
    PercentAssign,
    #[token("&=")]
    AmpAssign,
    #[token("|=")]
    PipeAssign,
    #[token("^=")]
    CaretAssign,
    #[token("<<=")]
    ShlAssign,
    #[token(">>=")]
    ShrAssign,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    /// `**`, the separating conjunction of annotations.
    #[token("**")]
    StarStar,
    #[token("/")]
    Slash,
    /// `\`, the fraction operator of annotations (`write \ 2`).
    #[token("\\")]
    Backslash,
    #[token("%")]
    Percent,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("==>")]
    Implies,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,
}

fn literal_digits(lex: &logos::Lexer<Token>, skip: usize) -> Result<(String, bool), LexError> {
    let text = lex.slice();
    let digits = text[skip..].trim_end_matches(['u', 'U', 'l', 'L']);
    if digits.len() > MAX_DIGITS {
        return Err(LexError::NumberTooLong);
    }
    let unsigned = text[skip + digits.len()..].contains(['u', 'U']);
    Ok((digits.to_string(), unsigned))
}

fn decimal(lex: &mut logos::Lexer<Token>) -> Result<(BigInt, bool), LexError> {
    let (digits, unsigned) = literal_digits(lex, 0)?;
    // A leading 0 makes a C literal octal.
    let radix = if digits.len() > 1 && digits.starts_with('0') { 8 } else { 10 };
    let value = BigInt::parse_bytes(digits.as_bytes(), radix).ok_or(LexError::UnknownCharacter)?;
    Ok((value, unsigned))
}

fn hexadecimal(lex: &mut logos::Lexer<Token>) -> Result<(BigInt, bool), LexError> {
    let (digits, unsigned) = literal_digits(lex, 2)?;
    let value = BigInt::parse_bytes(digits.as_bytes(), 16).ok_or(LexError::UnknownCharacter)?;
    Ok((value, unsigned))
}

fn character(lex: &mut logos::Lexer<Token>) -> Result<BigInt, LexError> {
    let inner = &lex.slice()[1..lex.slice().len() - 1];
    let value = match inner.strip_prefix('\\') {
        None => inner.chars().next().map_or(0, u32::from),
        Some(escape) => match escape {
            "n" => 10,
            "t" => 9,
            "r" => 13,
            "0" => 0,
            "\\" => 92,
            "'" => 39,
            "\"" => 34,
            _ => return Err(LexError::UnknownCharacter),
        },
    };
    Ok(BigInt::from(value))
}

/// Skips a block comment, or fails when it never ends.
fn block_comment(lex: &mut logos::Lexer<Token>) -> FilterResult<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            FilterResult::Skip
        }
        None => {
            lex.bump(lex.remainder().len());
            FilterResult::Error(LexError::UnterminatedComment)
        }
    }
}

/// Skips a line comment.
fn line_comment(_: &mut logos::Lexer<Token>) -> FilterResult<(), LexError> {
    FilterResult::Skip
}

impl Token {
    /// How the token is written, for messages.
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(name) | Token::BackslashWord(name) | Token::VectorType(name) => {
                format!("`{name}`")
            }
            Token::Number((value, _)) | Token::CharNumber(value) => format!("number `{value}`"),
            Token::FloatNumber(text) => format!("number `{text}`"),
            other => format!("`{}`", other.spelling()),
        }
    }

    /// The spelling of a token, for messages.
    pub fn spelling(&self) -> &'static str {
        use Token::*;
        match self {
            BlockComment => "/*",
            LineComment => "//",
            AnnotationOpen => "/*@",
            AnnotationClose => "@*/",
            LineAnnotationOpen => "//@",
            At => "@",
            Void => "void",
            Bool => "bool",
            Char => "char",
            Short => "short",
            Int => "int",
            Long => "long",
            Unsigned => "unsigned",
            Signed => "signed",
            Float => "float",
            Double => "double",
            Half => "half",
            SizeT => "size_t",
            Uint => "uint",
            Uchar => "uchar",
            Ushort => "ushort",
            Ulong => "ulong",
            Const => "const",
            Volatile => "volatile",
            Struct => "struct",
            Sizeof => "sizeof",
            UnderscoreGlobal => "__global",
            Global => "global",
            UnderscoreLocal => "__local",
            Local => "local",
            UnderscoreConstant => "__constant",
            Constant => "constant",
            UnderscorePrivate => "__private",
            Private => "private",
            True => "true",
            False => "false",
            Requires => "requires",
            Ensures => "ensures",
            Context => "context",
            LoopInvariant => "loop_invariant",
            Assert => "assert",
            Assume => "assume",
            Perm => "Perm",
            Read => "read",
            Write => "write",
            Forall => "\\forall",
            ForallStar => "\\forall*",
            Exists => "\\exists",
            Old => "\\old",
            Result => "\\result",
            Gtid => "\\gtid",
            Ltid => "\\ltid",
            BackslashWord(_) => "\\word",
            Ident(_) => "identifier",
            VectorType(_) => "vector type",
            Number(_) | CharNumber(_) | FloatNumber(_) => "number",
            StringLiteral => "string",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Semi => ";",
            Comma => ",",
            Dot => ".",
            Arrow => "->",
            Assign => "=",
            PlusAssign => "+=",
            MinusAssign => "-=",
            StarAssign => "*=",
            SlashAssign => "/=",
            PercentAssign => "%=",
            AmpAssign => "&=",
            PipeAssign => "|=",
            CaretAssign => "^=",
            ShlAssign => "<<=",
            ShrAssign => ">>=",
            PlusPlus => "++",
            MinusMinus => "--",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Shl => "<<",
            Shr => ">>",
            Plus => "+",
            Minus => "-",
            Star => "*",
            StarStar => "**",
            Slash => "/",
            Backslash => "\\",
            Percent => "%",
            AndAnd => "&&",
            OrOr => "||",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Tilde => "~",
            Bang => "!",
            Implies => "==>",
            Question => "?",
            Colon => ":",
        }
    }
}

/// A token with its byte range, in the shape lalrpop's external lexers use.
pub type Spanned = (usize, Token, usize);

/// A lexical error and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct LexDiagnostic {
    pub error: LexError,
    pub span: Span,
}

/// Cuts `source` into tokens, skipping (and reporting) what cannot be a token. A `//@` annotation
/// is closed at the end of its line; the words of the dialect and of annotations are marked.
pub fn lex(source: &str, dialect: Dialect) -> (Vec<Spanned>, Vec<LexDiagnostic>) {
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(source);
    let mut line_annotation_end: Option<usize> = None;
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        if let Some(end) = line_annotation_end.filter(|&end| range.start >= end) {
            tokens.push((end, Token::AnnotationClose, end));
            line_annotation_end = None;
        }
        match result {
            Ok(Token::LineAnnotationOpen) => {
                let end = source[range.end..].find('\n').map_or(source.len(), |at| range.end + at);
                line_annotation_end = Some(end);
                tokens.push((range.start, Token::AnnotationOpen, range.end));
            }
            Ok(token) => tokens.push((range.start, token, range.end)),
            Err(error) => errors.push(LexDiagnostic { error, span: Span::new(range.start, range.end) }),
        }
    }
    if let Some(end) = line_annotation_end {
        tokens.push((end, Token::AnnotationClose, end));
    }
    mark_dialect(&mut tokens, dialect);
    mark_annotations(&mut tokens);
    (tokens, errors)
}

/// OpenCL reserves its address-space words without underscores; CUDA leaves them to the program.
fn mark_dialect(tokens: &mut [Spanned], dialect: Dialect) {
    if dialect != Dialect::OpenCl {
        return;
    }
    for (_, token, _) in tokens.iter_mut() {
        if let Token::Ident(name) = token {
            let keyword = match name.as_str() {
                "global" => Token::Global,
                "local" => Token::Local,
                "constant" => Token::Constant,
                "private" => Token::Private,
                _ => continue,
            };
            *token = keyword;
        }
    }
}

/// Inside annotations, the words of the specification language become keywords, and a line's
/// leading `@` is dropped; outside, they stay identifiers.
fn mark_annotations(tokens: &mut Vec<Spanned>) {
    let mut inside = false;
    tokens.retain_mut(|(_, token, _)| {
        match token {
            Token::AnnotationOpen => inside = true,
            Token::AnnotationClose => inside = false,
            Token::At if inside => return false,
            Token::Ident(name) if inside => {
                let keyword = match name.as_str() {
                    "requires" => Token::Requires,
                    "ensures" => Token::Ensures,
                    "context" => Token::Context,
                    "loop_invariant" => Token::LoopInvariant,
                    "assert" => Token::Assert,
                    "assume" => Token::Assume,
                    "Perm" => Token::Perm,
                    "read" => Token::Read,
                    "write" => Token::Write,
                    _ => return true,
                };
                *token = keyword;
            }
            _ => {}
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(source: &str, dialect: Dialect) -> Vec<Token> {
        let (tokens, errors) = lex(source, dialect);
        assert!(errors.is_empty(), "{errors:?}");
        tokens.into_iter().map(|(_, token, _)| token).collect()
    }

    #[test]
    fn annotation_words_are_keywords_only_inside_annotations() {
        let words = tokens("/*@ requires Perm(&a[0], write); @*/ int read = write;", Dialect::Cuda);
        assert_eq!(words[1], Token::Requires);
        assert_eq!(words[2], Token::Perm);
        assert!(words.contains(&Token::Write));
        assert!(words.contains(&Token::Ident("read".into())));
        assert!(words.contains(&Token::Ident("write".into())));
    }

    #[test]
    fn a_line_annotation_closes_at_the_end_of_its_line() {
        let source = "//@ requires x > 0;\nint y;";
        let (spanned, _) = lex(source, Dialect::Cuda);
        let close = spanned.iter().find(|(_, token, _)| *token == Token::AnnotationClose).unwrap();
        assert_eq!(close.0, source.find('\n').unwrap());
        assert_eq!(spanned[1].1, Token::Requires);
    }

    #[test]
    fn opencl_words_are_keywords_only_in_opencl() {
        assert_eq!(tokens("local", Dialect::OpenCl), [Token::Local]);
        assert_eq!(tokens("local", Dialect::Cuda), [Token::Ident("local".into())]);
    }

    #[test]
    fn literals_keep_their_values_and_suffixes() {
        assert_eq!(
            tokens("10u 0x1F 017 'a' 1.5f", Dialect::OpenCl),
            [
                Token::Number((10.into(), true)),
                Token::Number((31.into(), false)),
                Token::Number((15.into(), false)),
                Token::CharNumber(97.into()),
                Token::FloatNumber("1.5f".into()),
            ]
        );
    }

    #[test]
    fn comments_and_line_breaks_are_skipped() {
        assert_eq!(
            tokens("/*@ assert N // four\n /* c */ > 4; @*/", Dialect::Cuda),
            [
                Token::AnnotationOpen,
                Token::Assert,
                Token::Ident("N".into()),
                Token::Gt,
                Token::Number((4.into(), false)),
                Token::Semi,
                Token::AnnotationClose,
            ]
        );
    }
}
