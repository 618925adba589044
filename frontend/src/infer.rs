//! The contracts lockstep infers for the kernels of a file that name no permission
//! ([`lockstep_logic::infer`]), written into the file as annotations in its own language, ready to
//! paste and extend: the file is printed again with each inferred clause where that language puts
//! it. In PVL, the thread's `requires` and `ensures` before `void main()`, a barrier's clauses in
//! its block (`barrier(local) { ensures ...; }`), a loop's `invariant`s before it; in OpenCL C and
//! CUDA, `/*@ ... @*/` comments before the kernel, the barrier and the loop, with C's spellings
//! (`Perm(&a[i], write)`, `get_local_id(0)` or `threadIdx.x`, `%` for `mod`). Only what inference
//! added is written: the clauses the frontend generates itself come back when the file is read.

use std::cell::Cell;
use std::collections::HashMap;

use lockstep_logic::{
    Amount, Assertion, AssertionKind, Axis, BinaryOp, Block, Builtin, Clause, Expr, ExprKind, Kernel, Quantifier, Span,
    StmtKind, UnaryOp,
};

/// The language a file is annotated in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Pvl,
    OpenCl,
    Cuda,
}

impl Syntax {
    /// The language of the file at `path`, by its extension.
    pub fn of(path: &str) -> Syntax {
        match crate::c_dialect(path) {
            Some(crate::c::Dialect::OpenCl) => Syntax::OpenCl,
            Some(crate::c::Dialect::Cuda) => Syntax::Cuda,
            None => Syntax::Pvl,
        }
    }
}

/// The text of a file with the inferred clauses of its kernels written in: each kernel as
/// written, with the one inference gave it (`None` where it was verified as written).
pub fn annotated(text: &str, syntax: Syntax, kernels: &[(&Kernel, Option<&Kernel>)]) -> String {
    let mut edits: Vec<Edit> = Vec::new();
    let strides = match syntax {
        Syntax::Pvl => HashMap::new(),
        Syntax::OpenCl => crate::c::array_strides(text, crate::c::Dialect::OpenCl),
        Syntax::Cuda => crate::c::array_strides(text, crate::c::Dialect::Cuda),
    };
    let no_vectors = HashMap::new();
    for &(written, inferred) in kernels {
        let Some(inferred) = inferred else { continue };
        let strides = strides.get(&written.name).unwrap_or(&no_vectors);
        let printer = Printer { kernel: inferred, syntax, unspellable: Cell::new(false), strides };
        printer.contract(text, written, &mut edits);
        for (id, barrier) in inferred.barriers.iter().enumerate() {
            let contract = &barrier.contract;
            let clauses: Vec<String> = [(&contract.requires, "requires"), (&contract.ensures, "ensures")]
                .into_iter()
                .flat_map(|(clauses, keyword)| {
                    added(clauses, barrier.span).into_iter().map(move |clause| (clause, keyword))
                })
                .filter_map(|(clause, keyword)| printer.clause(keyword, clause))
                .collect();
            if !clauses.is_empty() {
                // Before the written postcondition that reads memory, which the inferred
                // permissions frame (inference put them there), else after the written clauses.
                let mut after_added = contract.ensures.iter().skip_while(|clause| !is_added(clause, barrier.span));
                let next = after_added.find(|clause| !is_added(clause, barrier.span));
                let written = &written.barriers[id].contract;
                let last = written.requires.iter().chain(&written.ensures).max_by_key(|clause| clause.span.end);
                let place = next.map_or(Place::After(last), Place::Before);
                printer.barrier(text, place, barrier.span, &clauses, &mut edits);
            }
        }
        printer.loops(text, &inferred.body, &mut edits);
    }
    // Applied from the end, so that each offset still names its place.
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.at));
    let mut out = text.to_string();
    for edit in edits {
        out.replace_range(edit.at..edit.at + edit.removed, &edit.inserted);
    }
    out
}

