//! A kernel: its parameters (scalars, vectors and arrays, with the lengths its contract states or
//! unknown ones), the local arrays its body declares, the facts of the C program that its contract
//! assumes (the launch's limit, the ranges of integer parameters, [`WORK_DIM`]), its contract
//! (VerCors's annotation before it, GPUVerify's `__requires` and `__ensures` at the start of its
//! body), and its body, which starts by declaring the file's `__constant`s.

use super::atomics;
use super::barriers::fences_local;
use super::contracts::gpuverify_clause;
use super::logs::Logged;
use super::vectors::{self, VectorType};
use super::{assigned_names, Lengths, Lowerer, Place, Storage, Symbol, WORK_DIM};
use crate::c::ast;
use crate::c::integers::{self, CType};
use crate::diagnostics::{Code, Diagnostic};
use crate::pvl::ast as surface;
use lockstep_logic::{Builtin, MachineInt, Span};
use num_bigint::BigInt;
use std::collections::{HashMap, HashSet};

/// A kernel under construction: its members so far and the lengths its contract gives.
struct KernelParts {
    members: Vec<surface::Member>,
    /// Facts of the C program that the kernel's contract assumes: the launch's limit and the
    /// ranges of integer parameters.
    facts: Vec<surface::Expr>,
    lengths: Lengths,
    /// Unknown lengths, each a kernel parameter named like `\pointer_length(a)`.
    length_params: Vec<surface::Param>,
}

impl<'f> Lowerer<'f> {
    /// A declaration outside any function: a `__constant` variable or array (OpenCL's program
    /// scope, CUDA's `__constant__`) is read-only memory every thread sees alike, so each thread
    /// may as well have its own copy: every kernel starts by declaring it as a private variable
    /// or array ([`crate::c::lower::private`]), with its initializer (one without is arbitrary, which
    /// claims less). An assignment to it is an error, as in C.
    pub(super) fn file_scope_declaration(&mut self, declaration: &'f ast::Declaration) {
        if declaration.declarators.is_empty() {
            return;
        }
        // OpenCL's program-scope `const sampler_t s = ...;` is a constant too, as is CUDA's `const
        // int n = 4;`, which device code may read.
        let initialized = declaration.declarators.iter().all(|(_, init)| init.is_some());
        if declaration.specifiers.has(ast::Qualifier::Constant)
            || (declaration.specifiers.has(ast::Qualifier::Const) && initialized)
        {
            self.constants.push(declaration);
            return;
        }
        self.unsupported(
            declaration.span,
            "a declaration outside a function",
            "declare constants with `#define`, and arrays as kernel parameters or inside the kernel",
        );
    }

