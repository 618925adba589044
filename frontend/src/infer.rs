//! The permissions lockstep infers for a kernel that names none ([`lockstep_logic::infer`]),
//! printed as annotations, ready to paste and extend.

use lockstep_logic::{
    Amount, Assertion, AssertionKind, BinaryOp, Block, Builtin, Clause, Expr, ExprKind, Kernel, Quantifier, StmtKind,
    UnaryOp,
};

/// The contract clauses of an inferred kernel, one line each, with where they stand: the
/// thread's `requires` and `ensures`, each barrier's `ensures` and each loop's invariants.
pub fn clauses(kernel: &Kernel) -> Vec<(String, String)> {
    let printer = Printer { kernel };
    let mut lines = Vec::new();
    for clause in &kernel.thread_contract.requires {
        lines.push(("kernel".to_string(), format!("requires {};", printer.assertion(&clause.assertion))));
    }
    for clause in &kernel.thread_contract.ensures {
        lines.push(("kernel".to_string(), format!("ensures {};", printer.assertion(&clause.assertion))));
    }
    for (id, barrier) in kernel.barriers.iter().enumerate() {
        for clause in &barrier.contract.ensures {
            lines.push((format!("barrier {id}"), format!("ensures {};", printer.assertion(&clause.assertion))));
        }
    }
    printer.loops(&kernel.body, &mut lines);
    lines
}

struct Printer<'k> {
    kernel: &'k Kernel,
}

impl Printer<'_> {
    fn loops(&self, block: &Block, lines: &mut Vec<(String, String)>) {
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::While { invariants, body, .. } => {
                    for Clause { assertion, .. } in invariants {
                        lines.push((
                            format!("loop at {}", stmt.span.start),
                            format!("loop_invariant {};", self.assertion(assertion)),
                        ));
                    }
                    self.loops(body, lines);
                }
                StmtKind::If { then_branch, else_branch, .. } => {
                    self.loops(then_branch, lines);
                    if let Some(block) = else_branch {
                        self.loops(block, lines);
                    }
                }
                StmtKind::Block(inner) => self.loops(inner, lines),
                _ => {}
            }
        }
    }

    fn assertion(&self, assertion: &Assertion) -> String {
        match &assertion.kind {
            AssertionKind::Pure(expr) => self.expr(expr),
            AssertionKind::Perm(atom) => {
                let amount = match &atom.amount {
                    Amount::Exact(value) if *value == num_rational::BigRational::from_integer(1.into()) => {
                        "write".to_string()
                    }
                    Amount::Exact(value) => value.to_string(),
                    Amount::Divided { fraction, divisor } => format!("{fraction} \\ {}", self.expr(divisor)),
                    Amount::Read => "read".to_string(),
                };
                format!("Perm({}[{}], {amount})", self.kernel.array(atom.array).name, self.expr(&atom.index))
            }
            AssertionKind::Star(lhs, rhs) => format!("{} ** {}", self.assertion(lhs), self.assertion(rhs)),
            AssertionKind::Implies(cond, body) => format!("({} ==> {})", self.expr(cond), self.assertion(body)),
            AssertionKind::Cond(cond, lhs, rhs) => {
                format!("({} ? {} : {})", self.expr(cond), self.assertion(lhs), self.assertion(rhs))
            }
            AssertionKind::ForallStar { var, range, body } => format!(
                "(\\forall* int {}; {}; {})",
                self.kernel.var(*var).name,
                self.expr(range),
                self.assertion(body)
            ),
        }
    }

    fn expr(&self, expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Int(value) => value.to_string(),
            ExprKind::Bool(value) => value.to_string(),
            ExprKind::Builtin(builtin) => builtin_name(*builtin).to_string(),
            ExprKind::Var(var) => self.kernel.var(*var).name.clone(),
            ExprKind::Read { array, index } => format!("{}[{}]", self.kernel.array(*array).name, self.expr(index)),
            ExprKind::Unary { op: UnaryOp::Not, operand } => format!("!{}", self.expr(operand)),
            ExprKind::Unary { op: UnaryOp::Neg, operand } => format!("-{}", self.expr(operand)),
            ExprKind::Binary { op, lhs, rhs } => format!("({} {} {})", self.expr(lhs), operator(*op), self.expr(rhs)),
            ExprKind::Cond { cond, then_value, else_value } => {
                format!("({} ? {} : {})", self.expr(cond), self.expr(then_value), self.expr(else_value))
            }
            ExprKind::Call { function, args } => {
                let args: Vec<String> = args.iter().map(|arg| self.expr(arg)).collect();
                format!("f{}({})", function.0, args.join(", "))
            }
            ExprKind::Quantifier { quantifier, var, range, body } => {
                let word = match quantifier {
                    Quantifier::Forall => "\\forall",
                    Quantifier::Exists => "\\exists",
                };
                format!("({word} int {}; {}; {})", self.kernel.var(*var).name, self.expr(range), self.expr(body))
            }
            ExprKind::Sum { var, lower, upper, body } => format!(
                "\\sum(int {v}; {} <= {v} && {v} < {}; {})",
                self.expr(lower),
                self.expr(upper),
                self.expr(body),
                v = self.kernel.var(*var).name
            ),
            ExprKind::Old(inner) => format!("\\old({})", self.expr(inner)),
            ExprKind::Result => "\\result".to_string(),
            ExprKind::InRange { value, .. } => self.expr(value),
            ExprKind::PrivateIndex { index, .. } => self.expr(index),
        }
    }
}

fn builtin_name(builtin: Builtin) -> &'static str {
    builtin.name()
}

fn operator(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Rem => "%",
        BinaryOp::Mod => "mod",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::And => "&&",
        BinaryOp::Or => "||",
        BinaryOp::Implies => "==>",
    }
}
