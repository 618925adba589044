//! Boogie text for IVL programs.
//!
//! The output is deterministic, byte for byte, and reads back through [`super::parse`] as the same
//! program: every compound expression is parenthesised, so nothing depends on Boogie's precedence
//! table, and literals print in forms the parser folds back (`(-3)`, `(1.0 / 10.0)`).

use super::*;
use num_traits::{One, Signed};
use std::fmt::{self, Write};

/// The Boogie text of a whole program.
pub fn program(program: &Program) -> String {
    let mut out = String::new();
    for (index, declaration) in program.declarations.iter().enumerate() {
        // A blank line around procedures, none between one-line declarations.
        let spaced = matches!(declaration, Declaration::Procedure(_));
        let after_procedure = index > 0 && matches!(program.declarations[index - 1], Declaration::Procedure(_));
        if index > 0 && (spaced || after_procedure) {
            out.push('\n');
        }
        write_declaration(&mut out, declaration);
    }
    out
}

fn write_declaration(out: &mut String, declaration: &Declaration) {
    match declaration {
        Declaration::Const(binding) => writeln!(out, "const {};", binding_text(binding)),
        Declaration::Var(binding) => writeln!(out, "var {};", binding_text(binding)),
        Declaration::Axiom(expr) => writeln!(out, "axiom {expr};"),
        Declaration::Lemma(expr) => writeln!(out, "axiom {{:ground}} {expr};"),
        Declaration::Function(function) => {
            let params = bindings_text(&function.params);
            match &function.body {
                Some(body) => writeln!(out, "function {}({params}): {} {{ {body} }}", function.name, function.result),
                None => writeln!(out, "function {}({params}): {};", function.name, function.result),
            }
        }
        Declaration::Procedure(procedure) => {
            write_procedure(out, procedure);
            Ok(())
        }
    }
    .expect("writing to a String cannot fail");
}

fn binding_text(binding: &Binding) -> String {
    format!("{}: {}", binding.name, binding.ty)
}

fn bindings_text(bindings: &[Binding]) -> String {
    bindings.iter().map(binding_text).collect::<Vec<_>>().join(", ")
}

fn tag_text(tag: &Option<String>) -> String {
    match tag {
        // Boogie strings have no escapes: a quote or a line break would end the attribute.
        Some(tag) => format!("{{:tag \"{}\"}} ", tag.replace(['"', '\n', '\r'], "'")),
        None => String::new(),
    }
}

fn spec_text(keyword: &str, spec: &Spec) -> String {
    let free = if spec.free { "free " } else { "" };
    let proved_by = if spec.proved_by.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = spec.proved_by.iter().map(|name| format!("\"{name}\"")).collect();
        format!("{{:proved_by {}}} ", names.join(", "))
    };
    format!("{free}{keyword} {}{proved_by}{};", tag_text(&spec.tag), spec.expr)
}

fn write_procedure(out: &mut String, procedure: &Procedure) {
    let returns = if procedure.returns.is_empty() {
        String::new()
    } else {
        format!(" returns ({})", bindings_text(&procedure.returns))
    };
    let header_end = if procedure.body.is_some() { "" } else { ";" };
    out.push_str(&format!("procedure {}({}){returns}{header_end}\n", procedure.name, bindings_text(&procedure.params)));
    for spec in &procedure.requires {
        out.push_str(&format!("  {}\n", spec_text("requires", spec)));
    }
    if !procedure.modifies.is_empty() {
        out.push_str(&format!("  modifies {};\n", procedure.modifies.join(", ")));
    }
    for spec in &procedure.ensures {
        out.push_str(&format!("  {}\n", spec_text("ensures", spec)));
    }
    if let Some(body) = &procedure.body {
        out.push_str("{\n");
        for local in &body.locals {
            out.push_str(&format!("  var {};\n", binding_text(local)));
        }
        if !body.locals.is_empty() && !body.stmts.is_empty() {
            out.push('\n');
        }
        write_stmts(out, &body.stmts, 1);
        out.push_str("}\n");
    }
}

fn indent(out: &mut String, depth: usize) {
    out.push_str(&"  ".repeat(depth));
}

fn condition_text(cond: &Option<Expr>) -> String {
    match cond {
        Some(cond) => cond.to_string(),
        None => "*".to_string(),
    }
}

fn write_stmts(out: &mut String, stmts: &[Stmt], depth: usize) {
    for stmt in stmts {
        write_stmt(out, stmt, depth);
    }
}

