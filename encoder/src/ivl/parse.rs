//! Reading Boogie text into the IVL.
//!
//! Two small liberties keep printing and parsing inverse to each other: a minus sign before a
//! literal folds into the literal (`(-3)` is the integer -3), and a real division of two literals
//! folds into one exact literal (`(1.0 / 10.0)` is 1/10). Expressions nested deeper than
//! [`MAX_DEPTH`] are refused, so that no later recursive pass can run out of stack.

use super::lexer::Token;
use super::*;
use lalrpop_util::ParseError;
use logos::Logos;
use num_traits::Zero;
use std::fmt;

#[allow(clippy::all, unused_qualifications, unused_parens)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/ivl/grammar.rs"));
}

/// The deepest nesting of expressions or statements accepted.
pub const MAX_DEPTH: Depth = 400;

pub type Depth = u32;

/// An error the grammar's actions find, at a byte offset: nesting deeper than [`MAX_DEPTH`], or a
/// construct outside the subset.
#[derive(Clone, Debug, PartialEq)]
pub enum Refused {
    TooDeep(usize),
    Unsupported(usize, &'static str),
}

/// A parse error: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub position: Position,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.position.line, self.position.column, self.message)
    }
}

/// Byte offsets to lines and columns.
pub struct Lines {
    starts: Vec<usize>,
    text_length: usize,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(offset, _)| offset + 1)).collect();
        Lines { starts, text_length: text.len() }
    }

    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text_length);
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        Position { line: line as u32 + 1, column: (offset - self.starts[line]) as u32 + 1 }
    }
}

/// Parses a whole program.
pub fn program(text: &str) -> Result<Program, SyntaxError> {
    let lines = Lines::new(text);
    let mut tokens = Vec::new();
    let mut lexer = Token::lexer(text);
    while let Some(token) = lexer.next() {
        let range = lexer.span();
        match token {
            Ok(token) => tokens.push(Ok((range.start, token, range.end))),
            Err(_) => {
                return Err(SyntaxError {
                    position: lines.position(range.start),
                    message: format!("unknown character `{}`", &text[range.clone()].escape_debug()),
                })
            }
        }
    }
    grammar::ProgramParser::new().parse(&lines, tokens).map_err(|error| syntax_error(text, &lines, error))
}

fn syntax_error(text: &str, lines: &Lines, error: ParseError<usize, Token, Refused>) -> SyntaxError {
    let expected_text = |expected: &[String]| {
        let names: Vec<&str> = expected.iter().map(|name| name.trim_matches('"')).collect();
        names.join(", ")
    };
    let (offset, message) = match error {
        ParseError::InvalidToken { location } => (location, "invalid token".to_string()),
        ParseError::UnrecognizedEof { location, expected } => {
            (location, format!("unexpected end of input, expected one of {}", expected_text(&expected)))
        }
        ParseError::UnrecognizedToken { token: (start, _, end), expected } => {
            (start, format!("unexpected `{}`, expected one of {}", &text[start..end], expected_text(&expected)))
        }
        ParseError::ExtraToken { token: (start, _, end) } => (start, format!("unexpected `{}`", &text[start..end])),
        ParseError::User { error: Refused::TooDeep(offset) } => {
            (offset, format!("nested more than {MAX_DEPTH} levels deep"))
        }
        ParseError::User { error: Refused::Unsupported(offset, what) } => (offset, what.to_string()),
    };
    SyntaxError { position: lines.position(offset), message }
}

/// One more level of nesting above `depth`, if allowed.
pub fn deeper(depth: Depth, _lines: &Lines, offset: usize) -> Result<Depth, ParseError<usize, Token, Refused>> {
    if depth >= MAX_DEPTH {
        return Err(ParseError::User { error: Refused::TooDeep(offset) });
    }
    Ok(depth + 1)
}

type Built = Result<(Expr, Depth), ParseError<usize, Token, Refused>>;

pub fn binary(lines: &Lines, offset: usize, op: BinaryOp, lhs: (Expr, Depth), rhs: (Expr, Depth)) -> Built {
    let depth = deeper(lhs.1.max(rhs.1), lines, offset)?;
    Ok((Expr::binary(op, lhs.0, rhs.0), depth))
}

pub fn fold_negation(lines: &Lines, offset: usize, operand: (Expr, Depth)) -> Built {
    match operand.0 {
        Expr::Int(value) => Ok((Expr::Int(-value), operand.1)),
        Expr::Real(value) => Ok((Expr::Real(-value), operand.1)),
        other => Ok((Expr::Unary(UnaryOp::Neg, Box::new(other)), deeper(operand.1, lines, offset)?)),
    }
}

