//! S-expressions as solvers answer them, and the values inside them.

use super::Value;
use num_bigint::BigInt;
use num_rational::BigRational;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    Atom(String),
    Str(String),
    List(Vec<Sexp>),
}

impl std::fmt::Display for Sexp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sexp::Atom(atom) => f.write_str(atom),
            Sexp::Str(text) => write!(f, "\"{}\"", text.replace('"', "\"\"")),
            Sexp::List(items) => {
                f.write_str("(")?;
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Reads one s-expression from the start of `text`. Returns it and the number of bytes read, or
/// `None` when `text` holds no complete s-expression yet.
pub fn read(text: &str) -> Option<(Sexp, usize)> {
    let bytes = text.as_bytes();
    let mut position = 0;
    let mut stack: Vec<Vec<Sexp>> = Vec::new();
    loop {
        // Skip blanks and comments.
        while position < bytes.len() {
            match bytes[position] {
                b' ' | b'\t' | b'\r' | b'\n' => position += 1,
                b';' => {
                    while position < bytes.len() && bytes[position] != b'\n' {
                        position += 1;
                    }
                }
                _ => break,
            }
        }
        if position >= bytes.len() {
            return None;
        }
        let item = match bytes[position] {
            b'(' => {
                stack.push(Vec::new());
                position += 1;
                continue;
            }
            b')' => {
                position += 1;
                Sexp::List(stack.pop()?)
            }
            b'"' => {
                let mut value = String::new();
                position += 1;
                loop {
                    let next = text[position..].find('"')? + position;
                    value.push_str(&text[position..next]);
                    position = next + 1;
                    // `""` inside a string is one quote.
                    if bytes.get(position) == Some(&b'"') {
                        value.push('"');
                        position += 1;
                    } else {
                        break;
                    }
                }
                Sexp::Str(value)
            }
            b'|' => {
                let end = text[position + 1..].find('|')? + position + 1;
                let atom = text[position + 1..end].to_string();
                position = end + 1;
                Sexp::Atom(atom)
            }
            _ => {
                let start = position;
                while position < bytes.len() && !b" \t\r\n()\";".contains(&bytes[position]) {
                    position += 1;
                }
                if position >= bytes.len() && !stack.is_empty() {
                    return None;
                }
                Sexp::Atom(text[start..position].to_string())
            }
        };
        match stack.last_mut() {
            Some(list) => list.push(item),
            None => return Some((item, position)),
        }
    }
}

/// A model value written as an SMT-LIB term: `true`, `5`, `(- 5)`, `1.5`, `(/ 1.0 3.0)`, `(/ 1 3)`.
pub fn value(sexp: &Sexp) -> Value {
    match number(sexp) {
        Some(value) if value.is_integer() && !is_real_literal(sexp) => Value::Int(value.to_integer()),
        Some(value) => Value::Real(value),
        None => match sexp {
            Sexp::Atom(atom) if atom == "true" => Value::Bool(true),
            Sexp::Atom(atom) if atom == "false" => Value::Bool(false),
            other => Value::Other(other.to_string()),
        },
    }
}

/// Whether the term is written as a real (has a decimal point or a division).
fn is_real_literal(sexp: &Sexp) -> bool {
    match sexp {
        Sexp::Atom(atom) => atom.contains('.'),
        Sexp::List(items) => match items.as_slice() {
            [Sexp::Atom(op), operand] if op == "-" => is_real_literal(operand),
            [Sexp::Atom(op), _, _] if op == "/" => true,
            _ => false,
        },
        Sexp::Str(_) => false,
    }
}

fn number(sexp: &Sexp) -> Option<BigRational> {
    match sexp {
        Sexp::Atom(atom) => {
            let (whole, fraction) = atom.split_once('.').unwrap_or((atom, ""));
            if whole.is_empty()
                || !whole.bytes().all(|b| b.is_ascii_digit())
                || !fraction.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            let digits: BigInt = format!("{whole}{fraction}").parse().ok()?;
            Some(BigRational::new(digits, BigInt::from(10).pow(fraction.len() as u32)))
        }
        Sexp::List(items) => match items.as_slice() {
            [Sexp::Atom(op), operand] if op == "-" => Some(-number(operand)?),
            [Sexp::Atom(op), numerator, denominator] if op == "/" => {
                let denominator = number(denominator)?;
                (denominator != BigRational::from_integer(0.into()))
                    .then(|| number(numerator).map(|n| n / denominator))?
            }
            _ => None,
        },
        Sexp::Str(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Sexp {
        read(text).expect("complete").0
    }

    #[test]
    fn reads_lists_atoms_strings_and_quoted_symbols() {
        let (sexp, used) = read("  ((|x@1| 5) (y \"a \"\"b\"\"\")) rest").unwrap();
        assert_eq!(used, 27);
        assert_eq!(sexp.to_string(), "((x@1 5) (y \"a \"\"b\"\"\"))");
        assert_eq!(read("(a (b"), None);
        assert_eq!(read("sat\n"), Some((Sexp::Atom("sat".into()), 3)));
    }

    #[test]
    fn values_are_exact() {
        assert_eq!(value(&one("(- 12)")), Value::Int(BigInt::from(-12)));
        assert_eq!(value(&one("(/ 1.0 3.0)")), Value::Real(BigRational::new(1.into(), 3.into())));
        assert_eq!(value(&one("(- (/ 1 4))")), Value::Real(BigRational::new((-1).into(), 4.into())));
        assert_eq!(value(&one("2.0")), Value::Real(BigRational::from_integer(2.into())));
        assert_eq!(value(&one("false")), Value::Bool(false));
        assert!(matches!(value(&one("((as const (Array Int Int)) 0)")), Value::Other(_)));
    }
}