fn write_stmt(out: &mut String, stmt: &Stmt, depth: usize) {
    indent(out, depth);
    match &stmt.kind {
        StmtKind::Assign { target, indices, value } => {
            let indices: String = indices.iter().map(|index| format!("[{index}]")).collect();
            out.push_str(&format!("{target}{indices} := {value};\n"));
        }
        StmtKind::Havoc(names) => out.push_str(&format!("havoc {};\n", names.join(", "))),
        StmtKind::Assume(expr) => out.push_str(&format!("assume {expr};\n")),
        StmtKind::Assert { expr, tag, assumed } => {
            let subsumption = if *assumed { "" } else { "{:subsumption 0} " };
            out.push_str(&format!("assert {subsumption}{}{expr};\n", tag_text(tag)))
        }
        StmtKind::If { cond, then_branch, else_branch } => {
            out.push_str(&format!("if ({}) {{\n", condition_text(cond)));
            write_stmts(out, then_branch, depth + 1);
            indent(out, depth);
            if else_branch.is_empty() {
                out.push_str("}\n");
            } else {
                out.push_str("} else {\n");
                write_stmts(out, else_branch, depth + 1);
                indent(out, depth);
                out.push_str("}\n");
            }
        }
        StmtKind::While { cond, invariants, body } => {
            out.push_str(&format!("while ({})\n", condition_text(cond)));
            for invariant in invariants {
                indent(out, depth + 1);
                out.push_str(&format!("{}\n", spec_text("invariant", invariant)));
            }
            indent(out, depth);
            out.push_str("{\n");
            write_stmts(out, body, depth + 1);
            indent(out, depth);
            out.push_str("}\n");
        }
        StmtKind::Call { targets, procedure, args } => {
            let targets = if targets.is_empty() { String::new() } else { format!("{} := ", targets.join(", ")) };
            let args: Vec<String> = args.iter().map(Expr::to_string).collect();
            out.push_str(&format!("call {targets}{procedure}({});\n", args.join(", ")));
        }
    }
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

fn write_list(f: &mut fmt::Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for (position, item) in items.iter().enumerate() {
        if position > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(value) if value.is_negative() => write!(f, "(-{})", -value),
            Expr::Int(value) => write!(f, "{value}"),
            Expr::Real(value) => {
                let sign = if value.is_negative() { "-" } else { "" };
                let magnitude = value.abs();
                match (sign, magnitude.denom().is_one()) {
                    ("", true) => write!(f, "{}.0", magnitude.numer()),
                    (_, true) => write!(f, "(-{}.0)", magnitude.numer()),
                    _ => write!(f, "({sign}{}.0 / {}.0)", magnitude.numer(), magnitude.denom()),
                }
            }
            Expr::Bool(value) => write!(f, "{value}"),
            Expr::Var(name) => f.write_str(name),
            Expr::Unary(UnaryOp::Not, operand) => write!(f, "(!{operand})"),
            Expr::Unary(UnaryOp::Neg, operand) => write!(f, "(-{operand})"),
            Expr::Binary(op, lhs, rhs) => write!(f, "({lhs} {} {rhs})", op.boogie()),
            Expr::Select(map, index) => write!(f, "{map}[{index}]"),
            Expr::Store(map, index, value) => write!(f, "{map}[{index} := {value}]"),
            Expr::Call(function, args) => {
                write!(f, "{function}(")?;
                write_list(f, args)?;
                f.write_str(")")
            }
            Expr::IfThenElse(cond, then_value, else_value) => {
                write!(f, "(if {cond} then {then_value} else {else_value})")
            }
            Expr::Old(value) => write!(f, "old({value})"),
            Expr::Lambda { bound, body } => write!(f, "(lambda {}: {} :: {body})", bound.name, bound.ty),
            Expr::Quantified { quantifier, bound, triggers, body } => {
                let keyword = match quantifier {
                    Quantifier::Forall => "forall",
                    Quantifier::Exists => "exists",
                };
                write!(f, "({keyword} {} ::", bindings_text(bound))?;
                for trigger in triggers {
                    f.write_str(" {")?;
                    write_list(f, trigger)?;
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
        Box::new(Expr::var(name))
    }

    #[test]
    fn types_print_as_boogie() {
        let heap = Type::map(Type::Int, Type::Int);
        let mask = Type::map(Type::Int, Type::Real);
        assert_eq!(format!("{heap} {mask} {}", Type::Bool), "[int]int [int]real bool");
    }

    #[test]
    fn expressions_are_fully_parenthesised() {
        let select = Expr::select(Expr::var("Mask_a"), Expr::var("i"));
        let half = Expr::Real(BigRational::new(1.into(), 2.into()));
        let less = Expr::binary(BinaryOp::Sub, select, half);
        let store = Expr::Store(var("Mask_a"), var("i"), Box::new(less));
        assert_eq!(store.to_string(), "Mask_a[i := (Mask_a[i] - (1.0 / 2.0))]");
        let negative = Expr::binary(BinaryOp::Mod, Expr::int(-1), Expr::var("gsize"));
        assert_eq!(negative.to_string(), "((-1) mod gsize)");
        assert_eq!(Expr::Real(BigRational::new((-3).into(), 1.into())).to_string(), "(-3.0)");
        assert_eq!(Expr::Real(BigRational::new((-1).into(), 10.into())).to_string(), "(-1.0 / 10.0)");
    }

    #[test]
    fn quantifiers_print_their_triggers() {
        let select = Expr::select(Expr::var("Heap_a"), Expr::var("j"));
        let body = Expr::binary(BinaryOp::Ge, select.clone(), Expr::int(0));
        let forall = Expr::Quantified {
            quantifier: Quantifier::Forall,
            bound: vec![Binding::new("j", Type::Int)],
            triggers: vec![vec![select]],
            body: Box::new(body),
        };
        assert_eq!(forall.to_string(), "(forall j: int :: {Heap_a[j]} (Heap_a[j] >= 0))");
        let call = Expr::Call("binom".into(), vec![Expr::var("n"), Expr::Bool(true)]);
        let ite = Expr::IfThenElse(var("c"), Box::new(call), Box::new(Expr::Unary(UnaryOp::Neg, var("x"))));
        assert_eq!(ite.to_string(), "(if c then binom(n, true) else (-x))");
    }
}