    pub(super) fn kernel(
        &mut self,
        function: &ast::Function,
        contract: Option<&ast::Annotation>,
    ) -> Option<surface::KernelDecl> {
        let Some(body) = &function.body else {
            self.unsupported(function.span, "a kernel without a body", "give the kernel its code");
            return None;
        };
        if function.specifiers.ty.base != ast::BaseType::Void {
            self.diagnostics.push(
                Diagnostic::error(
                    Code::MainSignature,
                    "a kernel returns `void`",
                    function.specifiers.ty.span,
                    "not `void`",
                )
                .with_help("kernels return nothing; write their results into arrays"),
            );
        }
        self.scopes = vec![HashMap::new()];
        self.copies = Default::default();
        self.assigned = HashSet::new();
        self.uninitialized = HashSet::new();
        self.lengths_spoken = HashSet::new();
        assigned_names(&body.stmts, &mut self.assigned);
        let written: Vec<&ast::SpecClause> =
            contract.map(|contract| contract.clauses.iter().collect()).unwrap_or_default();
        let mut parts = KernelParts {
            members: Vec::new(),
            facts: Vec::new(),
            lengths: self.lengths(&written),
            length_params: Vec::new(),
        };
        if self.integers.bounded() {
            parts.facts.extend(self.checked(integers::launch_limit_clause(function.name.span)));
        }
        let mut params = Vec::new();
        for param in &function.params {
            self.param(param, &mut parts, &mut params);
        }
        if self.uses_work_dim {
            self.work_dim(function.name.span, &mut parts, &mut params);
        }
        self.shared_arrays(&body.stmts, &mut parts);
        let unstated =
            |name: &String| parts.length_params.iter().any(|param| param.name.name.ends_with(&format!("({name})")));
        let is_local = |name: &str| {
            parts.members.iter().any(|member| {
                matches!(member, surface::Member::Arrays { memory: surface::MemorySpace::Local, names, .. }
                    if names.iter().any(|local| local.name == name))
            })
        };
        let uses = atomics::atomic_uses(&body.stmts, &written, &is_local, &fences_local);
        self.atomic_only = uses.only;
        self.atomic_only.retain(unstated);
        // A counter's increments touch no cell, so its length matters only to their bounds.
        self.counters = uses.counters;
        self.counter_sites = HashMap::new();
        let mut clauses = Vec::new();
        for clause in written {
            match clause {
                ast::SpecClause::Clause { kind, formula, span } => {
                    let kind = match kind {
                        ast::SpecKind::Requires => surface::ClauseKind::Requires,
                        ast::SpecKind::Ensures => surface::ClauseKind::Ensures,
                        ast::SpecKind::Context => surface::ClauseKind::Context,
                        other => {
                            self.misplaced_clause(*other, *span, "a kernel's contract");
                            continue;
                        }
                    };
                    let errors = self.errors();
                    let formula = self.expr(formula, Place::Annotation, &parts.lengths);
                    if let Some(formula) = self.reported(errors, formula, *span) {
                        clauses.push(surface::Member::Clause(surface::Clause {
                            level: surface::Level::Thread,
                            kind,
                            formula,
                            span: *span,
                        }));
                    }
                }
                ast::SpecClause::Unknown { keyword, span } => self.unknown_clause(keyword, *span),
            }
        }
        // GPUVerify's `__requires(e);` and `__ensures(e);` at the start of the body.
        let leading = body.stmts.iter().take_while(|stmt| gpuverify_clause(stmt).is_some()).count();
        for stmt in &body.stmts[..leading] {
            let Some((kind, formula, _)) = gpuverify_clause(stmt) else { continue };
            if kind == surface::ClauseKind::Requires
                && self.hint_left_out(formula, stmt.span, "this precondition", false)
            {
                continue;
            }
            let errors = self.errors();
            let formula = self.gpuverify_formula(formula, &parts.lengths);
            if let Some(formula) = self.reported(errors, formula, stmt.span) {
                clauses.push(surface::Member::Clause(surface::Clause {
                    level: surface::Level::Thread,
                    kind,
                    formula,
                    span: stmt.span,
                }));
            }
        }
        let body = ast::Block { stmts: body.stmts[leading..].to_vec(), span: body.span };
        // C's parameters are the function's variables: one the code assigns is a copy of the
        // parameter, which the contract still means.
        let mut copies = Vec::new();
        for param in &function.params {
            let c_name = &param.declarator.name.name;
            if let (true, Some(Symbol::Scalar { ty, name, .. })) =
                (self.assigned.contains(c_name), self.lookup(c_name).cloned())
            {
                let copy = format!("{c_name}@local");
                let init = self.node(surface::ExprKind::Name(name), param.declarator.name.span);
                let kind = surface::StmtKind::Declare {
                    ty: ty.surface(),
                    ty_span: param.specifiers.ty.span,
                    name: surface::Ident { name: copy.clone(), span: param.declarator.name.span },
                    init,
                };
                copies.extend(self.surface_stmt(kind, param.declarator.name.span));
                self.declare(c_name, Symbol::Scalar { ty, interval: ty.interval(), name: copy });
            }
        }
        if self.asks_about_logs {
            let logged = parts.members.iter().flat_map(|member| match member {
                surface::Member::Arrays { memory, names, .. } => {
                    names.iter().map(|name| Logged { array: name.name.clone(), memory: *memory }).collect()
                }
                _ => Vec::new(),
            });
            self.logs = Some(logged.collect());
            copies.extend(self.log_declarations(body.span));
        }
        // Every copy is waited for by the kernel's end, its closing brace.
        let end = Span::new(body.span.end.saturating_sub(1), body.span.end);
        let body = self.kernel_body(&body, &parts.lengths).and_then(|mut body| {
            copies.append(&mut self.copies.declarations);
            body.stmts.splice(0..0, copies);
            body.stmts.extend(self.no_copy_in_flight(end)?);
            Some(body)
        });
        let (mut copiers, copier_ranges) = self.copier_parameters(function.name.span)?;
        params.append(&mut copiers);
        parts.facts.extend(copier_ranges);
        let collectives = std::mem::take(&mut self.copies.collectives);
        self.collectives.insert(function.name.name.clone(), collectives);
        self.logs = None;
        // An array whose length no annotation states or speaks of has no bounds to check: its
        // size is that unknown length, times the stride of an array of vectors.
        for member in &mut parts.members {
            if let surface::Member::Arrays { size, bounded, .. } = member {
                let length = match &size.kind {
                    surface::ExprKind::Binary { op: surface::BinaryOp::Mul, lhs, .. } => &lhs.kind,
                    kind => kind,
                };
                if let surface::ExprKind::Name(length) = length {
                    let unstated = parts.length_params.iter().any(|param| param.name.name == *length);
                    *bounded = !unstated || self.lengths_spoken.contains(length);
                }
            }
        }
        params.append(&mut parts.length_params);
        for (counter, (sites, int)) in std::mem::take(&mut self.counter_sites) {
            parts.facts.extend(self.counter_limit(&counter, sites, int, &parts.members, function.name.span));
        }
        let mut members = parts.members;
        // The C program's facts come first, so that the written clauses may rely on them.
        members.extend(parts.facts.into_iter().map(|formula| {
            surface::Member::Clause(surface::Clause {
                level: surface::Level::Thread,
                kind: surface::ClauseKind::Requires,
                span: formula.span,
                formula,
            })
        }));
        members.extend(clauses);
        let name = surface::Ident { name: "main".to_string(), span: function.name.span };
        members.push(surface::Member::Main {
            result: surface::TypeName::Void,
            result_span: function.specifiers.ty.span,
            name,
            params: Vec::new(),
            body: body?,
            span: function.span,
        });
        Some(surface::KernelDecl { name: function.name.clone(), params, members, span: function.span })
    }

