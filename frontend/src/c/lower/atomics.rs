//! Atomic operations (`atomic_add`, `atom_inc`, CUDA's `atomicAdd`, ...): a read of the cell the
//! pointer points to, and a write of the new value, which the call returns the old one of.
//!
//! lockstep reads an atomic operation as that read and write by one thread, holding write
//! permission on the cell: so two threads' atomics on one cell are reported as a conflict of
//! permissions, as their plain writes would be. That is sound and incomplete: a kernel whose
//! threads count into one cell atomically does not verify (VerCors proves such kernels with
//! invariants of atomic blocks, which lockstep does not have). The new value is C's: arithmetic
//! wraps in the cell's type; `and`, `or` and `xor` give an arbitrary value of the type, as does
//! arithmetic on a floating-point cell.
//!
//! An array that the kernel reaches only through atomic operations (no plain read or write, no
//! annotation, no other use of its name) and whose length nothing states is read otherwise: no
//! two of its accesses can race, as each is atomic, and nothing reads it but the atomics, whose
//! old values are then arbitrary. Such an atomic needs no permission and touches no cell in the
//! lowered kernel (so `run` does not show its effect on that array), as GPUVerify reads a
//! histogram's or a counter's atomics. An array the kernel also reads or writes plainly keeps
//! the reading above, where its atomics and its plain accesses are checked against each other.
//!
//! Of those arrays, a *counter* is one whose every atomic operation is an increment
//! (`atomic_inc`, `atom_inc`, or adding the literal 1, as CUDA's `atomicAdd(p, 1)`) outside any
//! loop, so that each runs at most once per thread. Increments of one counter cell return
//! distinct values, whatever the cell held and whatever order they run in, as long as there are
//! no more of them than the counter's type has values: GPUVerify's refined atomic abstraction.
//! Each is lowered to [`surface::ExprKind::Ticket`]: the value of the thread's `k`-th increment
//! site of that counter, known to differ from every other thread's and site's (in global memory;
//! in local memory, from those of the thread's group, which has its own copy), with the launch
//! promising `sites * tcount <= 2^N` (`gsize` for local memory) for an `N`-bit counter. So a
//! counter handing out slots (`out[atomic_inc(next)] = x`) is race-free. A counter in local
//! memory may also be used otherwise (one thread resetting it) before a barrier of the body that
//! fences local memory and precedes every increment: the group's increments then all follow the
//! reset, and nothing else touches the cell while they run. An increment in a loop, or a counter
//! also decremented, added to, exchanged or read after counting, keeps the reading above.

use super::{Lengths, Lowerer, Place, Storage};
use crate::c::ast;
use crate::c::integers::{self, CType, Value};
use crate::pvl::ast as surface;
use lockstep_logic::{MachineInt, Span};
use num_bigint::BigInt;
use num_traits::One;
use std::collections::{HashMap, HashSet};

/// What an atomic operation computes from the old value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Update {
    Add,
    Sub,
    Increment,
    Decrement,
    Exchange,
    Min,
    Max,
    /// `cmpxchg(p, compare, value)`: `value` where the old value is `compare`.
    CompareExchange,
    /// CUDA's `atomicInc(p, limit)`: `old >= limit ? 0 : old + 1`.
    WrappingIncrement,
    /// CUDA's `atomicDec(p, limit)`: `old == 0 || old > limit ? limit : old - 1`.
    WrappingDecrement,
    /// `and`, `or`, `xor`: an arbitrary value of the cell's type.
    Bitwise,
}

/// The atomic operation a function name calls, with the number of arguments after the pointer.
fn update(name: &str) -> Option<(Update, usize)> {
    let operation = name
        .strip_prefix("atomic_")
        .or_else(|| name.strip_prefix("atom_"))
        .map(str::to_string)
        .or_else(|| name.strip_prefix("atomic").filter(|rest| !rest.is_empty()).map(str::to_lowercase))?;
    let cuda = name.starts_with("atomic") && !name.starts_with("atomic_");
    Some(match operation.as_str() {
        "add" => (Update::Add, 1),
        "sub" => (Update::Sub, 1),
        "inc" if cuda => (Update::WrappingIncrement, 1),
        "dec" if cuda => (Update::WrappingDecrement, 1),
        "inc" => (Update::Increment, 0),
        "dec" => (Update::Decrement, 0),
        "xchg" | "exch" => (Update::Exchange, 1),
        "min" => (Update::Min, 1),
        "max" => (Update::Max, 1),
        "cmpxchg" | "cas" => (Update::CompareExchange, 2),
        "and" | "or" | "xor" => (Update::Bitwise, 1),
        _ => return None,
    })
}

/// Whether `name` is an atomic operation lockstep reads.
pub(super) fn is_atomic(name: &str) -> bool {
    update(name).is_some()
}

