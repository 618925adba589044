//! The lexer: a logos token enum, and the pass that tells the two meanings of `*` apart.
//!
//! The seed writes the separating conjunction and multiplication with the same `*`
//! (`perm(b[tid],100) * b[tid] = (tid+1) mod gsize`), and its separating `*` binds looser than every
//! other operator (`gsize > 1 * perm(bin[tid],100)` means `(gsize > 1) ** perm(bin[tid],100)`).
//! One token of lookahead cannot decide which is meant, so the lexer decides before the parser
//! runs: a `*` is separating when the operand right next to it, on either side, is a permission or
//! a quantified resource (see `classify_stars`). The parser then sees two different tokens and
//! stays LR(1).
//!
//! The lexer never stops at an error: a character it does not know is reported and skipped, so
//! that one run reports every problem in a file.

use lockstep_logic::Span;
use logos::{FilterResult, Logos};
use num_bigint::BigInt;

/// What can go wrong while cutting the text into tokens.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    #[default]
    UnknownCharacter,
    UnterminatedComment,
    UnknownBackslashWord,
    NumberTooLong,
}

/// The most digits a number literal may have. Integers are unbounded, but a longer literal is a
/// mistake, and would only make every later step slow.
pub const MAX_DIGITS: usize = 1000;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Token {
    #[token("/*", block_comment)]
    BlockComment,

    #[token("kernel")]
    Kernel,
    #[token("group")]
    Group,
    #[token("global")]
    Global,
    #[token("local")]
    Local,
    #[token("pure")]
    Pure,
    #[token("void")]
    Void,
    #[token("int")]
    Int,
    #[token("bool")]
    Bool,
    #[token("requires")]
    Requires,
    #[token("ensures")]
    Ensures,
    #[token("context")]
    Context,
    #[token("decreases")]
    Decreases,
    #[token("invariant")]
    #[token("loop_invariant")]
    Invariant,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("barrier")]
    Barrier,
    #[token("assert")]
    Assert,
    #[token("assume")]
    Assume,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("mod")]
    Mod,
    #[token("perm")]
    PermPercent,
    #[token("Perm")]
    PermFraction,
    #[token("read")]
    Read,
    #[token("write")]
    Write,
    #[token("\\forall")]
    Forall,
    #[token("\\forall*")]
    ForallStar,
    #[token("\\exists")]
    Exists,
    #[token("\\old")]
    Old,
    #[token("\\sum")]
    Sum,
    #[token("\\result")]
    Result,
    #[regex(r"\\[A-Za-z_][A-Za-z0-9_]*", unknown_backslash_word)]
    UnknownBackslashWord,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    Ident(String),
    #[regex(r"[0-9]+", number)]
    Number(BigInt),

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
    #[token(":=")]
    ColonEq,
    #[token("=")]
    EqSign,
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
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    /// `*` as multiplication; `classify_stars` turns some into [`Token::SepStar`].
    #[token("*")]
    Star,
    /// `*` as the separating conjunction. Never produced by logos directly.
    SepStar,
    #[token("**")]
    StarStar,
    #[token("/")]
    Slash,
    #[token("\\")]
    Backslash,
    #[token("%")]
    Percent,
    #[token("&&")]
    #[token("&")]
    And,
    #[token("||")]
    #[token("|")]
    Or,
    #[token("!")]
    Bang,
    #[token("->")]
    #[token("==>")]
    Implies,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,
}

/// A number literal, unless it is absurdly long.
fn number(lex: &mut logos::Lexer<Token>) -> Result<BigInt, LexError> {
    let digits = lex.slice();
    if digits.len() > MAX_DIGITS {
        return Err(LexError::NumberTooLong);
    }
    digits.parse().map_err(|_| LexError::UnknownCharacter)
}

/// A word after `\` that is no keyword of the language.
fn unknown_backslash_word(_: &mut logos::Lexer<Token>) -> Result<(), LexError> {
    Err(LexError::UnknownBackslashWord)
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

impl Token {
    /// How the token is written, for messages.
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(name) => format!("identifier `{name}`"),
            Token::Number(value) => format!("number `{value}`"),
            other => format!("`{}`", other.spelling()),
        }
    }

    /// The fixed spelling of a token without data.
    pub fn spelling(&self) -> &'static str {
        match self {
            Token::BlockComment => "/*",
            Token::Kernel => "kernel",
            Token::Group => "group",
            Token::Global => "global",
            Token::Local => "local",
            Token::Pure => "pure",
            Token::Void => "void",
            Token::Int => "int",
            Token::Bool => "bool",
            Token::Requires => "requires",
            Token::Ensures => "ensures",
            Token::Context => "context",
            Token::Decreases => "decreases",
            Token::Invariant => "invariant",
            Token::If => "if",
            Token::Else => "else",
            Token::While => "while",
            Token::Barrier => "barrier",
            Token::Assert => "assert",
            Token::Assume => "assume",
            Token::True => "true",
            Token::False => "false",
            Token::Mod => "mod",
            Token::PermPercent => "perm",
            Token::PermFraction => "Perm",
            Token::Read => "read",
            Token::Write => "write",
            Token::Forall => "\\forall",
            Token::ForallStar => "\\forall*",
            Token::Exists => "\\exists",
            Token::Old => "\\old",
            Token::Sum => "\\sum",
            Token::Result => "\\result",
            Token::UnknownBackslashWord => "\\",
            Token::Ident(_) => "identifier",
            Token::Number(_) => "number",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::Semi => ";",
            Token::Comma => ",",
            Token::ColonEq => ":=",
            Token::EqSign => "=",
            Token::EqEq => "==",
            Token::NotEq => "!=",
            Token::Lt => "<",
            Token::Le => "<=",
            Token::Gt => ">",
            Token::Ge => ">=",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star | Token::SepStar => "*",
            Token::StarStar => "**",
            Token::Slash => "/",
            Token::Backslash => "\\",
            Token::Percent => "%",
            Token::And => "&&",
            Token::Or => "||",
            Token::Bang => "!",
            Token::Implies => "->",
            Token::Question => "?",
            Token::Colon => ":",
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

/// Cuts `source` into tokens, skipping (and reporting) what cannot be a token, then marks the
/// separating stars.
pub fn lex(source: &str) -> (Vec<Spanned>, Vec<LexDiagnostic>) {
    let mut tokens = Vec::new();
    let mut errors = Vec::new();
    let mut lexer = Token::lexer(source);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        match result {
            Ok(token) => tokens.push((range.start, token, range.end)),
            Err(error) => errors.push(LexDiagnostic { error, span: Span::new(range.start, range.end) }),
        }
    }
    classify_stars(&mut tokens);
    (tokens, errors)
}