    /// The lengths a kernel's contract gives its arrays: the `e` of each `\pointer_length(a) == e`
    /// or `\shared_mem_size(a) == e` conjunct of a `requires` or `context` clause.
    fn lengths(&mut self, clauses: &[&ast::SpecClause]) -> Lengths {
        let mut found: Vec<(String, &ast::Expr)> = Vec::new();
        for clause in clauses {
            if let ast::SpecClause::Clause { kind: ast::SpecKind::Requires | ast::SpecKind::Context, formula, .. } =
                clause
            {
                collect_lengths(formula, &mut found);
            }
        }
        let mut lengths = Lengths::new();
        for (array, length) in found {
            if lengths.contains_key(&array) {
                continue;
            }
            if let Some(length) = self.expr(length, Place::Annotation, &Lengths::new()) {
                lengths.insert(array, length);
            }
        }
        lengths
    }

    fn param(&mut self, param: &ast::Param, parts: &mut KernelParts, params: &mut Vec<surface::Param>) {
        let declarator = &param.declarator;
        let specifiers = &param.specifiers;
        let is_array = declarator.pointers > 0 || !declarator.dimensions.is_empty();
        if declarator.name.name.is_empty() {
            if specifiers.ty.base != ast::BaseType::Void || is_array {
                self.diagnostics.push(
                    Diagnostic::error(Code::UnknownName, "a kernel parameter without a name", param.span, "no name")
                        .with_help("name every parameter of a kernel"),
                );
            }
            return;
        }
        if !is_array {
            let Some(ty) = self.scalar_type(&specifiers.ty) else { return };
            let c_name = &declarator.name.name;
            let span = declarator.name.span;
            if specifiers.ty.width == 1 {
                self.declare(c_name, Symbol::Scalar { ty, interval: ty.interval(), name: c_name.clone() });
                self.scalar_param(c_name, ty, specifiers.ty.span, span, parts, params);
                return;
            }
            // A vector parameter: a parameter for each component.
            let vector = VectorType { element: ty, width: specifiers.ty.width };
            let names: Vec<String> = (0..vector.width).map(|k| vectors::component_name(c_name, k)).collect();
            for name in &names {
                self.scalar_param(name, ty, specifiers.ty.span, span, parts, params);
            }
            self.declare(c_name, Symbol::Vector { ty: vector, names });
            return;
        }
        if declarator.pointers + declarator.dimensions.len() > 1 {
            self.unsupported(
                param.span,
                "a pointer to pointers, or an array parameter of several dimensions",
                "pass a flat array and compute its index",
            );
            return;
        }
        let memory = if specifiers.has(ast::Qualifier::Local) {
            surface::MemorySpace::Local
        } else {
            surface::MemorySpace::Global
        };
        let word = if memory == surface::MemorySpace::Local { "\\shared_mem_size" } else { "\\pointer_length" };
        self.array(&declarator.name, &specifiers.ty, memory, None, word, parts, param.span);
    }

