//! C's structs and `typedef`s, taken apart before the lowering: the tree that
//! [`crate::c::lower`] reads has neither.
//!
//! - A `typedef` of an arithmetic or vector type is replaced by that type wherever its name is
//!   used; a `typedef` of a struct names the struct. A `typedef` of a pointer or array type is
//!   refused where it is used.
//! - A struct is its fields, nested structs' fields included, each a *leaf* with a path (`.a.b`).
//!   A struct variable is one variable for each leaf, named by the variable's name and the path:
//!   `struct s q;` with fields `a` and `b` declares `q.a` and `q.b`, and `q.a` in the code reads
//!   the first. A struct parameter is a parameter for each leaf, so a kernel's struct parameter is
//!   a scalar parameter for each field, alike for every thread.
//! - An array of structs, or a pointer to them (`global S *G`, `local S L[4][8]`), is an array for
//!   each leaf, of the same dimensions: `G[i].x` is the cell `i` of the array `G.x`. Fields of
//!   structs in memory are laid out apart from one another, so a race or an access out of bounds
//!   is one on a field, as GPUVerify reports them (at byte precision, fields never overlap). Such
//!   a struct's fields are scalars or vectors, or pointers: a pointer field there holds
//!   addresses, an array of `ulong` that is copied and stored ([`ADDRESS_STORED`]) but never
//!   followed.
//! - A kernel's struct parameter with an array field is copied to every thread: the field is a
//!   private array, declared at the start of the body, of values nobody knows.
//! - A whole struct is read or written only where its leaves can be taken one by one: an argument
//!   of a helper function, an assignment statement `s = t;`, and the value a struct variable is
//!   declared with. A struct elsewhere (a value of an expression, `sizeof`, a cast, a helper's
//!   result) is refused with `kernel::unsupported`, and so are unions (by the parser).
//!
//! It never guesses a layout in bytes: a construct that would need one (pointer casts, a struct
//! with a pointer or array field passed by value to a helper) is refused.

use crate::c::ast::{self, Expr, ExprKind, Stmt, StmtKind};
use crate::diagnostics::{Code, Diagnostic};
use lockstep_logic::Span;
use std::collections::HashMap;
use std::rc::Rc;

/// The file with its structs and `typedef`s taken apart, and the problems found doing so.
pub fn flatten(file: &ast::File) -> (ast::File, Vec<Diagnostic>) {
    let mut flattener = Flattener {
        diagnostics: Vec::new(),
        structs: HashMap::new(),
        typedefs: HashMap::new(),
        scopes: vec![HashMap::new()],
        in_annotation: false,
    };
    let mut items = Vec::new();
    // The annotation right before a function is its contract, which speaks of its parameters.
    let mut contract: Option<&ast::Annotation> = None;
    for item in &file.items {
        if let ast::Item::Function(function) = item {
            if let Some((contract, function)) = flattener.function(function, contract.take()) {
                items.extend(contract.map(ast::Item::Annotation));
                items.push(ast::Item::Function(function));
            }
            continue;
        }
        if let Some(annotation) = contract.take() {
            items.push(ast::Item::Annotation(flattener.annotation(annotation)));
        }
        match item {
            ast::Item::Annotation(annotation) => contract = Some(annotation),
            ast::Item::Declaration(declaration) => {
                items.extend(flattener.declaration(declaration).into_iter().map(ast::Item::Declaration))
            }
            ast::Item::Function(_) | ast::Item::Error => items.push(item.clone()),
        }
    }
    if let Some(annotation) = contract {
        items.push(ast::Item::Annotation(flattener.annotation(annotation)));
    }
    (ast::File { items }, flattener.diagnostics)
}

/// A struct's leaves, in the order of its fields.
struct Layout {
    /// How the struct is written, for messages: `struct s`.
    name: String,
    leaves: Vec<Leaf>,
}

/// A field of a struct that is no struct itself, where it sits (`.a.b`), and its declaration.
#[derive(Clone)]
struct Leaf {
    path: String,
    specifiers: ast::Specifiers,
    pointers: usize,
    dimensions: Vec<Option<Expr>>,
}

impl Leaf {
    fn is_scalar(&self) -> bool {
        self.pointers == 0 && self.dimensions.is_empty()
    }

    /// A pointer field of structs in memory (`global struct a *q` with `global int *p;`): its
    /// cells hold addresses, each a `ulong` that lockstep copies and never follows.
    fn is_address_in(&self, shape: Shape) -> bool {
        matches!(shape, Shape::Array(_)) && self.pointers > 0 && self.dimensions.is_empty()
    }
}

/// What a type names.
#[derive(Clone)]
enum Resolved {
    /// An arithmetic or vector type (`named` is `None`).
    Plain(ast::TypeSpec),
    Struct(Rc<Layout>),
}

/// The first of `names` that `expr` names.
fn mentioned<'n>(expr: &Expr, names: &[&'n str]) -> Option<&'n str> {
    match &expr.kind {
        ExprKind::Name(name) => names.iter().find(|known| **known == name).copied(),
        kind => kind.children().into_iter().find_map(|child| mentioned(child, names)),
    }
}

/// The call that a pointer stored in a struct's field becomes: the address, a `ulong` of no
/// known value ([`crate::c::lower`] reads it).
pub const ADDRESS_STORED: &str = "__lockstep_address_stored";

/// How a struct variable holds its structs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// One struct: each leaf is a variable.
    Value,
    /// An array of this many dimensions, or a pointer (one): each leaf is an array.
    Array(usize),
}

#[derive(Clone)]
struct Var {
    layout: Rc<Layout>,
    shape: Shape,
}

/// A struct, or a part of one, that an expression names: the variable, the indices that pick a
/// struct of an array (as many as its dimensions) and the path to a field inside it.
struct Place {
    root: String,
    var: Var,
    indices: Vec<Expr>,
    path: String,
}

impl Place {
    /// The leaves of the struct the place names, or the one leaf it is.
    fn leaves(&self) -> Vec<&Leaf> {
        let prefix = format!("{}.", self.path);
        self.var.layout.leaves.iter().filter(|leaf| leaf.path == self.path || leaf.path.starts_with(&prefix)).collect()
    }

    fn is_leaf(&self) -> bool {
        self.var.layout.leaves.iter().any(|leaf| leaf.path == self.path)
    }
}

struct Flattener {
    diagnostics: Vec<Diagnostic>,
    /// The structs declared so far, by tag.
    structs: HashMap<String, Rc<Layout>>,
    /// The `typedef` names declared so far: `None` for one that names a pointer or array type.
    typedefs: HashMap<String, Option<Resolved>>,
    /// The names in scope, innermost last: a struct variable, or another name that hides one.
    scopes: Vec<HashMap<String, Option<Var>>>,
    /// Whether an annotation is being taken apart, where expressions have no effects.
    in_annotation: bool,
}