/// Whether a token opens a resource: `perm`, `Perm` or `\forall*`.
fn opens_resource(token: &Token) -> bool {
    matches!(token, Token::PermPercent | Token::PermFraction | Token::ForallStar)
}

/// Turns each `*` that stands next to a resource into [`Token::SepStar`].
///
/// The rule, written down for users in the README: a `*` is the separating conjunction when the
/// operand right next to it, on either side, is a resource: a `perm(...)`/`Perm(...)` call, a
/// `\forall*`, or a parenthesised group with `perm`, `Perm` or `\forall*` anywhere inside (such as
/// `(c -> perm(a[i],100))`). Every other `*` multiplies.
fn classify_stars(tokens: &mut [Spanned]) {
    // matching[i] is the index of the bracket matching the parenthesis at i, where there is one.
    let mut matching = vec![usize::MAX; tokens.len()];
    let mut open = Vec::new();
    for (index, (_, token, _)) in tokens.iter().enumerate() {
        match token {
            Token::LParen => open.push(index),
            Token::RParen => {
                if let Some(start) = open.pop() {
                    matching[start] = index;
                    matching[index] = start;
                }
            }
            _ => {}
        }
    }
    // openers_before[i]: how many resource openers stand before token i.
    let mut openers_before = Vec::with_capacity(tokens.len() + 1);
    openers_before.push(0usize);
    for (_, token, _) in tokens.iter() {
        let count = openers_before.last().copied().unwrap_or(0);
        openers_before.push(count + usize::from(opens_resource(token)));
    }
    // resource_group[i]: the parenthesis at i belongs to a group that is a resource.
    let mut resource_group = vec![false; tokens.len()];
    for index in 0..tokens.len() {
        let close = matching[index];
        if tokens[index].1 != Token::LParen || close == usize::MAX {
            continue;
        }
        let is_call_of_perm = index > 0 && matches!(tokens[index - 1].1, Token::PermPercent | Token::PermFraction);
        let holds_resource = openers_before[close] > openers_before[index + 1];
        resource_group[index] = holds_resource;
        resource_group[close] = holds_resource || is_call_of_perm;
    }
    for index in 0..tokens.len() {
        if tokens[index].1 != Token::Star {
            continue;
        }
        let right_is_resource = match tokens.get(index + 1).map(|spanned| &spanned.1) {
            Some(token) if opens_resource(token) => true,
            Some(Token::LParen) => resource_group[index + 1],
            _ => false,
        };
        let left_is_resource = index > 0 && tokens[index - 1].1 == Token::RParen && resource_group[index - 1];
        if right_is_resource || left_is_resource {
            tokens[index].1 = Token::SepStar;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stars(source: &str) -> Vec<&'static str> {
        let (tokens, errors) = lex(source);
        assert!(errors.is_empty(), "{errors:?}");
        tokens
            .iter()
            .filter_map(|(_, token, _)| match token {
                Token::Star => Some("mul"),
                Token::SepStar => Some("sep"),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_star_next_to_a_permission_separates() {
        assert_eq!(stars("perm(b[tid],100) * b[tid] = (tid+1) mod gsize"), ["sep"]);
        assert_eq!(stars("gsize > 1 * perm(bin[tid],100) * perm(tmp[tid],100)"), ["sep", "sep"]);
        assert_eq!(stars("x * (\\forall* int i; 0 <= i; Perm(a[i], 1))"), ["sep"]);
        assert_eq!(stars("(perm(a[0],100) * perm(b[0],50)) * 2 > 1"), ["sep", "sep"]);
        assert_eq!(stars("x > 0 * ((perm(a[0],100)))"), ["sep"]);
        assert_eq!(stars("(tid>0 -> perm(a[tid],100)) * (tid>0 -> perm(b[tid],100))"), ["sep"]);
        assert_eq!(stars("(f ? perm(b[0],100) : true) * x"), ["sep"]);
    }

    #[test]
    fn other_stars_multiply() {
        assert_eq!(stars("a[2 * i] * (i + 1) * f(x)"), ["mul", "mul", "mul"]);
        assert_eq!(stars("(i * 2) * 3"), ["mul", "mul"]);
        assert_eq!(stars("Perm(a[2 * i], 1)"), ["mul"]);
    }

    #[test]
    fn an_unterminated_comment_is_reported_and_ends_the_file() {
        let (tokens, errors) = lex("kernel k /* never closed\n {}");
        assert_eq!(tokens.len(), 2);
        assert_eq!(errors, [LexDiagnostic { error: LexError::UnterminatedComment, span: Span::new(9, 28) }]);
    }

    #[test]
    fn unknown_characters_are_skipped_and_reported() {
        let (tokens, errors) = lex("a # b @");
        assert_eq!(tokens.len(), 2);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[1].span, Span::new(6, 7));
    }
}
