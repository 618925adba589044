//! OpenCL's asynchronous copies between global and local memory: `async_work_group_copy(dst,
//! src, n, event)` starts a copy of `n` elements that the threads of a group make together, and
//! `wait_group_events(k, events)` waits for the copies of `k` events. A copy may move its cells
//! at any moment between its start and its wait, and the thread that reads or writes them is
//! none of the kernel's: only a barrier after the wait hands them to the threads.
//!
//! lockstep lowers a copy as GPUVerify models one (its `_ASYNC_WORK_GROUP_COPY`): one thread of
//! the group, which the kernel does not know, moves every cell. Each call site has a kernel
//! parameter `\copier@n`, any local id of the group, and the thread whose local id it is copies
//! `dst[k] = src[k]` for every `k < n`, once where the copy starts and once more at the wait that
//! names its event. Every barrier, and the kernel's end, asserts that no copy is still in flight,
//! so that the copy moves its cells only in the barrier interval where the copier touches them.
//! As the copier is any thread, a thread that touches a cell of the copy
//! between its start and the barrier after its wait races with the copier whenever the copier
//! is another thread, which some value of `\copier@n` makes it in a group of two threads or more:
//! so a race of the copy is found as any race is (`proofs/README.md`, §1, "Asynchronous copies").
//! With one thread in a group, the copier is the thread itself and the copy's races with it are
//! not seen; each call site asserts that a group has two threads, an assertion whose failure is
//! reported undecided ([`lockstep_logic::Kernel::unstated_claims`]).
//!
//! The threads of a group must start a copy together with the same arguments, and wait for the
//! same events: each call saves its arguments (and a wait the events it names) in private
//! variables, which the kernel lists as a [`lockstep_logic::Collective`]'s; the checker fails
//! `barrier.divergence` where one of them may differ between the threads of a group, as where
//! the call is reached under a condition that may.
//!
//! An event is an `int`: the number of the call site that started it, or, for a copy that joins
//! an event (`async_work_group_copy(.., e)` with `e` not 0), that event. Refused: a copy in a
//! loop (its copier would be the same thread in every iteration, and two copies in flight at
//! once would not race), into or out of private memory, between arrays of different element
//! types, and a wait whose count is not a constant.

use super::{Lengths, Lowerer, Place, Storage};
use crate::c::ast;
use crate::c::integers::{self, CType};
use crate::pvl::ast as surface;
use lockstep_logic::{Builtin, Span};

/// A call site of `async_work_group_copy` in the kernel being lowered.
pub(super) struct CopySite {
    /// The private variables that hold its arguments: `\copy@n.dst`, ...
    prefix: String,
    /// Where the copy writes and reads: the arrays, the element type, and the variables that
    /// hold the indices (and which array, for a pointer that may point into several).
    dst: Storage,
    src: Storage,
    element: CType,
}

/// The names of a copy site's variables.
impl CopySite {
    fn variable(&self, what: &str) -> String {
        format!("{}.{what}", self.prefix)
    }

    fn copier(&self) -> String {
        self.prefix.replacen("\\copy@", "\\copier@", 1)
    }
}