    /// `sites * tcount <= 2^N` (`gsize` for a counter in local memory): the launches whose
    /// increments of an `N`-bit counter return distinct values, which every launch has unless
    /// the counter wraps around (`crate::c::lower::atomics`).
    fn counter_limit(
        &mut self,
        counter: &str,
        sites: u32,
        int: MachineInt,
        members: &[surface::Member],
        span: Span,
    ) -> Option<surface::Expr> {
        let local = members.iter().any(|member| {
            matches!(member, surface::Member::Arrays { memory: surface::MemorySpace::Local, names, .. }
                if names.iter().any(|name| name.name == counter))
        });
        let sharers = if local { Builtin::Gsize } else { Builtin::Tcount };
        let sharers = self.node(surface::ExprKind::Builtin(sharers), span)?;
        let sites = self.int(i64::from(sites), span)?;
        let increments = self.binary(surface::BinaryOp::Mul, sites, sharers, span)?;
        let values = self.node(surface::ExprKind::Int(BigInt::from(1) << int.bits), span)?;
        self.binary(surface::BinaryOp::Le, increments, values, span)
    }

    /// The parameter [`WORK_DIM`], which lies in `[1, 3]`. That the axes beyond it have one
    /// group of one thread is left out, which claims less: stated, it made a solver search the
    /// sizes' products for seconds.
    fn work_dim(&mut self, span: Span, parts: &mut KernelParts, params: &mut Vec<surface::Param>) {
        params.push(surface::Param {
            ty: surface::TypeName::Int,
            ty_span: span,
            name: surface::Ident { name: WORK_DIM.to_string(), span },
        });
        let mut within = || -> Option<surface::Expr> {
            let dimensions = self.node(surface::ExprKind::Name(WORK_DIM.to_string()), span)?;
            let (one, three) = (self.int(1, span)?, self.int(3, span)?);
            let low = self.binary(surface::BinaryOp::Le, one, dimensions.clone(), span)?;
            let high = self.binary(surface::BinaryOp::Le, dimensions, three, span)?;
            self.binary(surface::BinaryOp::And, low, high, span)
        };
        parts.facts.extend(within());
    }

    /// A scalar parameter of the surface kernel, which holds a value of its C type.
    fn scalar_param(
        &mut self,
        name: &str,
        ty: CType,
        ty_span: Span,
        span: Span,
        parts: &mut KernelParts,
        params: &mut Vec<surface::Param>,
    ) {
        params.push(surface::Param {
            ty: ty.surface(),
            ty_span,
            name: surface::Ident { name: name.to_string(), span },
        });
        if let (CType::Int(int_type), true) = (ty, self.integers.bounded()) {
            if let Some(formula) = self.checked(integers::in_type(name, int_type, span)) {
                parts.facts.push(formula);
            }
        }
    }