impl Flattener {
    fn unsupported(&mut self, span: Span, construct: impl Into<String>, help: &str) {
        let construct = construct.into();
        self.diagnostics.push(
            Diagnostic::error(Code::Unsupported, format!("{construct} is not supported"), span, "not supported")
                .with_help(help),
        );
    }

    fn too_deep(&mut self, span: Span) {
        self.diagnostics.push(
            Diagnostic::error(Code::NestingTooDeep, "the struct's fields nest too deeply here", span, "too deep")
                .with_help("write the expression in several statements"),
        );
    }

    fn node(&mut self, kind: ExprKind, span: Span) -> Option<Expr> {
        Expr::new(kind, span).map_err(|_| self.too_deep(span)).ok()
    }

    fn stmt_node(&mut self, kind: StmtKind, span: Span) -> Option<Stmt> {
        Stmt::new(kind, span).map_err(|_| self.too_deep(span)).ok()
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name)).and_then(Option::as_ref)
    }

    fn declare(&mut self, name: &str, var: Option<Var>) {
        self.scopes.last_mut().expect("a scope").insert(name.to_string(), var);
    }

    /// What a type names, declaring the struct it defines, if any. `None` after a refusal.
    fn resolve(&mut self, ty: &ast::TypeSpec) -> Option<Resolved> {
        if ty.mixed {
            self.unsupported(
                ty.span,
                format!(
                    "`{}` with other type words (a type declared again, or `unsigned` before a type's name)",
                    ast::type_name(ty)
                ),
                "declare each type name once, and write `unsigned` in its typedef",
            );
            return None;
        }
        match &ty.named {
            None => Some(Resolved::Plain(ty.clone())),
            Some(ast::NamedType::Typedef(name)) => match self.typedefs.get(&name.name) {
                Some(Some(Resolved::Plain(plain))) => {
                    Some(Resolved::Plain(ast::TypeSpec { span: ty.span, ..plain.clone() }))
                }
                Some(Some(resolved)) => Some(resolved.clone()),
                _ => {
                    self.unsupported(
                        name.span,
                        format!("the type `{}`, a `typedef` of a pointer or array type,", name.name),
                        "write the pointer or array type where it is used",
                    );
                    None
                }
            },
            Some(ast::NamedType::Struct(structure)) => self.structure(structure).map(Resolved::Struct),
        }
    }

    fn structure(&mut self, structure: &ast::StructType) -> Option<Rc<Layout>> {
        let name = structure.tag.as_ref().map_or("struct".to_string(), |tag| format!("struct {}", tag.name));
        let Some(fields) = &structure.fields else {
            let found = structure.tag.as_ref().and_then(|tag| self.structs.get(&tag.name)).cloned();
            if found.is_none() {
                self.unsupported(
                    structure.span,
                    format!("`{name}`, declared without its fields,"),
                    "declare the struct's fields before it is used",
                );
            }
            return found;
        };
        let mut leaves = Vec::new();
        for field in fields {
            let resolved = self.resolve(&field.specifiers.ty)?;
            for declarator in &field.declarators {
                let path = format!(".{}", declarator.name.name);
                match &resolved {
                    Resolved::Plain(ty) => leaves.push(Leaf {
                        path,
                        specifiers: ast::Specifiers { ty: ty.clone(), ..field.specifiers.clone() },
                        pointers: declarator.pointers,
                        dimensions: declarator.dimensions.clone(),
                    }),
                    Resolved::Struct(inner) if declarator.pointers == 0 && declarator.dimensions.is_empty() => leaves
                        .extend(
                            inner
                                .leaves
                                .iter()
                                .map(|leaf| Leaf { path: format!("{path}{}", leaf.path), ..leaf.clone() }),
                        ),
                    Resolved::Struct(_) => {
                        self.unsupported(
                            declarator.span,
                            "a field that is an array of structs or a pointer to one",
                            "give the struct a field for each struct it holds",
                        );
                        return None;
                    }
                }
            }
        }
        if leaves.is_empty() {
            self.unsupported(structure.span, "a struct without fields", "give the struct a field");
            return None;
        }
        let layout = Rc::new(Layout { name, leaves });
        if let Some(tag) = &structure.tag {
            if self.structs.insert(tag.name.clone(), Rc::clone(&layout)).is_some() {
                self.unsupported(tag.span, format!("`struct {}` declared again", tag.name), "declare each struct once");
                return None;
            }
        }
        Some(layout)
    }

    /// How a struct variable declared so holds its structs, and whether its leaves may be what
    /// they are there; `None` after a refusal.
    fn shape(&mut self, layout: &Layout, declarator: &ast::Declarator) -> Option<Shape> {
        let shape = match (declarator.pointers, declarator.dimensions.len()) {
            (0, 0) => Shape::Value,
            (0, dimensions) => Shape::Array(dimensions),
            (1, 0) => Shape::Array(1),
            _ => {
                self.unsupported(
                    declarator.span,
                    "a pointer to an array of structs, or to pointers to structs,",
                    "declare an array of structs, or a pointer to one",
                );
                return None;
            }
        };
        if let Some(leaf) = layout.leaves.iter().find(|leaf| !leaf.is_scalar() && !leaf.is_address_in(shape)) {
            let construct = match shape {
                Shape::Array(_) => "an array of structs with a pointer or array field",
                Shape::Value => return Some(shape),
            };
            self.unsupported(
                declarator.span,
                format!("{construct} (the field `{}` of `{}`)", &leaf.path[1..], layout.name),
                "keep the struct's pointers and arrays apart from it",
            );
            return None;
        }
        Some(shape)
    }

    /// The declarations a declaration becomes: one for each leaf of a struct variable, none for
    /// a `typedef` or a struct's definition alone.
    fn declaration(&mut self, declaration: &ast::Declaration) -> Vec<ast::Declaration> {
        let forward = matches!(&declaration.specifiers.ty.named, Some(ast::NamedType::Struct(structure)) if structure.fields.is_none());
        if forward && declaration.declarators.is_empty() {
            // `struct s;`: its fields come later.
            return Vec::new();
        }
        let Some(resolved) = self.resolve(&declaration.specifiers.ty) else { return Vec::new() };
        if declaration.specifiers.has(ast::Qualifier::Typedef) {
            for (declarator, _) in &declaration.declarators {
                let named = (declarator.pointers == 0 && declarator.dimensions.is_empty()).then(|| resolved.clone());
                self.typedefs.insert(declarator.name.name.clone(), named);
            }
            return Vec::new();
        }
        let layout = match resolved {
            Resolved::Plain(ty) => {
                let mut declarators = Vec::new();
                for (declarator, init) in &declaration.declarators {
                    let init = match init {
                        Some(init) => match self.expr(init) {
                            Some(init) => Some(init),
                            None => continue,
                        },
                        None => None,
                    };
                    let declarator = self.declarator(declarator);
                    self.declare(&declarator.name.name, None);
                    declarators.push((declarator, init));
                }
                let specifiers = ast::Specifiers { ty, ..declaration.specifiers.clone() };
                return vec![ast::Declaration { specifiers, declarators, span: declaration.span }];
            }
            Resolved::Struct(layout) => layout,
        };
        let mut declarations = Vec::new();
        for (declarator, init) in &declaration.declarators {
            let Some(shape) = self.shape(&layout, declarator) else { continue };
            if let (Some(init), Some(leaf)) = (init, layout.leaves.iter().find(|leaf| !leaf.dimensions.is_empty())) {
                self.array_copy(init.span, &leaf.path, &layout.name);
                continue;
            }
            let errors = self.diagnostics.len();
            let inits = match init {
                None => vec![None; layout.leaves.len()],
                Some(init) => match self.leaf_values(init) {
                    Some(values)
                        if values.len() == layout.leaves.len()
                            && self.same_type(
                                &Place {
                                    root: String::new(),
                                    var: Var { layout: Rc::clone(&layout), shape: Shape::Value },
                                    indices: Vec::new(),
                                    path: String::new(),
                                },
                                init,
                            ) =>
                    {
                        values.into_iter().map(Some).collect()
                    }
                    _ if self.diagnostics.len() > errors => continue,
                    _ => {
                        self.unsupported(
                            init.span,
                            "this initializer of a struct",
                            "assign the fields one by one, or copy another struct variable",
                        );
                        continue;
                    }
                },
            };
            for (leaf, init) in layout.leaves.iter().zip(inits) {
                let (specifiers, leaf_declarator) =
                    self.leaf_declaration(&declaration.specifiers, declarator, leaf, shape);
                declarations.push(ast::Declaration {
                    specifiers,
                    declarators: vec![(leaf_declarator, init)],
                    span: declaration.span,
                });
            }
            self.declare(&declarator.name.name, Some(Var { layout: Rc::clone(&layout), shape }));
        }
        declarations
    }

    /// A struct copied whole, which lockstep does not do for an array field (C copies its cells).
    fn array_copy(&mut self, span: Span, path: &str, name: &str) {
        self.unsupported(
            span,
            format!("a copy of a struct with an array field (the field `{}` of `{name}`)", &path[1..]),
            "copy the fields one by one, the array's cells too",
        );
    }

    /// A declarator with its array sizes' expressions taken apart too.
    fn declarator(&mut self, declarator: &ast::Declarator) -> ast::Declarator {
        let dimensions = declarator
            .dimensions
            .iter()
            .map(|dimension| dimension.as_ref().map(|size| self.expr(size).unwrap_or_else(|| size.clone())))
            .collect();
        ast::Declarator { dimensions, ..declarator.clone() }
    }

    /// The declaration of a struct variable's leaf: the variable's qualifiers and the leaf's,
    /// the leaf's type, and the variable's pointers and dimensions before the leaf's.
    /// An address leaf ([`Leaf::is_address_in`]) is a `ulong` in the variable's memory.
    fn leaf_declaration(
        &mut self,
        specifiers: &ast::Specifiers,
        declarator: &ast::Declarator,
        leaf: &Leaf,
        shape: Shape,
    ) -> (ast::Specifiers, ast::Declarator) {
        let declarator = self.declarator(declarator);
        let mut qualifiers: Vec<(ast::Qualifier, Span)> = specifiers.qualifiers.clone();
        let address = leaf.is_address_in(shape);
        let ty = if address {
            ast::TypeSpec {
                base: ast::BaseType::Long,
                unsigned: true,
                width: 1,
                named: None,
                mixed: false,
                span: specifiers.ty.span,
            }
        } else {
            qualifiers.extend(leaf.specifiers.qualifiers.iter().copied());
            ast::TypeSpec { span: specifiers.ty.span, ..leaf.specifiers.ty.clone() }
        };
        let name = ast::Ident { name: format!("{}{}", declarator.name.name, leaf.path), span: declarator.name.span };
        let mut dimensions = declarator.dimensions.clone();
        dimensions.extend(leaf.dimensions.iter().cloned());
        let pointers = declarator.pointers + if address { 0 } else { leaf.pointers };
        (
            ast::Specifiers { qualifiers, ty, span: specifiers.span },
            ast::Declarator { pointers, name, dimensions, span: declarator.span },
        )
    }

    /// A function's parameters, each struct taken apart into its leaves; and for a kernel's, the
    /// declarations of the private arrays that hold its structs' array fields.
    fn params(&mut self, params: &[ast::Param], is_kernel: bool) -> (Vec<ast::Param>, Vec<ast::Declaration>) {
        let mut flat = Vec::new();
        let mut copies = Vec::new();
        for param in params {
            let Some(resolved) = self.resolve(&param.specifiers.ty) else { continue };
            let layout = match resolved {
                Resolved::Plain(ty) => {
                    self.declare(&param.declarator.name.name, None);
                    flat.push(ast::Param {
                        specifiers: ast::Specifiers { ty, ..param.specifiers.clone() },
                        declarator: self.declarator(&param.declarator),
                        span: param.span,
                    });
                    continue;
                }
                Resolved::Struct(layout) => layout,
            };
            let Some(shape) = self.shape(&layout, &param.declarator) else { continue };
            // A kernel's struct argument is copied to each thread: an array field is a private
            // array of the thread, whose cells hold what the host passed, any values.
            let copied = |leaf: &Leaf| is_kernel && leaf.pointers == 0;
            if let (Shape::Value, Some(leaf)) =
                (shape, layout.leaves.iter().find(|leaf| !leaf.is_scalar() && !copied(leaf)))
            {
                // A copy of the struct would copy its arrays, and a pointer field's array is
                // unknown to the kernel.
                self.unsupported(
                    param.span,
                    format!(
                        "a struct parameter with a pointer or array field (the field `{}` of `{}`)",
                        &leaf.path[1..],
                        layout.name
                    ),
                    "pass the struct's pointers and arrays as parameters of their own",
                );
                continue;
            }
            for leaf in &layout.leaves {
                let (specifiers, declarator) = self.leaf_declaration(&param.specifiers, &param.declarator, leaf, shape);
                if shape == Shape::Value && !leaf.is_scalar() {
                    copies.push(ast::Declaration {
                        specifiers,
                        declarators: vec![(declarator, None)],
                        span: param.span,
                    });
                } else {
                    flat.push(ast::Param { specifiers, declarator, span: param.span });
                }
            }
            self.declare(&param.declarator.name.name, Some(Var { layout, shape }));
        }
        (flat, copies)
    }

    /// A function and its contract, which sees its parameters.
    fn function(
        &mut self,
        function: &ast::Function,
        contract: Option<&ast::Annotation>,
    ) -> Option<(Option<ast::Annotation>, ast::Function)> {
        let specifiers = match self.resolve(&function.specifiers.ty)? {
            Resolved::Plain(ty) => ast::Specifiers { ty, ..function.specifiers.clone() },
            // The lowering refuses a struct result, naming its type.
            Resolved::Struct(_) => function.specifiers.clone(),
        };
        self.scopes.push(HashMap::new());
        let is_kernel = function.specifiers.has(ast::Qualifier::Kernel);
        let (params, copies) = self.params(&function.params, is_kernel);
        if let Some(body) = &function.body {
            self.local_structs(&body.stmts);
        }
        let contract = contract.map(|contract| self.annotation(contract));
        let mut body = function.body.as_ref().map(|body| self.block(body));
        if let Some(body) = body.as_mut().filter(|_| !copies.is_empty()) {
            // After GPUVerify's `__requires` and `__ensures`, which open the body, and which
            // cannot speak of the copies: the thread's contract is outside its body.
            let clauses = body.stmts.iter().take_while(|stmt| stmt.gpuverify_clause().is_some()).count();
            let copied: Vec<&str> = copies
                .iter()
                .flat_map(|copy| copy.declarators.iter().map(|(declarator, _)| declarator.name.name.as_str()))
                .collect();
            let written = contract.iter().flat_map(|contract| &contract.clauses).filter_map(|clause| match clause {
                ast::SpecClause::Clause { formula, span, .. } => Some((formula, *span)),
                ast::SpecClause::Unknown { .. } => None,
            });
            let opening = body.stmts[..clauses].iter().filter_map(|stmt| Some((stmt.gpuverify_clause()?.1, stmt.span)));
            let mentions: Vec<(String, Span)> = written
                .chain(opening)
                .filter_map(|(formula, span)| Some((mentioned(formula, &copied)?.to_string(), span)))
                .collect();
            for (name, span) in mentions {
                self.unsupported(
                    span,
                    format!("a contract over `{name}`, an array field of a struct the kernel takes by value,"),
                    "each thread's copy holds values the kernel does not know: pass the array as a parameter of its own",
                );
            }
            let copies = copies.into_iter().filter_map(|copy| {
                ast::Stmt::new(ast::StmtKind::Declaration(copy), body.span)
                    .map_err(|too_deep| self.too_deep(too_deep.span))
                    .ok()
            });
            body.stmts.splice(clauses..clauses, copies.collect::<Vec<_>>());
        }
        self.scopes.pop();
        Some((contract, ast::Function { specifiers, params, body, ..function.clone() }))
    }

    /// Declares the structs and arrays of structs in local memory that a kernel's body declares
    /// anywhere, whose type is declared before it: they belong to the group, and its contract may
    /// speak of them, as of its other local memory.
    fn local_structs(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Declaration(declaration)
                    if declaration.specifiers.has(ast::Qualifier::Local)
                        || declaration.specifiers.has(ast::Qualifier::Shared) =>
                {
                    let layout = match &declaration.specifiers.ty.named {
                        Some(ast::NamedType::Typedef(name)) => match self.typedefs.get(&name.name) {
                            Some(Some(Resolved::Struct(layout))) => Some(Rc::clone(layout)),
                            _ => None,
                        },
                        Some(ast::NamedType::Struct(structure)) if structure.fields.is_none() => {
                            structure.tag.as_ref().and_then(|tag| self.structs.get(&tag.name)).cloned()
                        }
                        _ => None,
                    };
                    let Some(layout) = layout else { continue };
                    for (declarator, _) in &declaration.declarators {
                        let shape = match (declarator.pointers, declarator.dimensions.len()) {
                            (0, 0) => Shape::Value,
                            (0, dimensions) => Shape::Array(dimensions),
                            _ => continue,
                        };
                        self.declare(&declarator.name.name, Some(Var { layout: Rc::clone(&layout), shape }));
                    }
                }
                StmtKind::Block(block) => self.local_structs(&block.stmts),
                StmtKind::If { then_branch, else_branch, .. } => {
                    self.local_structs(std::slice::from_ref(then_branch));
                    if let Some(else_branch) = else_branch {
                        self.local_structs(std::slice::from_ref(else_branch));
                    }
                }
                StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } | StmtKind::For { body, .. } => {
                    self.local_structs(std::slice::from_ref(body))
                }
                _ => {}
            }
        }
    }

    fn annotation(&mut self, annotation: &ast::Annotation) -> ast::Annotation {
        let outer = std::mem::replace(&mut self.in_annotation, true);
        let clauses = annotation
            .clauses
            .iter()
            .map(|clause| match clause {
                ast::SpecClause::Clause { kind, formula, span } => ast::SpecClause::Clause {
                    kind: *kind,
                    formula: self.expr(formula).unwrap_or_else(|| formula.clone()),
                    span: *span,
                },
                unknown @ ast::SpecClause::Unknown { .. } => unknown.clone(),
            })
            .collect();
        self.in_annotation = outer;
        ast::Annotation { clauses, span: annotation.span }
    }

    fn block(&mut self, block: &ast::Block) -> ast::Block {
        self.scopes.push(HashMap::new());
        let stmts = block.stmts.iter().flat_map(|stmt| self.stmt(stmt)).collect();
        self.scopes.pop();
        ast::Block { stmts, span: block.span }
    }

    /// A statement where only one may stand: several become a block.
    fn single(&mut self, stmt: &Stmt) -> Stmt {
        let mut stmts = self.stmt(stmt);
        if stmts.len() == 1 {
            return stmts.remove(0);
        }
        let block = ast::Block { stmts, span: stmt.span };
        self.stmt_node(StmtKind::Block(block), stmt.span).unwrap_or_else(|| stmt.clone())
    }

    /// The first part of a `for` loop's head, which must stay one statement: the variables it
    /// declares belong to the loop.
    fn loop_head(&mut self, init: &Stmt) -> Stmt {
        let mut stmts = self.stmt(init);
        if stmts.len() != 1 {
            self.unsupported(
                init.span,
                "a struct declared or copied in a `for` loop's head",
                "declare it before the loop",
            );
            return init.clone();
        }
        stmts.remove(0)
    }

    /// The statements a statement becomes: a struct declaration or assignment becomes one for
    /// each leaf.
    fn stmt(&mut self, stmt: &Stmt) -> Vec<Stmt> {
        let kind = match &stmt.kind {
            StmtKind::Declaration(declaration) if defines_type(declaration) => {
                // Types declared in a block would need scopes of their own for tags and typedef
                // names, which the parser's type names do not have.
                self.unsupported(
                    declaration.span,
                    "a struct or `typedef` declared inside a function",
                    "declare it at file scope, before the functions",
                );
                return Vec::new();
            }
            StmtKind::Declaration(declaration) => {
                return self
                    .declaration(declaration)
                    .into_iter()
                    .filter_map(|declaration| self.stmt_node(StmtKind::Declaration(declaration), stmt.span))
                    .collect();
            }
            StmtKind::Expr(expr) => {
                if let ExprKind::Assign { op: None, target, value } = &expr.kind {
                    if let Some(assignments) = self.struct_assignment(target, value, expr.span) {
                        return assignments;
                    }
                }
                StmtKind::Expr(self.expr_or_same(expr))
            }
            StmtKind::If { cond, then_branch, else_branch } => StmtKind::If {
                cond: self.expr_or_same(cond),
                then_branch: Box::new(self.single(then_branch)),
                else_branch: else_branch.as_ref().map(|branch| Box::new(self.single(branch))),
            },
            StmtKind::While { cond, body } => {
                StmtKind::While { cond: self.expr_or_same(cond), body: Box::new(self.single(body)) }
            }
            StmtKind::DoWhile { body, cond } => {
                StmtKind::DoWhile { body: Box::new(self.single(body)), cond: self.expr_or_same(cond) }
            }
            StmtKind::For { init, cond, step, body } => {
                self.scopes.push(HashMap::new());
                let kind = StmtKind::For {
                    init: init.as_ref().map(|init| Box::new(self.loop_head(init))),
                    cond: cond.as_ref().map(|cond| self.expr_or_same(cond)),
                    step: step.as_ref().map(|step| self.expr_or_same(step)),
                    body: Box::new(self.single(body)),
                };
                self.scopes.pop();
                kind
            }
            StmtKind::Return(value) => StmtKind::Return(value.as_ref().map(|value| self.expr_or_same(value))),
            StmtKind::Block(block) => StmtKind::Block(self.block(block)),
            StmtKind::Annotation(annotation) => StmtKind::Annotation(self.annotation(annotation)),
            other @ (StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Unsupported(_)
            | StmtKind::Empty
            | StmtKind::Error) => other.clone(),
        };
        self.stmt_node(kind, stmt.span).into_iter().collect()
    }

    /// `s = t;` for structs `s` and `t` of the same type: an assignment for each leaf.
    fn struct_assignment(&mut self, target: &Expr, value: &Expr, span: Span) -> Option<Vec<Stmt>> {
        let target_place = self.place(target)?;
        if target_place.is_leaf() || target_place.leaves().is_empty() {
            return None;
        }
        let array_field =
            target_place.leaves().iter().find(|leaf| !leaf.dimensions.is_empty()).map(|leaf| leaf.path.clone());
        if let Some(path) = array_field {
            self.array_copy(span, &path, &target_place.var.layout.name.clone());
            return Some(Vec::new());
        }
        let errors = self.diagnostics.len();
        let (targets, values) = (self.leaf_values(target), self.leaf_values(value));
        let (Some(targets), Some(values)) = (targets, values) else {
            if self.diagnostics.len() > errors {
                return Some(Vec::new());
            }
            self.unsupported(
                span,
                "this assignment of a struct",
                "assign a struct variable of the same type, or the fields one by one",
            );
            return Some(Vec::new());
        };
        if targets.len() != values.len() || !self.same_type(&target_place, value) {
            self.unsupported(span, "an assignment of a struct of another type", "assign a struct of the same type");
            return Some(Vec::new());
        }
        let mut stmts = Vec::new();
        for (target, value) in targets.into_iter().zip(values) {
            let assignment = ExprKind::Assign { op: None, target: Box::new(target), value: Box::new(value) };
            let Some(assignment) = self.node(assignment, span) else { continue };
            stmts.extend(self.stmt_node(StmtKind::Expr(assignment), span));
        }
        Some(stmts)
    }

    /// Whether `value` names a struct of the type of the one at `target`: the same fields, of the
    /// same types, in the same order (a copy between two types is an error in C).
    fn same_type(&self, target: &Place, value: &Expr) -> bool {
        // Through `&s`, `p + k` and `p - k` to the struct they point at.
        let mut value = value;
        while let ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand: inner }
        | ExprKind::Binary { op: ast::BinaryOp::Add | ast::BinaryOp::Sub, lhs: inner, .. } = &value.kind
        {
            value = inner;
        }
        let Some(source) = self.place(value) else { return false };
        let shape = |place: &Place| -> Vec<(String, String, usize, usize)> {
            place
                .leaves()
                .iter()
                .map(|leaf| {
                    let path = leaf.path[place.path.len()..].to_string();
                    (path, ast::type_name(&leaf.specifiers.ty), leaf.pointers, leaf.dimensions.len())
                })
                .collect()
        };
        shape(target) == shape(&source)
    }

    /// The struct, or part of one, that an expression names, if it names one.
    fn place(&self, expr: &Expr) -> Option<Place> {
        match &expr.kind {
            ExprKind::Name(name) => {
                let var = self.lookup(name)?.clone();
                Some(Place { root: name.clone(), var, indices: Vec::new(), path: String::new() })
            }
            ExprKind::Index { base, index } => {
                let mut place = self.place(base)?;
                match place.var.shape {
                    Shape::Array(dimensions) if place.path.is_empty() && place.indices.len() < dimensions => {
                        place.indices.push((**index).clone());
                        Some(place)
                    }
                    _ => None,
                }
            }
            ExprKind::Unary { op: ast::UnaryOp::Deref, operand } => {
                let mut place = self.place(operand)?;
                match place.var.shape {
                    Shape::Array(dimensions) if place.path.is_empty() && place.indices.len() + 1 == dimensions => {
                        place.indices.push(Expr::int(0, expr.span));
                        Some(place)
                    }
                    _ => None,
                }
            }
            ExprKind::Member { base, field, arrow } => {
                let mut place = self.place(base)?;
                let picked = match place.var.shape {
                    Shape::Value => place.indices.is_empty(),
                    Shape::Array(dimensions) => place.indices.len() + usize::from(*arrow) == dimensions,
                };
                if !picked || place.is_leaf() || (*arrow && !place.path.is_empty()) {
                    return None;
                }
                if *arrow {
                    place.indices.push(Expr::int(0, expr.span));
                }
                place.path = format!("{}.{}", place.path, field.name);
                Some(place)
            }
            _ => None,
        }
    }

    /// The leaves of the struct that an expression is, each as an expression: a struct
    /// variable's, an array of structs' (as pointers to their first cells), a struct in memory's,
    /// and those of `&s`, `p + k` and `p - k` for them. `None` for an expression of another type.
    fn leaf_values(&mut self, expr: &Expr) -> Option<Vec<Expr>> {
        match &expr.kind {
            ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => {
                let leaves = self.leaf_values(operand)?;
                leaves
                    .into_iter()
                    .map(|leaf| {
                        self.node(ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand: Box::new(leaf) }, expr.span)
                    })
                    .collect()
            }
            ExprKind::Binary { op: op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub), lhs, rhs } => {
                let leaves = self.leaf_values(lhs)?;
                if !self.repeatable(rhs) {
                    return None;
                }
                let rhs = self.expr(rhs)?;
                leaves
                    .into_iter()
                    .map(|leaf| {
                        self.node(
                            ExprKind::Binary { op: *op, lhs: Box::new(leaf), rhs: Box::new(rhs.clone()) },
                            expr.span,
                        )
                    })
                    .collect()
            }
            _ => {
                let place = self.place(expr)?;
                if place.is_leaf() || !place.indices.iter().all(|index| self.repeatable(index)) {
                    return None;
                }
                let indices: Option<Vec<Expr>> = place.indices.iter().map(|index| self.expr(index)).collect();
                let indices = indices?;
                let names: Vec<String> =
                    place.leaves().iter().map(|leaf| format!("{}{}", place.root, leaf.path)).collect();
                names.into_iter().map(|name| self.indexed(name, &indices, expr.span)).collect()
            }
        }
    }

    /// Whether an index may be written once for each leaf of a struct copied whole, in code: it
    /// has no effect and reads neither memory nor a struct, so every copy of it has the value the
    /// first has (`s = a[s.k];` would index the second field by the first's new value). In an
    /// annotation, where nothing changes, every index may.
    fn repeatable(&mut self, index: &Expr) -> bool {
        if self.in_annotation {
            return true;
        }
        let repeatable = is_repeatable(index, &|name| self.lookup(name).is_none());
        if !repeatable {
            self.unsupported(
                index.span,
                "an index of a struct copied whole that has an effect or reads memory or a struct",
                "compute the index into a variable first, or copy the fields one by one",
            );
        }
        repeatable
    }

    /// The leaf variable `name`, indexed by `indices` in order.
    fn indexed(&mut self, name: String, indices: &[Expr], span: Span) -> Option<Expr> {
        let mut expr = self.node(ExprKind::Name(name), span)?;
        for index in indices {
            expr = self.node(ExprKind::Index { base: Box::new(expr), index: Box::new(index.clone()) }, span)?;
        }
        Some(expr)
    }

    fn expr_or_same(&mut self, expr: &Expr) -> Expr {
        self.expr(expr).unwrap_or_else(|| expr.clone())
    }

    /// The place of a field that holds addresses ([`Leaf::is_address_in`]), when `expr` names one.
    fn address_place(&self, expr: &Expr) -> Option<Place> {
        let ExprKind::Member { .. } = &expr.kind else { return None };
        let place = self.place(expr)?;
        let address =
            place.leaves().first().is_some_and(|leaf| leaf.path == place.path && leaf.is_address_in(place.var.shape));
        address.then_some(place)
    }

    /// The cell of a field that holds addresses.
    fn address_cell(&mut self, place: Place, span: Span) -> Option<Expr> {
        let indices: Option<Vec<Expr>> = place.indices.iter().map(|index| self.expr(index)).collect();
        self.indexed(format!("{}{}", place.root, place.path), &indices?, span)
    }

    /// An expression with every field of a struct replaced by its leaf variable, and the
    /// structs among a helper call's arguments replaced by their leaves. `None` after a refusal.
    fn expr(&mut self, expr: &Expr) -> Option<Expr> {
        let kind = match &expr.kind {
            // A pointer stored in structs in memory: another such field's address, or any
            // address ([`ADDRESS_STORED`]), as lockstep follows no pointer it stores.
            ExprKind::Assign { op: None, target, value } if self.address_place(target).is_some() => {
                let place = self.address_place(target)?;
                let target = self.address_cell(place, target.span)?;
                let value = match self.address_place(value) {
                    Some(place) => self.address_cell(place, value.span)?,
                    None => {
                        let pointer = self.expr(value)?;
                        let function = ast::Ident { name: ADDRESS_STORED.to_string(), span: value.span };
                        self.node(ExprKind::Call { function, args: vec![pointer] }, value.span)?
                    }
                };
                ExprKind::Assign { op: None, target: Box::new(target), value: Box::new(value) }
            }
            ExprKind::Member { .. } if self.address_place(expr).is_some() => {
                self.unsupported(
                    expr.span,
                    "a pointer read from memory, other than copied to another struct's field,",
                    "pass the arrays the kernel reads as parameters of their own",
                );
                return None;
            }
            ExprKind::Member { .. } | ExprKind::Name(_) | ExprKind::Index { .. } | ExprKind::Unary { .. }
                if self.place(expr).is_some() =>
            {
                let place = self.place(expr)?;
                if place.leaves().is_empty() {
                    let field = place.path.rsplit('.').next().unwrap_or_default();
                    self.diagnostics.push(
                        Diagnostic::error(
                            Code::UnknownName,
                            format!("`{}` has no field `{field}`", place.var.layout.name),
                            expr.span,
                            "no such field",
                        )
                        .with_help(format!("the fields of `{}` are declared with it", place.var.layout.name)),
                    );
                    return None;
                }
                match &expr.kind {
                    ExprKind::Member { .. } if place.is_leaf() => {
                        let indices: Option<Vec<Expr>> = place.indices.iter().map(|index| self.expr(index)).collect();
                        return self.indexed(format!("{}{}", place.root, place.path), &indices?, expr.span);
                    }
                    // A struct array's name, or a cell of one, where a pointer or a struct is
                    // wanted: only a helper's argument may be one.
                    _ => {
                        self.unsupported(
                            expr.span,
                            format!("a value of type `{}` here", place.var.layout.name),
                            "read or write its fields, or pass it to a helper function",
                        );
                        return None;
                    }
                }
            }
            ExprKind::Perm { location, amount } if self.names_struct(location) => {
                // `Perm(&G[i], q)`: the permission on each of the struct's fields.
                let leaves = self.leaf_values(location)?;
                let amount = self.expr(amount)?;
                let perms: Option<Vec<Expr>> = leaves
                    .into_iter()
                    .map(|leaf| {
                        self.node(
                            ExprKind::Perm { location: Box::new(leaf), amount: Box::new(amount.clone()) },
                            expr.span,
                        )
                    })
                    .collect();
                return self.joined(ast::BinaryOp::Star, perms?, expr.span);
            }
            ExprKind::Binary { op: ast::BinaryOp::Eq, lhs, rhs }
                if self.struct_length(lhs).or(self.struct_length(rhs)).is_some() =>
            {
                // `\pointer_length(G) == n`: every field's array has the length.
                let (length, other) = if self.struct_length(lhs).is_some() { (lhs, rhs) } else { (rhs, lhs) };
                let (word, array) = self.struct_length(length)?;
                let (word, array) = (word.clone(), array.clone());
                let other = self.expr(other)?;
                let mut equations = Vec::new();
                for leaf in self.leaf_values(&array)? {
                    let length =
                        self.node(ExprKind::Backslash { word: word.clone(), args: vec![leaf] }, length.span)?;
                    equations.push(self.node(
                        ExprKind::Binary { op: ast::BinaryOp::Eq, lhs: Box::new(length), rhs: Box::new(other.clone()) },
                        expr.span,
                    )?);
                }
                return self.joined(ast::BinaryOp::And, equations, expr.span);
            }
            ExprKind::Call { function, args } => {
                let mut flat = Vec::new();
                for arg in args {
                    match self
                        .place(arg)
                        .filter(|place| !place.is_leaf())
                        .map(|_| ())
                        .or_else(|| self.pointer_arithmetic(arg))
                    {
                        Some(()) => flat.extend(self.leaf_values(arg)?),
                        None => flat.push(self.expr(arg)?),
                    }
                }
                ExprKind::Call { function: function.clone(), args: flat }
            }
            ExprKind::Int { .. }
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Name(_)
            | ExprKind::String
            | ExprKind::Read
            | ExprKind::Write
            | ExprKind::Result
            | ExprKind::Gtid
            | ExprKind::Ltid => return Some(expr.clone()),
            ExprKind::SizeofType { ty, pointers } => ExprKind::SizeofType { ty: self.plain(ty), pointers: *pointers },
            ExprKind::Index { base, index } => {
                ExprKind::Index { base: Box::new(self.expr(base)?), index: Box::new(self.expr(index)?) }
            }
            ExprKind::Member { base, field, arrow } => {
                ExprKind::Member { base: Box::new(self.expr(base)?), field: field.clone(), arrow: *arrow }
            }
            ExprKind::Unary { op, operand } => ExprKind::Unary { op: *op, operand: Box::new(self.expr(operand)?) },
            ExprKind::Binary { op, lhs, rhs } => {
                ExprKind::Binary { op: *op, lhs: Box::new(self.expr(lhs)?), rhs: Box::new(self.expr(rhs)?) }
            }
            ExprKind::Assign { op, target, value } => {
                ExprKind::Assign { op: *op, target: Box::new(self.expr(target)?), value: Box::new(self.expr(value)?) }
            }
            ExprKind::Cond { cond, then_value, else_value } => ExprKind::Cond {
                cond: Box::new(self.expr(cond)?),
                then_value: Box::new(self.expr(then_value)?),
                else_value: Box::new(self.expr(else_value)?),
            },
            ExprKind::Cast { ty, pointers, operand } => {
                ExprKind::Cast { ty: self.plain(ty), pointers: *pointers, operand: Box::new(self.expr(operand)?) }
            }
            ExprKind::SizeofExpr(operand) => ExprKind::SizeofExpr(Box::new(self.expr(operand)?)),
            ExprKind::Comma(lhs, rhs) => ExprKind::Comma(Box::new(self.expr(lhs)?), Box::new(self.expr(rhs)?)),
            ExprKind::InitList(items) => {
                ExprKind::InitList(items.iter().map(|item| self.expr(item)).collect::<Option<Vec<_>>>()?)
            }
            ExprKind::Quantifier { kind, ty, var, range, body } => {
                self.scopes.push(HashMap::new());
                self.declare(&var.name, None);
                let range = match range {
                    Some(range) => Some(Box::new(self.expr(range)?)),
                    None => None,
                };
                let quantifier = ExprKind::Quantifier {
                    kind: *kind,
                    ty: self.plain(ty),
                    var: var.clone(),
                    range,
                    body: Box::new(self.expr(body)?),
                };
                self.scopes.pop();
                quantifier
            }
            ExprKind::Old(operand) => ExprKind::Old(Box::new(self.expr(operand)?)),
            ExprKind::Perm { location, amount } => {
                ExprKind::Perm { location: Box::new(self.expr(location)?), amount: Box::new(self.expr(amount)?) }
            }
            ExprKind::Backslash { word, args } => ExprKind::Backslash {
                word: word.clone(),
                args: args.iter().map(|arg| self.expr(arg)).collect::<Option<Vec<_>>>()?,
            },
        };
        self.node(kind, expr.span)
    }

    /// Whether an expression is a struct, an array of them, or `&` of either.
    fn names_struct(&self, expr: &Expr) -> bool {
        let expr = match &expr.kind {
            ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => operand,
            _ => expr,
        };
        self.place(expr).is_some_and(|place| !place.is_leaf())
    }

    /// `\pointer_length(G)` or `\shared_mem_size(G)` of an array of structs: the word and `G`.
    fn struct_length<'e>(&self, expr: &'e Expr) -> Option<(&'e ast::Ident, &'e Expr)> {
        match &expr.kind {
            ExprKind::Backslash { word, args }
                if matches!(word.name.as_str(), "\\pointer_length" | "\\shared_mem_size")
                    && args.len() == 1
                    && self.names_struct(&args[0]) =>
            {
                Some((word, &args[0]))
            }
            _ => None,
        }
    }

    /// `parts` joined by `op`, left to right.
    fn joined(&mut self, op: ast::BinaryOp, parts: Vec<Expr>, span: Span) -> Option<Expr> {
        let mut parts = parts.into_iter();
        let first = parts.next()?;
        parts.try_fold(first, |joined, part| {
            self.node(ExprKind::Binary { op, lhs: Box::new(joined), rhs: Box::new(part) }, span)
        })
    }

    /// Whether an argument is `&s`, `p + k` or `p - k` for a struct or an array of structs.
    fn pointer_arithmetic(&self, arg: &Expr) -> Option<()> {
        match &arg.kind {
            ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand } => {
                self.place(operand).filter(|place| !place.is_leaf()).map(|_| ())
            }
            ExprKind::Binary { op: ast::BinaryOp::Add | ast::BinaryOp::Sub, lhs, .. } => {
                self.place(lhs).filter(|place| !place.is_leaf()).map(|_| ()).or_else(|| self.pointer_arithmetic(lhs))
            }
            _ => None,
        }
    }

    /// A type with a `typedef` name of an arithmetic type replaced by the type; a struct's is
    /// left for the lowering to refuse, naming it.
    fn plain(&mut self, ty: &ast::TypeSpec) -> ast::TypeSpec {
        match self.resolve(ty) {
            Some(Resolved::Plain(plain)) => plain,
            _ => ty.clone(),
        }
    }
}

