//! The IVL's types and expressions, printed as Boogie 2.4 text.
//!
//! Printing is deterministic and fully parenthesised: every compound expression is wrapped, so the
//! text never depends on Boogie's precedence table and reads back as the same tree.

use std::fmt;

/// A Boogie type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int,
    Bool,
    Real,
    /// `[domain]range`, e.g. a heap `[int]int` or a permission mask `[int]real`.
    Map(Box<Type>, Box<Type>),
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int => f.write_str("int"),
            Type::Bool => f.write_str("bool"),
            Type::Real => f.write_str("real"),
            Type::Map(domain, range) => write!(f, "[{domain}]{range}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Boogie's `div`: integer division (Euclidean in SMT-LIB).
    IntDiv,
    /// Boogie's `mod`: the Euclidean remainder.
    Mod,
    /// Boogie's `/`: real division.
    RealDiv,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Implies,
    Iff,
}

impl BinaryOp {
    pub fn boogie(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::IntDiv => "div",
            BinaryOp::Mod => "mod",
            BinaryOp::RealDiv => "/",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::Implies => "==>",
            BinaryOp::Iff => "<==>",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Forall,
    Exists,
}

/// A Boogie expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// An integer literal, kept as its decimal digits (unbounded).
    Int(String),
    /// A real literal `numerator / denominator`, printed as a real division of two reals.
    Real {
        numerator: String,
        denominator: String,
    },
    Bool(bool),
    Var(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `map[index]`.
    Select(Box<Expr>, Box<Expr>),
    /// `map[index := value]`.
    Store(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
    IfThenElse(Box<Expr>, Box<Expr>, Box<Expr>),
    Quantified {
        quantifier: Quantifier,
        bound: Vec<(String, Type)>,
        triggers: Vec<Vec<Expr>>,
        body: Box<Expr>,
    },
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(digits) if digits.starts_with('-') => write!(f, "(-{})", &digits[1..]),
            Expr::Int(digits) => f.write_str(digits),
            Expr::Real {
                numerator,
                denominator,
            } => write!(f, "({numerator}.0 / {denominator}.0)"),
            Expr::Bool(value) => write!(f, "{value}"),
            Expr::Var(name) => f.write_str(name),
            Expr::Unary(UnaryOp::Not, operand) => write!(f, "(!{operand})"),
            Expr::Unary(UnaryOp::Neg, operand) => write!(f, "(-{operand})"),
            Expr::Binary(op, lhs, rhs) => write!(f, "({lhs} {} {rhs})", op.boogie()),
            Expr::Select(map, index) => write!(f, "{map}[{index}]"),
            Expr::Store(map, index, value) => write!(f, "{map}[{index} := {value}]"),
            Expr::Call(function, args) => {
                write!(f, "{function}(")?;
                for (position, arg) in args.iter().enumerate() {
                    if position > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{arg}")?;
                }
                f.write_str(")")
            }
            Expr::IfThenElse(cond, then_value, else_value) => {
                write!(f, "(if {cond} then {then_value} else {else_value})")
            }
            Expr::Quantified {
                quantifier,
                bound,
                triggers,
                body,
            } => {
                let keyword = match quantifier {
                    Quantifier::Forall => "forall",
                    Quantifier::Exists => "exists",
                };
                write!(f, "({keyword} ")?;
                for (position, (name, ty)) in bound.iter().enumerate() {
                    if position > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name}: {ty}")?;
                }
                f.write_str(" ::")?;
                for trigger in triggers {
                    f.write_str(" {")?;
                    for (position, term) in trigger.iter().enumerate() {
                        if position > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{term}")?;
                    }
                    f.write_str("}")?;
                }
                write!(f, " {body})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str) -> Box<Expr> {
        Box::new(Expr::Var(name.to_string()))
    }

    #[test]
    fn types_print_as_boogie() {
        let heap = Type::Map(Box::new(Type::Int), Box::new(Type::Int));
        let mask = Type::Map(Box::new(Type::Int), Box::new(Type::Real));
        assert_eq!(
            format!("{heap} {mask} {}", Type::Bool),
            "[int]int [int]real bool"
        );
    }

    #[test]
    fn expressions_are_fully_parenthesised() {
        // Mask_a[i] := Mask_a[i] - 1/2, guarded: the shape of an exhale.
        let select = Expr::Select(var("Mask_a"), var("i"));
        let half = Expr::Real {
            numerator: "1".into(),
            denominator: "2".into(),
        };
        let less = Expr::Binary(BinaryOp::Sub, Box::new(select.clone()), Box::new(half));
        let store = Expr::Store(var("Mask_a"), var("i"), Box::new(less));
        assert_eq!(store.to_string(), "Mask_a[i := (Mask_a[i] - (1.0 / 2.0))]");
        let negative = Expr::Binary(
            BinaryOp::Mod,
            Box::new(Expr::Int("-1".into())),
            var("gsize"),
        );
        assert_eq!(negative.to_string(), "((-1) mod gsize)");
    }

    #[test]
    fn quantifiers_print_their_triggers() {
        let select = Expr::Select(var("Heap_a"), var("j"));
        let body = Expr::Binary(
            BinaryOp::Ge,
            Box::new(select.clone()),
            Box::new(Expr::Int("0".into())),
        );
        let forall = Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound: vec![("j".into(), Type::Int)],
            triggers: vec![vec![select]],
            body: Box::new(body),
        };
        assert_eq!(
            forall.to_string(),
            "(forall j: int :: {Heap_a[j]} (Heap_a[j] >= 0))"
        );
        let call = Expr::Call(
            "binom".into(),
            vec![Expr::Var("n".into()), Expr::Bool(true)],
        );
        let ite = Expr::IfThenElse(
            var("c"),
            Box::new(call),
            Box::new(Expr::Unary(UnaryOp::Neg, var("x"))),
        );
        assert_eq!(ite.to_string(), "(if c then binom(n, true) else (-x))");
    }
}