    /// Declares an array member: with the given length, the one the contract states, or an
    /// unknown length named `\word(name)`.
    #[allow(clippy::too_many_arguments)]
    fn array(
        &mut self,
        name: &surface::Ident,
        element: &ast::TypeSpec,
        memory: surface::MemorySpace,
        dimensions: Option<Vec<surface::Expr>>,
        word: &str,
        parts: &mut KernelParts,
        span: Span,
    ) {
        let Some(element_type) = self.scalar_type(element) else { return };
        let vector = (element.width > 1).then_some(VectorType { element: element_type, width: element.width });
        let (size, inner_dimensions) = match dimensions {
            Some(mut dimensions) if !dimensions.is_empty() => {
                let first = dimensions.remove(0);
                let mut size = first;
                for dimension in &dimensions {
                    let Some(product) = self.binary(surface::BinaryOp::Mul, size, dimension.clone(), span) else {
                        return;
                    };
                    size = product;
                }
                (size, dimensions)
            }
            _ => match parts.lengths.get(&name.name).cloned() {
                Some(length) => {
                    // A C array's length is never negative.
                    let zero = self.int(0, length.span);
                    if let Some(non_negative) =
                        zero.and_then(|zero| self.binary(surface::BinaryOp::Le, zero, length.clone(), length.span))
                    {
                        parts.facts.push(non_negative);
                    }
                    (length, Vec::new())
                }
                None => {
                    let length_name = format!("{word}({})", name.name);
                    parts.length_params.push(surface::Param {
                        ty: surface::TypeName::Int,
                        ty_span: name.span,
                        name: surface::Ident { name: length_name.clone(), span: name.span },
                    });
                    let Some(length) = self.node(surface::ExprKind::Name(length_name), name.span) else { return };
                    let zero = self.int(0, name.span);
                    if let Some(non_negative) =
                        zero.and_then(|zero| self.binary(surface::BinaryOp::Le, zero, length.clone(), name.span))
                    {
                        parts.facts.push(non_negative);
                    }
                    parts.lengths.insert(name.name.clone(), length.clone());
                    (length, Vec::new())
                }
            },
        };
        // An array of vectors holds their components, `stride` cells for each.
        let size = match vector {
            Some(vector) => {
                let Some(stride) = self.int(vector.stride(), span) else { return };
                let Some(cells) = self.binary(surface::BinaryOp::Mul, size, stride, span) else { return };
                cells
            }
            None => size,
        };
        let storage = Storage::Memory(name.name.clone());
        let symbol = Symbol::Array { element: element_type, inner_dimensions, storage, offset: None, vector };
        self.declare(&name.name, symbol);
        parts.members.push(surface::Member::Arrays {
            memory,
            element: surface::TypeName::Int,
            element_span: element.span,
            size,
            names: vec![name.clone()],
            bounded: true,
            span,
        });
    }

    /// The local arrays a kernel body declares (`__shared__ int s[64];`, `local int t[16];`,
    /// `extern __shared__ int s[];`), anywhere in it: they belong to the group, not to a block.
    fn shared_arrays(&mut self, stmts: &[ast::Stmt], parts: &mut KernelParts) {
        for stmt in stmts {
            match &stmt.kind {
                ast::StmtKind::Declaration(declaration) if is_local_memory(&declaration.specifiers) => {
                    for (declarator, init) in &declaration.declarators {
                        if declarator.pointers > 0 {
                            // A private pointer into local memory ([`Lowerer::declaration`]).
                            continue;
                        }
                        if init.is_some() {
                            self.unsupported(
                                declarator.span,
                                "an initializer of local memory",
                                "local memory starts undefined; let the threads write it",
                            );
                            continue;
                        }
                        let mut dimensions = Vec::new();
                        let mut dynamic = false;
                        for dimension in &declarator.dimensions {
                            match dimension {
                                Some(size) => {
                                    let errors = self.errors();
                                    let size_expr = self.expr(size, Place::Annotation, &parts.lengths);
                                    dimensions.extend(self.reported(errors, size_expr, size.span));
                                }
                                None => dynamic = true,
                            }
                        }
                        if declarator.dimensions.is_empty() {
                            // A local scalar: one cell.
                            let Some(one) = self.int(1, declarator.span) else { continue };
                            let memory = surface::MemorySpace::Local;
                            let ty = &declaration.specifiers.ty;
                            self.array(&declarator.name, ty, memory, Some(vec![one]), "", parts, declaration.span);
                            if let Some(element) = self.c_type(ty) {
                                let name = declarator.name.name.clone();
                                self.declare(&declarator.name.name, Symbol::Cell { element, name });
                            }
                            continue;
                        }
                        let dimensions = (!dynamic).then_some(dimensions);
                        self.array(
                            &declarator.name,
                            &declaration.specifiers.ty,
                            surface::MemorySpace::Local,
                            dimensions,
                            "\\shared_mem_size",
                            parts,
                            declaration.span,
                        );
                    }
                }
                ast::StmtKind::Block(block) => self.shared_arrays(&block.stmts, parts),
                ast::StmtKind::If { then_branch, else_branch, .. } => {
                    self.shared_arrays(std::slice::from_ref(then_branch), parts);
                    if let Some(else_branch) = else_branch {
                        self.shared_arrays(std::slice::from_ref(else_branch), parts);
                    }
                }
                ast::StmtKind::While { body, .. }
                | ast::StmtKind::DoWhile { body, .. }
                | ast::StmtKind::For { body, .. } => self.shared_arrays(std::slice::from_ref(body), parts),
                _ => {}
            }
        }
    }