impl<'f> Lowerer<'f> {
    /// An atomic operation: the statements that read the old value into a variable and write the
    /// new one, and the old value.
    pub(super) fn atomic(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<(Vec<surface::Stmt>, Value)> {
        let (update, operands) = update(name)?;
        let Some((pointer, rest)) = args.split_first().filter(|(_, rest)| rest.len() == operands) else {
            self.argument_count(name, operands + 1, args.len(), span);
            return None;
        };
        let pointer = self.points_into(pointer, "an atomic operation on this pointer", lengths)?;
        let element = pointer.element;
        if element == CType::Bool {
            self.unsupported(span, "an atomic operation on a `bool` array", "keep the flags in an integer array");
            return None;
        }
        let mut values = Vec::new();
        for operand in rest {
            let value = self.typed(operand, Place::Code, lengths)?;
            values.push(self.convert(value, element, Place::Code, operand.span)?);
        }
        let (storage, index) = self.pointed_cell(&pointer, span)?;
        if let (Storage::Memory(array), CType::Int(int), true) = (&storage, element, is_increment(name, args)) {
            if self.counters.contains(array) {
                return self.ticket(array, index, int, span).map(|ticket| (Vec::new(), ticket));
            }
        }
        if matches!(&storage, Storage::Memory(array) if self.atomic_only.contains(array)) {
            let outer = self.before.replace(Vec::new());
            let old = self.arbitrary(element, Vec::new(), Place::Code, span);
            let stmts = std::mem::replace(&mut self.before, outer).unwrap_or_default();
            return Some((stmts, old?));
        }
        if storage == Storage::Null {
            // Through the null pointer: the access fails, and the old value is arbitrary.
            let (access, old_name) = self.null_access(index, span)?;
            let old = self.node(surface::ExprKind::Name(old_name), span)?;
            return Some((
                vec![self.surface_stmt(access, span)?],
                Value { expr: old, ty: element, interval: element.interval() },
            ));
        }
        let array =
            self.shared_array(storage, "an atomic operation on private memory", "update the variable itself", span)?;
        // `old = a[i];`
        self.fresh += 1;
        let old_name = format!("\\old@{name}{}", self.fresh);
        let read =
            self.node(surface::ExprKind::Index { array: array.clone(), index: Box::new(index.clone()) }, span)?;
        let declare = surface::StmtKind::Declare {
            ty: element.surface(),
            ty_span: span,
            name: surface::Ident { name: old_name.clone(), span },
            init: Some(read),
        };
        let mut stmts = vec![self.surface_stmt(declare, span)?];
        let old = Value {
            expr: self.node(surface::ExprKind::Name(old_name), span)?,
            ty: element,
            interval: element.interval(),
        };
        // `a[i] = new;` (an arbitrary new value is declared before the statement).
        let outer = self.before.replace(Vec::new());
        let new = self.updated(update, old.clone(), values, span);
        let before = std::mem::replace(&mut self.before, outer).unwrap_or_default();
        stmts.extend(before);
        let write = surface::StmtKind::Write { target: array, index, value: new?.expr };
        stmts.push(self.surface_stmt(write, span)?);
        Some((stmts, old))
    }

    /// The value an increment of the counter `array[index]` returns: the next site of the
    /// counter's ([`surface::ExprKind::Ticket`]). It touches no cell of the lowered kernel.
    fn ticket(&mut self, array: &str, index: surface::Expr, int: MachineInt, span: Span) -> Option<Value> {
        let sites = self.counter_sites.entry(array.to_string()).or_insert((0, int));
        let site = sites.0;
        sites.0 += 1;
        let counter = surface::Ident { name: array.to_string(), span };
        let kind = surface::ExprKind::Ticket { counter, cell: Box::new(index), site, int };
        let expr = self.node(kind, span)?;
        let ty = CType::Int(int);
        Some(Value { expr, ty, interval: ty.interval() })
    }

    /// An atomic operation inside an expression: it runs before the statement, once, so not where
    /// the expression may not run or may run again.
    pub(super) fn atomic_in_expression(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<Value> {
        let atomic =
            |lowerer: &mut Self| lowerer.atomic(name, args, span, lengths).map(|(stmts, old)| (stmts, Some(old)));
        self.effect_in_expression(name, span, place, atomic)?
    }

    /// The value an atomic operation writes.
    fn updated(&mut self, update: Update, old: Value, mut values: Vec<Value>, span: Span) -> Option<Value> {
        let ty = old.ty;
        let CType::Int(_) = ty else {
            return match update {
                Update::Exchange => values.pop(),
                _ => self.arbitrary(ty, vec![old], Place::Code, span),
            };
        };
        let one = || Value {
            expr: surface::Expr::new(surface::ExprKind::Int(BigInt::one()), span).expect("a leaf"),
            ty,
            interval: integers::Interval::new(1, 1),
        };
        let compare = |lowerer: &mut Self, op, lhs: &Value, rhs: &Value| {
            lowerer.binary(op, lhs.expr.clone(), rhs.expr.clone(), span)
        };
        let choose = |lowerer: &mut Self, cond: surface::Expr, then_value: surface::Expr, else_value: surface::Expr| {
            let kind = surface::ExprKind::Cond {
                cond: Box::new(cond),
                then_value: Box::new(then_value),
                else_value: Box::new(else_value),
            };
            lowerer.node(kind, span).map(|expr| Value { expr, ty, interval: ty.interval() })
        };
        match update {
            Update::Add | Update::Sub | Update::Increment | Update::Decrement | Update::WrappingIncrement => {
                let operand = match update {
                    Update::Add | Update::Sub => values.pop()?,
                    _ => one(),
                };
                let op = if matches!(update, Update::Sub | Update::Decrement) {
                    surface::BinaryOp::Sub
                } else {
                    surface::BinaryOp::Add
                };
                let wrapped = self.wrapped(op, &old, &operand, span)?;
                if update != Update::WrappingIncrement {
                    return Some(wrapped);
                }
                let limit = values.pop()?;
                let at_limit = compare(self, surface::BinaryOp::Ge, &old, &limit)?;
                let zero = self.int(0, span)?;
                choose(self, at_limit, zero, wrapped.expr)
            }
            Update::WrappingDecrement => {
                let limit = values.pop()?;
                let zero = self.int(0, span)?;
                let is_zero = self.binary(surface::BinaryOp::Eq, old.expr.clone(), zero, span)?;
                let above = compare(self, surface::BinaryOp::Gt, &old, &limit)?;
                let wraps = self.binary(surface::BinaryOp::Or, is_zero, above, span)?;
                let decremented = self.wrapped(surface::BinaryOp::Sub, &old, &one(), span)?;
                choose(self, wraps, limit.expr, decremented.expr)
            }
            Update::Exchange => values.pop(),
            Update::Min | Update::Max => {
                let value = values.pop()?;
                let op = if update == Update::Min { surface::BinaryOp::Le } else { surface::BinaryOp::Ge };
                let keeps = compare(self, op, &old, &value)?;
                choose(self, keeps, old.expr, value.expr)
            }
            Update::CompareExchange => {
                let value = values.pop()?;
                let expected = values.pop()?;
                let equal = compare(self, surface::BinaryOp::Eq, &old, &expected)?;
                choose(self, equal, value.expr, old.expr)
            }
            Update::Bitwise => self.arbitrary(ty, vec![old], Place::Code, span),
        }
    }

    /// `old op operand` in the cell's type, wrapping as atomic arithmetic does (no overflow is
    /// undefined there).
    fn wrapped(&mut self, op: surface::BinaryOp, old: &Value, operand: &Value, span: Span) -> Option<Value> {
        let exact = self.binary(op, old.expr.clone(), operand.expr.clone(), span)?;
        let bound: BigInt = BigInt::one() << 65;
        let exact = Value { expr: exact, ty: old.ty, interval: integers::Interval::new(-bound.clone(), bound) };
        let integers = self.integers(Place::Code);
        self.checked(integers::convert(exact, old.ty, integers, span))
    }
}

/// How a kernel's code and contract use memory through atomic operations ([`atomic_uses`]).
pub(super) struct AtomicUses {
    /// The names used only as the pointer of atomic operations (`p`, `p + i`, `&p[i]`, `&x`):
    /// every other use of a name, in code or annotation, rules it out.
    pub(super) only: HashSet<String>,
    /// The counters: names whose every atomic operation is an increment outside any loop (so that
    /// each runs at most once per thread), and that are used only by atomic operations, or are in
    /// local memory and used otherwise only before a barrier of the body (outside branches and
    /// loops) that fences local memory and comes before every atomic operation on them (a counter
    /// reset by one thread before the group starts counting).
    pub(super) counters: HashSet<String>,
}

/// The uses of atomic operations in a kernel's body `stmts` and `contract`. `is_local` tells the
/// names of local memory, and `fences_local` the barrier statements that fence it.
pub(super) fn atomic_uses(
    stmts: &[ast::Stmt],
    contract: &[&ast::SpecClause],
    is_local: &dyn Fn(&str) -> bool,
    fences_local: &dyn Fn(&ast::Stmt) -> bool,
) -> AtomicUses {
    let mut uses = Uses::default();
    for clause in contract {
        if let ast::SpecClause::Clause { formula, .. } = clause {
            uses.expr(formula);
        }
    }
    // Positions: the contract's 0, the body's statements from 1 on.
    let mut barriers = Vec::new();
    for (index, stmt) in stmts.iter().enumerate() {
        uses.position = index + 1;
        if fences_local(stmt) {
            barriers.push(uses.position);
        }
        uses.stmts(std::slice::from_ref(stmt));
    }
    let Uses { atomic, plain, not_counted, .. } = uses;
    let only: HashSet<String> = atomic.keys().filter(|name| !plain.contains_key(*name)).cloned().collect();
    let reset_before = |name: &String| {
        let (last_plain, first_atomic) = (plain[name], atomic[name]);
        is_local(name) && barriers.iter().any(|&barrier| last_plain < barrier && barrier < first_atomic)
    };
    let counters = atomic
        .keys()
        .filter(|name| !not_counted.contains(*name) && (only.contains(*name) || reset_before(name)))
        .cloned()
        .collect();
    AtomicUses { only, counters }
}

/// Whether an atomic operation adds one to its cell: `atomic_inc(p)`, `atom_inc(p)`, or an
/// addition of the literal 1 (`atomicAdd(p, 1)`). CUDA's `atomicInc(p, limit)` wraps at the limit.
fn is_increment(name: &str, args: &[ast::Expr]) -> bool {
    match update(name) {
        Some((Update::Increment, _)) => true,
        Some((Update::Add, _)) => args
            .get(1)
            .is_some_and(|operand| matches!(&operand.kind, ast::ExprKind::Int { value, .. } if value.is_one())),
        _ => false,
    }
}

#[derive(Default)]
struct Uses {
    /// The position of the first atomic operation on each name.
    atomic: HashMap<String, usize>,
    /// The position of the last other use of each name.
    plain: HashMap<String, usize>,
    /// Names some atomic operation updates otherwise than by an increment, or inside a loop.
    not_counted: HashSet<String>,
    /// How many loops enclose the statement being read.
    loops: usize,
    /// The position of the body's statement being read.
    position: usize,
}

impl Uses {
    fn stmts(&mut self, stmts: &[ast::Stmt]) {
        for stmt in stmts {
            match &stmt.kind {
                ast::StmtKind::Declaration(declaration) => {
                    for init in declaration.declarators.iter().filter_map(|(_, init)| init.as_ref()) {
                        self.expr(init);
                    }
                }
                ast::StmtKind::Expr(expr) | ast::StmtKind::Return(Some(expr)) => self.expr(expr),
                ast::StmtKind::If { cond, then_branch, else_branch } => {
                    self.expr(cond);
                    self.stmts(std::slice::from_ref(then_branch));
                    self.stmts(else_branch.as_deref().map(std::slice::from_ref).unwrap_or_default());
                }
                ast::StmtKind::While { cond, body } | ast::StmtKind::DoWhile { body, cond } => {
                    self.loops += 1;
                    self.expr(cond);
                    self.stmts(std::slice::from_ref(body));
                    self.loops -= 1;
                }
                ast::StmtKind::For { init, cond, step, body } => {
                    self.stmts(init.as_deref().map(std::slice::from_ref).unwrap_or_default());
                    self.loops += 1;
                    for expr in cond.iter().chain(step) {
                        self.expr(expr);
                    }
                    self.stmts(std::slice::from_ref(body));
                    self.loops -= 1;
                }
                ast::StmtKind::Block(block) => self.stmts(&block.stmts),
                ast::StmtKind::Annotation(annotation) => {
                    for clause in &annotation.clauses {
                        if let ast::SpecClause::Clause { formula, .. } = clause {
                            self.expr(formula);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn expr(&mut self, expr: &ast::Expr) {
        match &expr.kind {
            ast::ExprKind::Name(name) => {
                self.plain.insert(name.clone(), self.position);
            }
            ast::ExprKind::Call { function, args } if is_atomic(&function.name) && !args.is_empty() => {
                if let Some(name) = self.pointer(&args[0]) {
                    if self.loops > 0 || !is_increment(&function.name, args) {
                        self.not_counted.insert(name);
                    }
                }
                for arg in &args[1..] {
                    self.expr(arg);
                }
            }
            kind => {
                for child in kind.children() {
                    self.expr(child);
                }
            }
        }
    }

    /// The pointer an atomic operation updates through, and the name it points into.
    fn pointer(&mut self, expr: &ast::Expr) -> Option<String> {
        match &expr.kind {
            ast::ExprKind::Name(name) => {
                self.atomic.entry(name.clone()).or_insert(self.position);
                Some(name.clone())
            }
            ast::ExprKind::Binary { op: ast::BinaryOp::Add, lhs, rhs } => {
                self.expr(rhs);
                self.pointer(lhs)
            }
            ast::ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => match &operand.kind {
                ast::ExprKind::Index { base, index } => {
                    self.expr(index);
                    self.pointer(base)
                }
                ast::ExprKind::Name(_) => self.pointer(operand),
                _ => {
                    self.expr(expr);
                    None
                }
            },
            _ => {
                self.expr(expr);
                None
            }
        }
    }
}