/// Where a barrier's inferred clauses go among its written ones: before one, or after the last.
#[derive(Clone, Copy)]
enum Place<'c> {
    Before(&'c Clause),
    After(Option<&'c Clause>),
}

/// Text inserted at an offset, in place of `removed` bytes.
struct Edit {
    at: usize,
    removed: usize,
    inserted: String,
}

/// The clauses inference added to a contract: those it placed in `place`, the span of what the
/// contract belongs to (an empty span there, which no written clause has).
fn added(clauses: &[Clause], place: Span) -> Vec<&Assertion> {
    clauses.iter().filter(|clause| is_added(clause, place)).map(|clause| &clause.assertion).collect()
}

fn is_added(clause: &Clause, place: Span) -> bool {
    clause.span.start == clause.span.end && place.start <= clause.span.start && clause.span.start <= place.end
}

/// Where the keyword of the clause whose span starts at `offset` stands: there (a PVL clause's
/// span starts with it), else the last `requires`, `ensures` or `context` before it.
fn keyword_before(text: &str, offset: usize) -> Option<usize> {
    let keywords = ["requires", "ensures", "context"];
    if keywords.iter().any(|keyword| text[offset..].starts_with(keyword)) {
        return Some(offset);
    }
    keywords.iter().filter_map(|keyword| text[..offset].rfind(keyword)).max()
}

/// The offset just after the `;` of the clause whose span ends at `end` (a clause's span may end
/// with its `;` or before it), if `text` has one there.
fn after_semicolon(text: &str, end: usize) -> Option<usize> {
    match text[..end].ends_with(';') {
        true => Some(end),
        false => text[end..].find(';').map(|semicolon| end + semicolon + 1),
    }
}

/// The start of the line that holds `offset`, and the whitespace before `offset` on it when only
/// whitespace stands there.
fn line_of(text: &str, offset: usize) -> (usize, Option<&str>) {
    let start = text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
    let before = &text[start..offset];
    (start, before.chars().all(char::is_whitespace).then_some(before))
}

struct Printer<'k> {
    kernel: &'k Kernel,
    syntax: Syntax,
    /// Whether what was printed names a variable the frontend made, which the source cannot
    /// spell (an inlined helper's `x@f1`, a `break`'s flag, the value an atomic increment returns,
    /// a cell of an array of vectors that is not one component of one vector).
    unspellable: Cell<bool>,
    /// The kernel's arrays of vectors, with the cells each vector takes.
    strides: &'k HashMap<String, u32>,
}