    fn kernel_body(&mut self, body: &ast::Block, lengths: &Lengths) -> Option<surface::Block> {
        let mut stmts = Vec::new();
        self.constant_symbols.clear();
        self.read_only.clear();
        for declaration in self.constants.clone() {
            if self.vector_type(&declaration.specifiers.ty)?.is_some()
                || declaration.declarators.iter().any(|(declarator, _)| declarator.pointers > 0)
            {
                self.unsupported(
                    declaration.span,
                    "a `__constant` vector or pointer",
                    "declare `__constant` scalars and arrays of scalars",
                );
                return None;
            }
            // A kernel parameter of the same name hides the constant, as in C.
            let mut declaration = declaration.clone();
            declaration.declarators.retain(|(declarator, _)| self.lookup(&declarator.name.name).is_none());
            stmts.extend(self.declaration(&declaration, lengths)?);
            for (declarator, _) in &declaration.declarators {
                let name = &declarator.name.name;
                let symbol = self.lookup(name).cloned();
                match &symbol {
                    Some(Symbol::Scalar { name, .. }) => {
                        self.read_only.insert(name.clone());
                    }
                    Some(Symbol::Array { storage: Storage::Private(cells), .. }) => {
                        self.read_only.extend(cells.iter().cloned());
                    }
                    _ => {}
                }
                if let Some(symbol) = symbol {
                    self.constant_symbols.insert(name.clone(), symbol);
                }
            }
        }
        stmts.extend(self.function_body(&body.stmts, lengths, body.span)?);
        Some(surface::Block { stmts, span: body.span })
    }

    /// A write to the variable `variable` of the surface kernel, which is an error where it
    /// holds (a cell of) a file-scope `__constant`, as in C; whether it is.
    pub(super) fn writes_constant(&mut self, variable: &str, span: Span) -> bool {
        if !self.read_only.contains(variable) {
            return false;
        }
        self.diagnostics.push(
            Diagnostic::error(Code::TypeMismatch, "a write to `__constant` memory", span, "read-only")
                .with_help("`__constant` memory is read-only: copy the value into a variable of its own"),
        );
        true
    }
}

pub(super) fn is_local_memory(specifiers: &ast::Specifiers) -> bool {
    specifiers.has(ast::Qualifier::Shared) || specifiers.has(ast::Qualifier::Local)
}

/// The `\pointer_length(a) == e` and `\shared_mem_size(a) == e` conjuncts of a formula.
fn collect_lengths<'e>(formula: &'e ast::Expr, found: &mut Vec<(String, &'e ast::Expr)>) {
    match &formula.kind {
        ast::ExprKind::Binary { op: ast::BinaryOp::And | ast::BinaryOp::Star, lhs, rhs } => {
            collect_lengths(lhs, found);
            collect_lengths(rhs, found);
        }
        ast::ExprKind::Binary { op: ast::BinaryOp::Eq, lhs, rhs } => {
            for (side, other) in [(lhs, rhs), (rhs, lhs)] {
                if let ast::ExprKind::Backslash { word, args } = &side.kind {
                    if let ("\\pointer_length" | "\\shared_mem_size", [array]) = (word.name.as_str(), args.as_slice()) {
                        if let ast::ExprKind::Name(name) = &array.kind {
                            found.push((name.clone(), other));
                        }
                    }
                }
            }
        }
        _ => {}
    }
}