/// Whether a declaration declares a type: a `typedef`, or a struct with its fields.
fn defines_type(declaration: &ast::Declaration) -> bool {
    declaration.specifiers.has(ast::Qualifier::Typedef)
        || matches!(&declaration.specifiers.ty.named, Some(ast::NamedType::Struct(structure)) if structure.fields.is_some())
}

/// Whether an expression has no effect and reads only constants, ids and sizes (`get_local_id(0)`,
/// `threadIdx.x`) and the scalar variables for which `scalar` holds.
fn is_repeatable(expr: &Expr, scalar: &dyn Fn(&str) -> bool) -> bool {
    let children = || expr.kind.children().into_iter().all(|child| is_repeatable(child, scalar));
    match &expr.kind {
        ExprKind::Int { .. } | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::SizeofType { .. } => true,
        ExprKind::Name(name) => scalar(name),
        ExprKind::Call { function, .. } => function.name.starts_with("get_") && children(),
        ExprKind::Member { base, arrow: false, .. } => matches!(&base.kind, ExprKind::Name(name) if scalar(name)),
        ExprKind::Unary { op, .. } => {
            !matches!(
                op,
                ast::UnaryOp::Deref
                    | ast::UnaryOp::PreIncrement
                    | ast::UnaryOp::PreDecrement
                    | ast::UnaryOp::PostIncrement
                    | ast::UnaryOp::PostDecrement
            ) && children()
        }
        ExprKind::Binary { .. } | ExprKind::Cond { .. } | ExprKind::Cast { .. } => children(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::c::{check, integers::Integers, Dialect};
    use crate::diagnostics::Code;

    /// The first diagnostic of a file, as `(code, message)`, or `None` when it is accepted.
    fn first_problem(text: &str) -> Option<(Code, String)> {
        let (_, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
        diagnostics.first().map(|first| (first.code, first.message.clone()))
    }

    #[test]
    fn structs_and_typedefs_are_read() {
        for text in [
            "typedef unsigned int u32; __kernel void k(global u32 *a) { a[get_global_id(0)] = (u32) 1; }",
            "struct s; struct s { int a; }; __kernel void k(struct s q) { int x = q.a; }",
            "typedef struct { float x; float y; } P; __kernel void k(global P *p) { local P t[4][2]; t[1][0].y = p->x; }",
            "struct t { int a; }; struct s { struct t inner; int b; }; void f(struct t v, global struct s *g) { g[0].b = v.a; } __kernel void k(global struct s *g, struct s q) { f(q.inner, g + 1); struct s r = q; r = q; (*g).b = r.inner.a; }",
            "struct s { int a; }; __kernel void k(global struct s *g) { struct s *p = &g[get_global_id(0)]; p->a = 1; }",
            "typedef struct Point { int x; } Point; __kernel void k(global Point *g) { struct Point p; p.x = 1; g[0] = p; }",
            // A kernel's struct argument with an array field: the thread's private copy.
            "struct s { int a[2]; int n; }; __kernel void k(global int *g, struct s q) { __requires(q.n == 1); q.a[1] = q.n; g[0] = q.a[0]; }",
            // A kernel's contract speaks of the local structs its body declares.
            "struct s { int a; int b; }; /*@ requires \\ltid == 0 ==> Perm(&p, write) ** Perm(&t[\\ltid].b, write); @*/ __kernel void k() { __local struct s p; __local struct s t[64]; if (get_local_id(0) == 0) { p.a = 1; } }",
        ] {
            assert_eq!(first_problem(text), None, "{text}");
        }
    }

    #[test]
    fn structs_lockstep_cannot_take_apart_are_refused() {
        for (text, code, message) in [
            (
                "struct s { int a[2]; }; __kernel void k(struct s q) { __requires(q.a[0] == 1); }",
                Code::Unsupported,
                "a contract over `q.a`, an array field of a struct the kernel takes by value, is not supported",
            ),
            (
                "struct s { int a[2]; }; /*@ requires q.a[1] == 1; @*/ __kernel void k(struct s q) { }",
                Code::Unsupported,
                "a contract over `q.a`, an array field of a struct the kernel takes by value, is not supported",
            ),
            (
                "struct s { int a[2]; }; void f(struct s q) { } __kernel void k() { }",
                Code::Unsupported,
                "a struct parameter with a pointer or array field (the field `a` of `struct s`) is not supported",
            ),
            (
                "struct s { global int *p[2]; }; __kernel void k(global struct s *q) { }",
                Code::Unsupported,
                "an array of structs with a pointer or array field (the field `p` of `struct s`) is not supported",
            ),
            (
                "struct s { global int *p; }; __kernel void k(global struct s *q) { q[1].p = q[0].p + 1; }",
                Code::Unsupported,
                "a pointer read from memory, other than copied to another struct's field, is not supported",
            ),
            (
                "struct s { int a; }; __kernel void k() { struct s q; int x = sizeof(q); }",
                Code::Unsupported,
                "a value of type `struct s` here is not supported",
            ),
            (
                "struct s { int a; }; __kernel void k() { struct s q = {1}; }",
                Code::Unsupported,
                "this initializer of a struct is not supported",
            ),
            (
                "struct s { int a; }; struct t { int a; int b; }; __kernel void k() { struct s q; struct t r; q = r; }",
                Code::Clang,
                "assigning to '__private struct s' from incompatible type '__private struct t'",
            ),
            (
                "struct s { int a[2]; }; __kernel void k() { struct s q; struct s r; r = q; }",
                Code::Unsupported,
                "a copy of a struct with an array field (the field `a` of `struct s`) is not supported",
            ),
            (
                "struct s { int b; int a[2]; }; __kernel void k() { struct s q; struct s r = q; }",
                Code::Unsupported,
                "a copy of a struct with an array field (the field `a` of `struct s`) is not supported",
            ),
            (
                "struct P { int a; int b; }; __kernel void k() { struct P t[2]; struct P s; s.a = 0; s = t[s.a]; }",
                Code::Unsupported,
                "an index of a struct copied whole that has an effect or reads memory or a struct is not supported",
            ),
            (
                "struct P { int a; }; struct Q { char a; }; __kernel void k() { struct P s; struct Q t; t = s; }",
                Code::Clang,
                "assigning to '__private struct Q' from incompatible type '__private struct P'",
            ),
            (
                "__kernel void k() { { struct s { int a; }; } }",
                Code::Unsupported,
                "a struct or `typedef` declared inside a function is not supported",
            ),
            (
                "typedef int T; typedef unsigned char T; __kernel void k() { }",
                Code::Clang,
                "typedef redefinition with different types ('unsigned char' vs 'int')",
            ),
            (
                "struct s { int a; }; struct s { char a; }; __kernel void k() { }",
                Code::Clang,
                "redefinition of 's'",
            ),
            (
                "struct s { int a; int b; }; __kernel void k(global struct s *g) { for (struct s q = g[0]; q.a < 3; q.a++) { } }",
                Code::Unsupported,
                "a struct declared or copied in a `for` loop's head is not supported",
            ),
            (
                "typedef int *ip; __kernel void k(global int *a) { ip p = a; }",
                Code::Unsupported,
                "the type `ip`, a `typedef` of a pointer or array type, is not supported",
            ),
            (
                "__kernel void k(global struct s *a) { }",
                Code::Unsupported,
                "`struct s`, declared without its fields, is not supported",
            ),
            (
                "struct s { int a; }; struct s f() { struct s r; return r; } __kernel void k() { }",
                Code::Unsupported,
                "a value of type `struct s` here is not supported",
            ),
            (
                "struct s { int a; }; __kernel void k() { struct s q; q.b = 1; }",
                Code::Clang,
                "no member named 'b' in 'struct s'",
            ),
        ] {
            assert_eq!(first_problem(text), Some((code, message.to_string())), "{text}");
        }
    }
}