impl Printer<'_> {
    /// `keyword assertion;`, or nothing where the assertion names a variable the source cannot
    /// spell: such a clause is left out of what is printed (the frontend's own return flag is
    /// written `\returned`, which C annotations read).
    fn clause(&self, keyword: &str, assertion: &Assertion) -> Option<String> {
        self.unspellable.set(false);
        let printed = self.assertion(assertion);
        (!self.unspellable.get()).then(|| format!("{keyword} {printed};"))
    }

    /// The thread's inferred `requires` and `ensures`, where inference put them: each run of
    /// them before the first written clause that follows it (one that reads memory, which they
    /// frame, or, for permissions named through memory, that bounds what they read), else after
    /// the written ones.
    fn contract(&self, text: &str, written: &Kernel, edits: &mut Vec<Edit>) {
        let contract = &self.kernel.thread_contract;
        let mut lines = Vec::new();
        let start = Span::new(written.span.start, written.span.start);
        let runs = [(&contract.requires, "requires"), (&contract.ensures, "ensures")].into_iter().flat_map(
            |(clauses, keyword)| {
                let inferred: Vec<usize> = (0..clauses.len()).filter(|&at| clauses[at].span == start).collect();
                let mut runs: Vec<(&[Clause], usize, usize, &str)> = Vec::new();
                for at in inferred {
                    match runs.last_mut() {
                        Some((_, _, end, _)) if *end == at => *end = at + 1,
                        _ => runs.push((&clauses[..], at, at + 1, keyword)),
                    }
                }
                runs
            },
        );
        for (clauses, first, end, keyword) in runs {
            let printed: Vec<String> =
                clauses[first..end].iter().filter_map(|clause| self.clause(keyword, &clause.assertion)).collect();
            // In C, only a clause of the comment before the kernel: the frontend's own clauses
            // (the launch's limit, the parameters' types) stand at the kernel's signature.
            let (kernel_line, _) = line_of(text, written.span.start);
            let in_text = |clause: &&Clause| self.syntax == Syntax::Pvl || clause.span.end <= kernel_line;
            let next = clauses[end..].iter().find(in_text);
            match next.and_then(|clause| keyword_before(text, clause.span.start)) {
                Some(at) => {
                    let (_, indent) = line_of(text, at);
                    let separator = match indent {
                        Some(indent) => format!("\n{indent}"),
                        None => " ".to_string(),
                    };
                    let inserted: String = printed.iter().map(|line| format!("{line}{separator}")).collect();
                    edits.push(Edit { at, removed: 0, inserted });
                }
                None => lines.extend(printed),
            }
        }
        if lines.is_empty() {
            return;
        }
        match self.syntax {
            // Before `void main()`, indented as it is.
            Syntax::Pvl => {
                let Some(main) = text[written.span.start..].find("void main").map(|at| written.span.start + at) else {
                    return;
                };
                let (start, indent) = line_of(text, main);
                let indent = indent.unwrap_or("  ");
                let inserted: String = lines.iter().map(|line| format!("{indent}{line}\n")).collect();
                edits.push(Edit { at: start, removed: 0, inserted });
            }
            Syntax::OpenCl | Syntax::Cuda => {
                let (kernel_line, _) = line_of(text, written.span.start);
                // Into the comment before the kernel, after its last clause, when it has one: a
                // second comment there would belong to nothing.
                let last_written = contract
                    .requires
                    .iter()
                    .chain(&contract.ensures)
                    .filter(|clause| clause.span.start != written.span.start && clause.span.end <= kernel_line)
                    .map(|clause| clause.span.end)
                    .max()
                    .and_then(|end| after_semicolon(&text[..kernel_line], end));
                match last_written {
                    Some(at) => {
                        let inserted: String = lines.iter().map(|line| format!("\n  {line}")).collect();
                        edits.push(Edit { at, removed: 0, inserted });
                    }
                    None => {
                        let inserted: String = lines.iter().map(|line| format!("  {line}\n")).collect();
                        edits.push(Edit { at: kernel_line, removed: 0, inserted: format!("/*@\n{inserted}@*/\n") });
                    }
                }
            }
        }
    }

    /// A barrier's inferred clauses: in PVL into its block at `place` (the block made from its `;`
    /// when it has none), in C in a comment before it.
    fn barrier(&self, text: &str, place: Place, span: Span, clauses: &[String], edits: &mut Vec<Edit>) {
        let (_, indent) = line_of(text, span.start);
        match self.syntax {
            Syntax::Pvl => {
                let indent = indent.unwrap_or("");
                let Some(close) = text[span.start..].find(')').map(|at| span.start + at + 1) else { return };
                let rest = &text[close..];
                let gap = rest.len() - rest.trim_start().len();
                let at = close + gap;
                let lines: String = clauses.iter().map(|clause| format!("\n{indent}  {clause}")).collect();
                let block = rest.trim_start().starts_with('{');
                if let (true, Place::Before(next)) = (block, place) {
                    let Some(keyword) = keyword_before(text, next.span.start) else { return };
                    let inserted: String = clauses.iter().map(|clause| format!("{clause}\n{indent}  ")).collect();
                    edits.push(Edit { at: keyword, removed: 0, inserted });
                } else if let (true, Place::After(last)) = (block, place) {
                    let after = last.and_then(|clause| after_semicolon(text, clause.span.end)).unwrap_or(at + 1);
                    edits.push(Edit { at: after, removed: 0, inserted: lines });
                } else if rest.trim_start().starts_with(';') {
                    edits.push(Edit { at, removed: 1, inserted: format!(" {{{lines}\n{indent}}}") });
                }
            }
            Syntax::OpenCl | Syntax::Cuda => edits.push(self.comment_before(span.start, indent, clauses)),
        }
    }

    /// A comment of clauses before the construct at `at`: on lines of its own when only
    /// whitespace stands before it on its line, else on its line.
    fn comment_before(&self, at: usize, indent: Option<&str>, clauses: &[String]) -> Edit {
        let inserted = match indent {
            Some(indent) => {
                let lines: String = clauses.iter().map(|clause| format!("{indent}  {clause}\n")).collect();
                format!("/*@\n{lines}{indent}@*/\n{indent}")
            }
            None => format!("/*@ {} @*/ ", clauses.join(" ")),
        };
        Edit { at, removed: 0, inserted }
    }

    /// Each loop's inferred invariants, before it.
    fn loops(&self, text: &str, block: &Block, edits: &mut Vec<Edit>) {
        for stmt in &block.stmts {
            match &stmt.kind {
                StmtKind::While { invariants, body, .. } => {
                    let keyword = match self.syntax {
                        Syntax::Pvl => "invariant",
                        Syntax::OpenCl | Syntax::Cuda => "loop_invariant",
                    };
                    let clauses: Vec<String> = added(invariants, stmt.span)
                        .into_iter()
                        .filter_map(|assertion| self.clause(keyword, assertion))
                        .collect();
                    if !clauses.is_empty() {
                        let (start, indent) = line_of(text, stmt.span.start);
                        match (self.syntax, indent) {
                            (Syntax::Pvl, Some(indent)) => {
                                let inserted: String =
                                    clauses.iter().map(|clause| format!("{indent}{clause}\n")).collect();
                                edits.push(Edit { at: start, removed: 0, inserted });
                            }
                            (Syntax::Pvl, None) => edits.push(Edit {
                                at: stmt.span.start,
                                removed: 0,
                                inserted: format!("{} ", clauses.join(" ")),
                            }),
                            (Syntax::OpenCl | Syntax::Cuda, indent) => {
                                edits.push(self.comment_before(stmt.span.start, indent, &clauses))
                            }
                        }
                    }
                    self.loops(text, body, edits);
                }
                StmtKind::If { then_branch, else_branch, .. } => {
                    self.loops(text, then_branch, edits);
                    if let Some(block) = else_branch {
                        self.loops(text, block, edits);
                    }
                }
                StmtKind::Block(inner) => self.loops(text, inner, edits),
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
                format!("Perm({}, {amount})", self.location(&self.kernel.array(atom.array).name, &atom.index))
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

    /// A cell as a permission names it: `a[i]` in PVL, `&a[i]` in C (`&s[i].f` for the field
    /// `f` of an array of structs, whose array the kernel calls `s.f`).
    fn location(&self, array: &str, index: &Expr) -> String {
        match self.syntax {
            Syntax::Pvl => format!("{array}[{}]", self.expr(index)),
            Syntax::OpenCl | Syntax::Cuda => format!("&{}", self.cell(array, index)),
        }
    }

    /// A cell of an array as C code names it: `a[i]`, `s[i].f` for the field `f` of an array of
    /// structs (whose array the kernel calls `s.f`), `v[i].y` for a component of an array of
    /// vectors (whose cells the kernel numbers `i * stride + k`).
    fn cell(&self, array: &str, index: &Expr) -> String {
        if let Some((base, field)) = array.split_once('.') {
            return format!("{base}[{}].{field}", self.expr(index));
        }
        let Some(&stride) = self.strides.get(array) else { return format!("{array}[{}]", self.expr(index)) };
        let times_stride = |expr: &Expr| match &expr.kind {
            ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } if matches!(&rhs.kind, ExprKind::Int(s) if *s == stride.into()) => {
                Some((**lhs).clone())
            }
            _ => None,
        };
        let (vector, component) = match &index.kind {
            ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } => match (times_stride(lhs), &rhs.kind) {
                (Some(vector), ExprKind::Int(k)) => (Some(vector), u32::try_from(k).ok().filter(|k| *k < stride)),
                _ => (None, None),
            },
            _ => (times_stride(index), Some(0)),
        };
        match (vector, component) {
            (Some(vector), Some(k)) => {
                format!("{array}[{}].{}", self.expr(&vector), crate::c::component_in_annotation(k))
            }
            _ => {
                self.unspellable.set(true);
                format!("{array}[{}]", self.expr(index))
            }
        }
    }

    fn expr(&self, expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Int(value) => value.to_string(),
            ExprKind::Bool(value) => value.to_string(),
            ExprKind::Builtin(builtin) => self.builtin(*builtin),
            ExprKind::Var(var) => {
                let name = &self.kernel.var(*var).name;
                if name.starts_with("\\return@") {
                    "\\returned".to_string()
                } else {
                    self.unspellable.set(self.unspellable.get() || name.contains('@'));
                    name.clone()
                }
            }
            ExprKind::Read { array, index } => match self.syntax {
                Syntax::OpenCl | Syntax::Cuda => self.cell(&self.kernel.array(*array).name, index),
                Syntax::Pvl => format!("{}[{}]", self.kernel.array(*array).name, self.expr(index)),
            },
            ExprKind::Unary { op: UnaryOp::Not, operand } => format!("!{}", self.expr(operand)),
            ExprKind::Unary { op: UnaryOp::Neg, operand } => format!("-{}", self.expr(operand)),
            ExprKind::Binary { op, lhs, rhs } => {
                format!("({} {} {})", self.expr(lhs), self.operator(*op), self.expr(rhs))
            }
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
            // An increment's value has no name in the language.
            ExprKind::Ticket { counter, cell, site, .. } => {
                self.unspellable.set(true);
                format!("\\ticket({}, {}, {site})", self.kernel.array(*counter).name, self.expr(cell))
            }
        }
    }

    /// A launch builtin as the language names it. C has no name for the linear group id, the
    /// group size or the thread count of a launch of several axes: they are written from the
    /// axes' ids and sizes.
    fn builtin(&self, builtin: Builtin) -> String {
        let axes = &Axis::ALL[..self.kernel.dimensions];
        let per_axis = |builtin: fn(Axis) -> Builtin| -> Vec<String> {
            axes.iter().map(|&axis| self.builtin(builtin(axis))).collect()
        };
        let product = |factors: Vec<String>| format!("({})", factors.join(" * "));
        let c_axis = |axis: Axis| axis as usize;
        let cuda_axis = |axis: Axis| ["x", "y", "z"][axis as usize];
        match (self.syntax, builtin) {
            (Syntax::Pvl, builtin) => builtin.name().to_string(),
            (_, Builtin::Tid) => "\\gtid".to_string(),
            (_, Builtin::Lid) => "\\ltid".to_string(),
            (Syntax::OpenCl, Builtin::LocalId(axis)) => format!("get_local_id({})", c_axis(axis)),
            (Syntax::OpenCl, Builtin::GroupId(axis)) => format!("get_group_id({})", c_axis(axis)),
            (Syntax::OpenCl, Builtin::GroupSize(axis)) => format!("get_local_size({})", c_axis(axis)),
            (Syntax::OpenCl, Builtin::Groups(axis)) => format!("get_num_groups({})", c_axis(axis)),
            (Syntax::Cuda, Builtin::LocalId(axis)) => format!("threadIdx.{}", cuda_axis(axis)),
            (Syntax::Cuda, Builtin::GroupId(axis)) => format!("blockIdx.{}", cuda_axis(axis)),
            (Syntax::Cuda, Builtin::GroupSize(axis)) => format!("blockDim.{}", cuda_axis(axis)),
            (Syntax::Cuda, Builtin::Groups(axis)) => format!("gridDim.{}", cuda_axis(axis)),
            (_, Builtin::Gsize) => product(per_axis(Builtin::GroupSize)),
            (_, Builtin::Tcount) => {
                let mut factors = per_axis(Builtin::GroupSize);
                factors.extend(per_axis(Builtin::Groups));
                product(factors)
            }
            // The linear group id: the axes' group ids in mixed radix, x fastest.
            (_, Builtin::Gid) => {
                let mut linear = String::new();
                for &axis in axes.iter().rev() {
                    let id = self.builtin(Builtin::GroupId(axis));
                    linear = if linear.is_empty() {
                        id
                    } else {
                        format!("({linear} * {} + {id})", self.builtin(Builtin::Groups(axis)))
                    };
                }
                linear
            }
        }
    }

    fn operator(&self, op: BinaryOp) -> &'static str {
        match op {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            // C's annotations have no `mod`: `%` is the same for a dividend that is not negative,
            // and `x % d == 0` is `x mod d == 0` for any. Elsewhere the pasted contract is checked
            // as it reads, so a difference can make it fail, never hold wrongly.
            BinaryOp::Mod if self.syntax != Syntax::Pvl => "%",
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
}
