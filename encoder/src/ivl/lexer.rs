//! Tokens of the Boogie subset (logos).

use logos::Logos;
use num_bigint::BigInt;

/// A character that starts no token.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LexError;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub enum Token {
    #[token("const")]
    Const,
    #[token("function")]
    Function,
    #[token("axiom")]
    Axiom,
    #[token("var")]
    Var,
    #[token("procedure")]
    Procedure,
    #[token("returns")]
    Returns,
    #[token("requires")]
    Requires,
    #[token("ensures")]
    Ensures,
    #[token("modifies")]
    Modifies,
    #[token("free")]
    Free,
    #[token("invariant")]
    Invariant,
    #[token("assert")]
    Assert,
    #[token("assume")]
    Assume,
    #[token("havoc")]
    Havoc,
    #[token("call")]
    Call,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("int")]
    Int,
    #[token("bool")]
    Bool,
    #[token("real")]
    Real,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("old")]
    Old,
    #[token("forall")]
    Forall,
    #[token("exists")]
    Exists,
    #[token("lambda")]
    Lambda,
    #[token("div")]
    Div,
    #[token("mod")]
    Mod,
    #[regex(r"[A-Za-z_$#'?^~][A-Za-z0-9_$#'?^~.]*", |lex| lex.slice().to_string())]
    Ident(String),
    #[regex(r"[0-9]+", |lex| lex.slice().parse::<BigInt>().ok())]
    Number(BigInt),
    /// A decimal such as `0.5`, kept as its text and read exactly by the parser.
    #[regex(r"[0-9]+\.[0-9]+", |lex| lex.slice().to_string())]
    Decimal(String),
    #[regex(r#""[^"\n]*""#, |lex| { let text = lex.slice(); text[1..text.len() - 1].to_string() })]
    Str(String),
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
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token(":=")]
    Assign,
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
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("!")]
    Bang,
    #[token("&&")]
    And,
    #[token("||")]
    Or,
    #[token("==>")]
    Implies,
    #[token("<==>")]
    Iff,
}