/// A call the threads of a group make together, and the surface variables that hold what they
/// must agree on ([`lockstep_logic::Collective`]).
pub type Collective = (Span, &'static str, Vec<String>);

/// What the kernel being lowered gathers of its copies, for its parameters and its start.
#[derive(Default)]
pub(super) struct Copies {
    pub(super) sites: Vec<CopySite>,
    /// The declarations of the sites' variables, at the start of the kernel's body, so that a
    /// wait anywhere after a copy sees them.
    pub(super) declarations: Vec<surface::Stmt>,
    /// The calls the threads of a group make together, with the variables that hold what they
    /// must agree on ([`lockstep_logic::Collective`]).
    pub(super) collectives: Vec<Collective>,
}

/// Whether `name` is one of the calls this module lowers.
pub(super) fn is_async_copy(name: &str) -> bool {
    matches!(name, "async_work_group_copy" | "wait_group_events")
}

impl Lowerer<'_> {
    /// `async_work_group_copy(dst, src, n, event)` or `wait_group_events(k, events)`: the code
    /// it runs, and the event a copy returns.
    pub(super) fn async_copy(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        lengths: &Lengths,
    ) -> Option<(Vec<surface::Stmt>, Option<integers::Value>)> {
        if self.loops_around > 0 {
            self.unsupported(
                span,
                format!("`{name}` in a loop"),
                "lockstep checks a copy's cells against one unknown thread per call site, which a loop would reuse: start and wait for the copies outside loops",
            );
            return None;
        }
        if name == "wait_group_events" {
            return self.wait_group_events(args, span, lengths).map(|stmts| (stmts, None));
        }
        let [dst, src, count, event] = args else {
            self.argument_count(name, 4, args.len(), span);
            return None;
        };
        let dst = self.points_into_any(dst, "this destination of a copy", lengths)?;
        let src = self.points_into_any(src, "this source of a copy", lengths)?;
        for pointer in [&dst, &src] {
            if matches!(pointer.storage, Storage::Private(_)) {
                self.unsupported(
                    span,
                    format!("a copy into or out of the private `{}`", pointer.array),
                    "`async_work_group_copy` copies between global and local memory",
                );
                return None;
            }
        }
        if (dst.element, dst.vector) != (src.element, src.vector)
            && src.storage != Storage::Null
            && dst.storage != Storage::Null
        {
            self.unsupported(
                span,
                format!("a copy of `{}`s into `{}`s", src.element.name(), dst.element.name()),
                "copy between arrays of one element type",
            );
            return None;
        }
        let element = if dst.storage == Storage::Null { src.element } else { dst.element };
        // A vector is `stride` cells ([`crate::c::lower::vectors`]): the copy moves `n * stride`.
        let stride = dst.vector.or(src.vector).map(|vector| vector.stride());
        let scaled = |lowerer: &mut Self, value: surface::Expr| match stride {
            Some(stride) => {
                let stride = lowerer.int(stride, span)?;
                lowerer.binary(surface::BinaryOp::Mul, value, stride, span)
            }
            None => Some(value),
        };
        let dst_index = self.pointed_cell(&dst, span)?.1;
        let dst_index = scaled(self, dst_index)?;
        let src_index = self.pointed_cell(&src, span)?.1;
        let src_index = scaled(self, src_index)?;
        let count = self.value(count, CType::Int(integers::SIZE_T), lengths)?;
        let count = scaled(self, count)?;
        let event = self.value(event, CType::Int(integers::INT), lengths)?;
        let number = self.copies.sites.len() + 1;
        let prefix = format!("\\copy@{number}");
        let mut saved = Vec::new();
        let mut stmts = Vec::new();
        // The arguments, saved for the waits; a pointer into several arrays with which one.
        let mut save = |lowerer: &mut Self, what: String, value: surface::Expr| -> Option<()> {
            let declaration = lowerer.int_declaration(&what, None, span)?;
            lowerer.copies.declarations.push(declaration);
            stmts.push(lowerer.surface_stmt(
                surface::StmtKind::Assign { target: surface::Ident { name: what.clone(), span }, value },
                span,
            )?);
            saved.push(what);
            Some(())
        };
        let mut storages = Vec::new();
        for (what, storage, index) in [("dst", dst.storage, dst_index), ("src", src.storage, src_index)] {
            save(self, format!("{prefix}.{what}"), index)?;
            storages.push(match storage {
                Storage::Either { tag, options } => {
                    let target = format!("{prefix}.{what}_target");
                    let tag_value = self.node(surface::ExprKind::Name(tag), span)?;
                    save(self, target.clone(), tag_value)?;
                    Storage::Either { tag: target, options }
                }
                other => other,
            });
        }
        save(self, format!("{prefix}.count"), count)?;
        // The event: the site's own number, or the one it joins.
        let zero = self.int(0, span)?;
        let joins = self.binary(surface::BinaryOp::Eq, event.clone(), zero, span)?;
        let own = self.int(number, span)?;
        let started = self.node(
            surface::ExprKind::Cond { cond: Box::new(joins), then_value: Box::new(own), else_value: Box::new(event) },
            span,
        )?;
        let event_name = format!("{prefix}.event");
        // Declared 0: no event, until the copy starts.
        let no_event = self.int(0, span)?;
        let declaration = self.int_declaration(&event_name, Some(no_event), span)?;
        self.copies.declarations.push(declaration);
        stmts.push(self.surface_stmt(
            surface::StmtKind::Assign { target: surface::Ident { name: event_name.clone(), span }, value: started },
            span,
        )?);
        saved.push(event_name.clone());
        // In flight until a wait names it.
        let pending = format!("{prefix}.pending");
        let not_yet = self.int(0, span)?;
        let declaration = self.int_declaration(&pending, Some(not_yet), span)?;
        self.copies.declarations.push(declaration);
        stmts.push(self.set(&pending, 1, span)?);
        let [dst, src] = <[Storage; 2]>::try_from(storages).ok()?;
        let site = CopySite { prefix, dst, src, element };
        stmts.push(self.at_least_two_threads(span)?);
        stmts.push(self.performed_copy(&site, span)?);
        self.copies.sites.push(site);
        self.copies.collectives.push((span, "async_work_group_copy", saved));
        let event = self.node(surface::ExprKind::Name(event_name), span)?;
        let event = integers::Value {
            expr: event,
            ty: CType::Int(integers::INT),
            interval: CType::Int(integers::INT).interval(),
        };
        Some((stmts, Some(event)))
    }

    /// A copy inside an expression (`e = async_work_group_copy(..)`): it runs before the
    /// statement, once, and its value is its event.
    pub(super) fn async_copy_in_expression(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        place: Place,
        lengths: &Lengths,
    ) -> Option<integers::Value> {
        let event =
            self.effect_in_expression(name, span, place, |lowerer| lowerer.async_copy(name, args, span, lengths))?;
        if event.is_none() {
            self.no_value(name, span);
        }
        event
    }

    /// `wait_group_events(k, events)`: each copy whose event is among the first `k` of `events`
    /// moves its cells once more.
    fn wait_group_events(&mut self, args: &[ast::Expr], span: Span, lengths: &Lengths) -> Option<Vec<surface::Stmt>> {
        let [count, events] = args else {
            self.argument_count("wait_group_events", 2, args.len(), span);
            return None;
        };
        let Some(count) = constant_count(count) else {
            self.unsupported(
                count.span,
                "a `wait_group_events` whose count is not a constant",
                "wait for a constant number of events: `wait_group_events(2, events)`",
            );
            return None;
        };
        let events = self.points_into(events, "these events", lengths)?;
        let (storage, first) = self.pointed_cell(&events, span)?;
        let mut stmts = Vec::new();
        let mut waited = Vec::new();
        for k in 0..count {
            let offset = self.int(k, span)?;
            let index = self.binary(surface::BinaryOp::Add, first.clone(), offset, span)?;
            let cell = Self::location_in(storage.clone(), index, events.element, span);
            let value = self.read_location(cell, Place::Code, span)?;
            self.fresh += 1;
            let name = format!("\\wait@{}", self.fresh);
            stmts.push(self.int_declaration(&name, Some(value.expr), span)?);
            waited.push(name);
        }
        for number in 0..self.copies.sites.len() {
            let event = self.node(surface::ExprKind::Name(self.copies.sites[number].variable("event")), span)?;
            let zero = self.int(0, span)?;
            let mut cond = self.binary(surface::BinaryOp::Ne, event.clone(), zero, span)?;
            let mut named = self.node(surface::ExprKind::Bool(false), span)?;
            for name in &waited {
                let entry = self.node(surface::ExprKind::Name(name.clone()), span)?;
                let is = self.binary(surface::BinaryOp::Eq, entry, event.clone(), span)?;
                named = self.binary(surface::BinaryOp::Or, named, is, span)?;
            }
            cond = self.binary(surface::BinaryOp::And, cond, named, span)?;
            let site = std::mem::take(&mut self.copies.sites);
            let copy = self.performed_copy(&site[number], span);
            let done = self.set(&site[number].variable("pending"), 0, span);
            self.copies.sites = site;
            let completed = self.block_of(vec![copy?, done?], span)?;
            let kind = surface::StmtKind::If { cond, then_branch: Box::new(completed), else_branch: None };
            stmts.push(self.surface_stmt(kind, span)?);
        }
        self.copies.collectives.push((span, "wait_group_events", waited));
        Some(stmts)
    }

    /// Before a barrier, or where the kernel ends: `assert \copy@n.pending == 0` for every copy
    /// started so far, as lockstep checks a copy's cells only in the interval it starts in.
    pub(super) fn no_copy_in_flight(&mut self, span: Span) -> Option<Vec<surface::Stmt>> {
        let pending: Vec<String> = self.copies.sites.iter().map(|site| site.variable("pending")).collect();
        let mut stmts = Vec::new();
        for pending in pending {
            let (pending, zero) = (self.named(&pending, span)?, self.int(0, span)?);
            let waited = self.binary(surface::BinaryOp::Eq, pending, zero, span)?;
            stmts.push(self.surface_stmt(surface::StmtKind::Assert(waited), span)?);
        }
        Some(stmts)
    }

    /// `name = value;`
    fn set(&mut self, name: &str, value: i64, span: Span) -> Option<surface::Stmt> {
        let value = self.int(value, span)?;
        self.surface_stmt(
            surface::StmtKind::Assign { target: surface::Ident { name: name.to_string(), span }, value },
            span,
        )
    }

    /// `if (lid == \copier@n) { k = 0; while (k < count) { dst[k] = src[k]; k++; } }`.
    fn performed_copy(&mut self, site: &CopySite, span: Span) -> Option<surface::Stmt> {
        self.fresh += 1;
        let k = format!("{}.k@{}", site.prefix, self.fresh);
        // What the cell's copy needs first (its logs' updates) is in the loop.
        let write = self.before_then(|lowerer| {
            let read_at = lowerer.sum(&site.variable("src"), &k, span)?;
            let read = Self::location_in(site.src.clone(), read_at, site.element, span);
            let value = lowerer.read_location(read, Place::Code, span)?;
            let write_at = lowerer.sum(&site.variable("dst"), &k, span)?;
            let write = Self::location_in(site.dst.clone(), write_at, site.element, span);
            let write = lowerer.write_value(write, value.expr, span)?;
            Some(vec![lowerer.surface_stmt(write, span)?])
        })?;
        let write = self.block_of(write, span)?;
        let count = self.named(&site.variable("count"), span)?;
        let block = self.counted_loop(&k, count, write, span)?;
        let (lid, copier) = (self.builtin(Builtin::Lid, span)?, self.named(&site.copier(), span)?);
        let cond = self.binary(surface::BinaryOp::Eq, lid, copier, span)?;
        self.surface_stmt(surface::StmtKind::If { cond, then_branch: Box::new(block), else_branch: None }, span)
    }

    fn named(&mut self, name: &str, span: Span) -> Option<surface::Expr> {
        self.node(surface::ExprKind::Name(name.to_string()), span)
    }

    /// `a + b` of two variables.
    fn sum(&mut self, a: &str, b: &str, span: Span) -> Option<surface::Expr> {
        let (a, b) = (self.named(a, span)?, self.named(b, span)?);
        self.binary(surface::BinaryOp::Add, a, b, span)
    }

    /// `assert gsize >= 2`, reported undecided where it fails: with one thread in a group, the
    /// copier is the thread itself.
    fn at_least_two_threads(&mut self, span: Span) -> Option<surface::Stmt> {
        let why = "a copy is checked against the other threads of its group, of which a launch with one thread in a group has none";
        self.unstated_claims.push((span, why.to_string()));
        let gsize = self.builtin(Builtin::Gsize, span)?;
        let two = self.int(2, span)?;
        let claim = self.binary(surface::BinaryOp::Ge, gsize, two, span)?;
        self.surface_stmt(surface::StmtKind::Assert(claim), span)
    }

    /// `int name = init;` (or without a value).
    fn int_declaration(&mut self, name: &str, init: Option<surface::Expr>, span: Span) -> Option<surface::Stmt> {
        let kind = surface::StmtKind::Declare {
            ty: surface::TypeName::Int,
            ty_span: span,
            name: surface::Ident { name: name.to_string(), span },
            init,
        };
        self.surface_stmt(kind, span)
    }

    /// The copiers' parameters of the kernel just lowered, and where each lies: `0 <=
    /// \copier@n < gsize`.
    pub(super) fn copier_parameters(&mut self, span: Span) -> Option<(Vec<surface::Param>, Vec<surface::Expr>)> {
        let mut params = Vec::new();
        let mut facts = Vec::new();
        for number in 0..self.copies.sites.len() {
            let copier = self.copies.sites[number].copier();
            params.push(surface::Param {
                ty: surface::TypeName::Int,
                ty_span: span,
                name: surface::Ident { name: copier.clone(), span },
            });
            let value = self.node(surface::ExprKind::Name(copier), span)?;
            let zero = self.int(0, span)?;
            let low = self.binary(surface::BinaryOp::Le, zero, value.clone(), span)?;
            let gsize = self.builtin(Builtin::Gsize, span)?;
            let high = self.binary(surface::BinaryOp::Lt, value, gsize, span)?;
            facts.push(self.binary(surface::BinaryOp::And, low, high, span)?);
        }
        Some((params, facts))
    }
}

/// The count of a wait, where it is an integer literal.
fn constant_count(count: &ast::Expr) -> Option<usize> {
    match &count.kind {
        ast::ExprKind::Int { value, .. } => usize::try_from(value).ok().filter(|&count| count <= 16),
        _ => None,
    }
}