pub fn fold_real_division(lines: &Lines, offset: usize, lhs: (Expr, Depth), rhs: (Expr, Depth)) -> Built {
    match (&lhs.0, &rhs.0) {
        (Expr::Real(numerator), Expr::Real(denominator)) if !denominator.is_zero() => {
            Ok((Expr::Real(numerator / denominator), 1))
        }
        _ => binary(lines, offset, BinaryOp::RealDiv, lhs, rhs),
    }
}

/// The exact value of a decimal literal such as `0.25`.
pub fn decimal(text: &str) -> BigRational {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits: BigInt = format!("{whole}{fraction}").parse().unwrap_or_default();
    let scale = BigInt::from(10).pow(fraction.len() as u32);
    BigRational::new(digits, scale)
}

/// `{:name value, ...}`: the values that are strings or expressions (as text).
pub struct Attribute {
    pub name: String,
    pub values: Vec<String>,
}

/// The tag of a construct: its `{:tag "..."}` attribute, or Boogie's `{:msg "..."}`.
pub fn attributed(attributes: Vec<Attribute>) -> Option<String> {
    attributes
        .into_iter()
        .find(|attribute| attribute.name == "tag" || attribute.name == "msg")
        .and_then(|attribute| attribute.values.into_iter().next())
}

/// Whether an assert's condition is assumed after it: unless it carries Boogie's
/// `{:subsumption 0}`.
pub fn assumed_after(attributes: &[Attribute]) -> bool {
    !attributes.iter().any(|attribute| attribute.name == "subsumption" && attribute.values == ["0"])
}

/// A `requires`, `ensures` or invariant with its attributes: `{:tag}` and `{:proved_by}`.
pub fn spec(free: bool, attributes: Vec<Attribute>, expr: Expr, position: Position) -> Spec {
    let proved_by = attributes
        .iter()
        .filter(|attribute| attribute.name == "proved_by")
        .flat_map(|attribute| attribute.values.iter().cloned())
        .collect();
    Spec { free, expr, tag: attributed(attributes), proved_by, position }
}

/// A clause of a procedure's specification, in any order.
pub enum SpecClause {
    Requires(Spec),
    Ensures(Spec),
    Modifies(Vec<String>),
}

pub fn procedure(
    position: Position,
    name: String,
    params: Vec<Binding>,
    returns: Option<Vec<Binding>>,
    specs: Vec<SpecClause>,
    body: Option<Body>,
) -> Procedure {
    let mut procedure = Procedure {
        name,
        params,
        returns: returns.unwrap_or_default(),
        requires: Vec::new(),
        ensures: Vec::new(),
        modifies: Vec::new(),
        body,
        position,
    };
    for spec in specs {
        match spec {
            SpecClause::Requires(spec) => procedure.requires.push(spec),
            SpecClause::Ensures(spec) => procedure.ensures.push(spec),
            SpecClause::Modifies(names) => procedure.modifies.extend(names),
        }
    }
    procedure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal("0.1"), BigRational::new(1.into(), 10.into()));
        assert_eq!(decimal("2.50"), BigRational::new(5.into(), 2.into()));
    }

    #[test]
    fn positions_are_lines_and_columns() {
        let program = program("procedure p()\n{\n  assert true;\n}\n").unwrap();
        let Declaration::Procedure(procedure) = &program.declarations[0] else { panic!() };
        assert_eq!(procedure.position, Position { line: 1, column: 1 });
        assert_eq!(procedure.body.as_ref().unwrap().stmts[0].position, Position { line: 3, column: 3 });
    }

    #[test]
    fn too_deep_nesting_is_refused() {
        let deep = format!("axiom {}true;", "!".repeat(MAX_DEPTH as usize + 5));
        let error = program(&deep).unwrap_err();
        assert!(error.message.contains("levels deep"), "{error}");
        let long = format!("axiom {}1 > 0;", "1 + ".repeat(MAX_DEPTH as usize + 5));
        assert!(program(&long).is_err());
    }

    #[test]
    fn negative_literals_fold() {
        let program = program("axiom (-3) == -(3);").unwrap();
        assert_eq!(
            program.declarations[0],
            Declaration::Axiom(Expr::binary(BinaryOp::Eq, Expr::int(-3), Expr::int(-3)))
        );
        assert_eq!(Expr::int(-3).to_string(), "(-3)");
    }
}
