//! Clang's typed syntax tree ([`crate::c::clang`]) as the C syntax tree that the lowering reads
//! ([`crate::c::ast`]), with the annotations ([`crate::c::annotations`]) placed where they were
//! written.
//!
//! - Only what the file itself declares is taken (and the files it includes with `#include
//!   "..."`): the declarations of Clang's and lockstep's headers are the builtins the lowering
//!   knows by name.
//! - Spans are the file's: a node written in a macro's body takes the span of the macro's use, a
//!   macro argument its own; a node of an included file takes the span of the `#include` line.
//! - A name that a header defines as a macro and the lowering reads by its name (`true`,
//!   `false`, `NULL`, `CLK_LOCAL_MEM_FENCE`, `CLK_GLOBAL_MEM_FENCE`, `NAN`, `INFINITY`) stays
//!   that name.
//! - Types come from Clang's printed types: `typedef`s of the headers (`uint`, `float4`,
//!   `size_t`) are OpenCL's names for arithmetic types; the file's own `typedef`s and structs
//!   are declarations of the tree, which [`crate::c::structs`] takes apart.
//! - Every annotation ends up in the tree, at file level or between the statements of a block,
//!   or is reported: none is dropped.

use crate::c::annotations::Found;
use crate::c::ast::{self, Expr, ExprKind, Stmt, StmtKind};
use crate::c::clang::{Clang, Node, QualType, STANDARD_INPUT};
use crate::diagnostics::{Code, Diagnostic};
use clang_ast::{BareSourceLocation, SourceLocation, SourceRange};
use lockstep_logic::Span;
use num_bigint::BigInt;
use std::collections::{HashMap, HashSet};

/// The macros of OpenCL's and lockstep's headers that the lowering reads by their names.
const NAMED_MACROS: &[&str] =
    &["true", "false", "NULL", "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE", "NAN", "INFINITY"];

/// The file's declarations, as the lowering reads them, with its annotations.
pub fn import<'t>(root: &'t Node, text: &'t str, annotations: Vec<Found>) -> (ast::File, Vec<Diagnostic>) {
    let mut defaults = HashMap::new();
    default_arguments(root, &mut defaults);
    let mut methods = HashMap::new();
    member_functions(root, &mut methods);
    let mut importer = Importer {
        text,
        defaults,
        methods,
        member_functions_read: Vec::new(),
        diagnostics: Vec::new(),
        typedefs: HashMap::new(),
        user_typedefs: HashSet::new(),
        records: HashSet::new(),
        instantiations: HashMap::new(),
        placed: vec![false; annotations.len()],
        annotations,
        template_values: HashMap::new(),
        uninstantiated: Vec::new(),
        substitution: HashMap::new(),
    };
    let mut items: Vec<(usize, ast::Item)> = Vec::new();
    let decls = importer.declarations(&root.inner);
    let mut index = 0;
    while index < decls.len() {
        let node = &decls[index];
        index += 1;
        match &node.kind {
            Clang::TypedefDecl { name, ty, .. } => {
                importer.typedefs.insert(name.clone(), desugared(ty).to_string());
            }
            // `using T = int;` names the type wherever it is used.
            Clang::TypeAliasDecl { name, ty, .. } => {
                importer.typedefs.insert(name.clone(), desugared(ty).to_string());
                continue;
            }
            Clang::RecordDecl { name: Some(name), .. } | Clang::CXXRecordDecl { name: Some(name), .. } => {
                importer.records.insert(name.clone());
            }
            _ => {}
        }
        if !importer.is_users(node) {
            continue;
        }
        let owner = match (&node.kind, decls.get(index).copied()) {
            (Clang::RecordDecl { .. } | Clang::CXXRecordDecl { .. }, Some(next)) if owns(next, node) => {
                index += 1;
                Some(next)
            }
            _ => None,
        };
        // The items of one declaration keep their order: a struct's nested structs go first.
        let start = node.kind.range().map_or(0, |range| importer.span(range).start);
        items.extend(importer.items(node, owner).into_iter().map(|item| (start, item)));
    }
    // The annotations at file level go before the first item after them. One inside a template
    // that nothing instantiates belongs to no code that is verified; one inside any other
    // declaration that no block holds (`if (c) /*@ ... @*/ x = 1;`, a struct's body) has no
    // statement to belong to, and must not become the contract of what follows.
    let inside = |spans: &[Span], found: &Found| {
        spans.iter().any(|span| span.start < found.span.start && found.span.end <= span.end)
    };
    let declarations: Vec<Span> = items.iter().filter_map(|(_, item)| item_span(item)).collect();
    for (found, placed) in std::mem::take(&mut importer.annotations).into_iter().zip(importer.placed.clone()) {
        if placed || inside(&importer.uninstantiated, &found) {
            continue;
        }
        if inside(&declarations, &found) {
            importer.unsupported(
                found.span,
                "an annotation outside the statements of a block",
                "put the annotation on a line of its own between two statements of a `{ ... }` block, right before the loop, barrier or statement it is about",
            );
            continue;
        }
        items.push((found.span.start, ast::Item::Annotation(found.annotation)));
    }
    items.sort_by_key(|(start, _)| *start);
    let file = ast::File { items: with_contracts_per_instantiation(items, &importer.template_values) };
    (file, importer.diagnostics)
}

/// The items, where the instantiations of one template (written once, at one place) each have
/// the annotation written before the template: every instantiation is verified against it.
fn item_span(item: &ast::Item) -> Option<Span> {
    match item {
        ast::Item::Function(function) => Some(function.span),
        ast::Item::Declaration(declaration) => Some(declaration.span),
        ast::Item::Annotation(_) | ast::Item::Error => None,
    }
}

fn with_contracts_per_instantiation(
    items: Vec<(usize, ast::Item)>,
    template_values: &HashMap<String, HashMap<String, BigInt>>,
) -> Vec<ast::Item> {
    let mut placed: Vec<ast::Item> = Vec::with_capacity(items.len());
    let mut contract: Option<(usize, ast::Annotation)> = None;
    for (start, item) in items {
        match &item {
            ast::Item::Annotation(annotation) => contract = Some((start, annotation.clone())),
            ast::Item::Function(function) => {
                // The contract speaks of the template's parameters: here, of this instantiation's values.
                if let (Some(values), Some(ast::Item::Annotation(written))) =
                    (template_values.get(&function.name.name), placed.last_mut())
                {
                    *written = with_values(written, values);
                }
                let previous = placed.last();
                let same_template =
                    matches!(previous, Some(ast::Item::Function(previous)) if previous.span == function.span);
                match contract.take() {
                    Some((_, annotation)) if same_template => {
                        placed.push(ast::Item::Annotation(annotation.clone()));
                        contract = Some((start, annotation));
                    }
                    Some((_, annotation)) if matches!(previous, Some(ast::Item::Annotation(_))) => {
                        contract = Some((start, annotation));
                    }
                    _ => {}
                }
            }
            _ => contract = None,
        }
        placed.push(item);
    }
    placed
}

/// Whether `next` is a `typedef` of the struct `record` declares (`typedef struct { ... } s;`).
fn owns(next: &Node, record: &Node) -> bool {
    matches!(next.kind, Clang::TypedefDecl { .. })
        && next.inner.iter().any(|inner| match &inner.kind {
            Clang::ElaboratedType { owned_tag_decl: Some(owned) } => owned.id == record.id,
            _ => false,
        })
}

fn desugared(ty: &QualType) -> &str {
    ty.desugared_qual_type.as_deref().unwrap_or(&ty.qual_type)
}

struct Importer<'t> {
    text: &'t str,
    /// The default arguments of each function's parameters, by the function's id (C++'s `int k
    /// = 2`): a call that leaves an argument out passes the default.
    defaults: HashMap<clang_ast::Id, Vec<Option<&'t Node>>>,
    /// The member functions of the structs, by Clang's id.
    methods: HashMap<clang_ast::Id, Method>,
    /// The member functions of the struct being read, as functions of their own.
    member_functions_read: Vec<ast::Function>,
    diagnostics: Vec<Diagnostic>,
    /// Every `typedef` of the translation unit, headers' included: its name, and the type it names.
    typedefs: HashMap<String, String>,
    /// The `typedef`s the file declares itself, which stay names in the tree.
    user_typedefs: HashSet<String>,
    /// The struct tags, which C++ uses as type names.
    records: HashSet<String>,
    /// The instantiations of function templates, by Clang's id: their names with the template's
    /// arguments (`reduce<int, 256>`), which tell them from each other.
    instantiations: HashMap<clang_ast::Id, String>,
    /// The file's annotations, and whether each is placed in a block. One in a template's body is
    /// placed in each instantiation's.
    annotations: Vec<Found>,
    placed: Vec<bool>,
    /// The values of the value parameters of each instantiation of a template, by its name: an
    /// annotation of the template speaks of them by their names (`BLOCK`).
    template_values: HashMap<String, HashMap<String, BigInt>>,
    /// The templates that nothing instantiates: no code of theirs is verified.
    uninstantiated: Vec<Span>,
    /// The values of the instantiation being read.
    substitution: HashMap<String, BigInt>,
}

/// A type as the tree spells it: the specifiers' words, and the declarator's pointers and
/// dimensions.
struct Spelled {
    qualifiers: Vec<ast::Qualifier>,
    words: Vec<ast::TypeWord>,
    pointers: usize,
    dimensions: Vec<Option<BigInt>>,
}

impl<'t> Importer<'t> {
    fn unsupported(&mut self, span: Span, construct: &str, help: &str) {
        self.diagnostics.push(
            Diagnostic::error(Code::Unsupported, format!("{construct} is not supported"), span, "not supported")
                .with_help(help),
        );
    }

    /// Whether a declaration is the file's (or a file it includes with quotes), rather than a
    /// header's of Clang or lockstep.
    fn is_users(&self, node: &Node) -> bool {
        let (range, implicit) = match &node.kind {
            Clang::FunctionDecl { range, is_implicit, .. }
            | Clang::VarDecl { range, is_implicit, .. }
            | Clang::TypedefDecl { range, is_implicit, .. }
            | Clang::RecordDecl { range, is_implicit, .. }
            | Clang::CXXRecordDecl { range, is_implicit, .. } => (range, *is_implicit),
            Clang::EnumDecl { range, .. } => (range, false),
            _ => return false,
        };
        let file = range.begin.expansion_loc.as_ref().map(|loc| &*loc.file);
        !implicit && file.is_some_and(is_users_file)
    }

    /// The file's declarations at file scope: those of namespaces too, and for each function
    /// template its instantiations (a kernel template that nothing instantiates is reported).
    fn declarations<'n>(&mut self, nodes: &'n [Node]) -> Vec<&'n Node> {
        let mut found = Vec::new();
        for node in nodes {
            match &node.kind {
                Clang::NamespaceDecl { .. } => found.extend(self.declarations(&node.inner)),
                Clang::FunctionTemplateDecl { name, range, .. } => {
                    let mut instantiated = false;
                    for inner in &node.inner {
                        let arguments: Vec<String> = inner.inner.iter().filter_map(template_argument).collect();
                        if matches!(inner.kind, Clang::FunctionDecl { .. }) && !arguments.is_empty() {
                            let instantiation = format!("{name}<{}>", arguments.join(", "));
                            let values = template_parameters(node)
                                .zip(&arguments)
                                .filter_map(|(parameter, argument)| {
                                    Some((parameter.to_string(), argument.parse().ok()?))
                                })
                                .collect();
                            self.template_values.insert(instantiation.clone(), values);
                            self.instantiations.insert(inner.id, instantiation);
                            found.push(inner);
                            instantiated = true;
                        }
                    }
                    let kernel = node.inner.iter().any(|inner| {
                        matches!(inner.kind, Clang::FunctionDecl { .. })
                            && inner
                                .inner
                                .iter()
                                .any(|attribute| matches!(attribute.kind, Clang::CudaGlobalAttr { .. }))
                    });
                    let users =
                        range.begin.expansion_loc.as_ref().is_some_and(|location| is_users_file(&location.file));
                    if !instantiated {
                        let span = self.span(range);
                        self.uninstantiated.push(span);
                    }
                    if kernel && !instantiated && users {
                        let span = self.span(range);
                        self.diagnostics.push(
                            Diagnostic::error(Code::Unsupported, format!("the kernel template `{name}` is never instantiated"), span, "no instantiation to verify")
                                .with_help(format!("lockstep verifies each instantiation of a template: instantiate it for the arguments to verify, as `template __global__ void {name}<int>(int *);`")),
                        );
                    }
                }
                _ => found.push(node),
            }
        }
        found
    }

    // Spans.

    /// Where a location is in the file: a macro argument where it is written, anything else of
    /// a macro where the macro is used, and a place in another file at the `#include` that
    /// brought it in.
    fn offset(&self, location: &SourceLocation, end: bool) -> Option<usize> {
        let expansion = location.expansion_loc.as_ref()?;
        let chosen = match &location.spelling_loc {
            Some(spelling) if expansion.is_macro_arg_expansion && &*spelling.file == STANDARD_INPUT => spelling,
            _ => expansion,
        };
        if &*chosen.file != STANDARD_INPUT {
            return None;
        }
        Some(if end { chosen.offset + chosen.tok_len } else { chosen.offset }.min(self.text.len()))
    }

    fn span(&self, range: &SourceRange) -> Span {
        match (self.offset(&range.begin, false), self.offset(&range.end, true)) {
            (Some(start), Some(end)) if start <= end => self.clamped(start, end),
            (Some(start), _) => self.clamped(start, start),
            _ => self.include_span(range.begin.expansion_loc.as_ref()),
        }
    }

    /// A span of the text from `start` to `end`, kept inside it and on character boundaries
    /// (a macro's expansion may give a name a length its use does not have).
    fn clamped(&self, start: usize, end: usize) -> Span {
        let floor = |mut offset: usize| {
            offset = offset.min(self.text.len());
            while !self.text.is_char_boundary(offset) {
                offset -= 1;
            }
            offset
        };
        let start = floor(start);
        Span::new(start, floor(end).max(start))
    }

    /// The `#include` line of the file that brought a header's location in.
    fn include_span(&self, location: Option<&BareSourceLocation>) -> Span {
        let Some(location) = location else { return Span::new(0, 0) };
        // The header the file itself includes: the last of the chain before the file.
        let mut header: &str = &location.file;
        let mut from = location.included_from.as_ref();
        while let Some(includer) = from {
            if &*includer.file == STANDARD_INPUT {
                break;
            }
            header = &includer.file;
            from = includer.included_from.as_deref();
        }
        let name = std::path::Path::new(header).file_name().and_then(|name| name.to_str()).unwrap_or(header);
        let mut start = 0;
        for line in self.text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if trimmed.starts_with('#') && trimmed.contains("include") && trimmed.contains(name) {
                return Span::new(start, start + line.trim_end().len());
            }
            start += line.len();
        }
        Span::new(0, 0)
    }

    /// The text a token is spelled with, where it is in the file (a literal's digits, say).
    fn spelling(&self, range: &SourceRange) -> Option<&'t str> {
        let location = range.begin.spelling_loc.as_ref()?;
        if &*location.file != STANDARD_INPUT {
            return None;
        }
        self.text.get(location.offset..location.offset + location.tok_len)
    }

    /// The text of a range's last token, where it is in the file.
    fn last_token(&self, range: &SourceRange) -> Option<&'t str> {
        let location = range.end.spelling_loc.as_ref()?;
        if &*location.file != STANDARD_INPUT {
            return None;
        }
        self.text.get(location.offset..location.offset + location.tok_len)
    }

    /// The name of the header macro a whole node was expanded from, when the lowering reads that
    /// macro by name.
    fn named_macro(&self, range: &SourceRange) -> Option<&'static str> {
        let (begin, end) = (range.begin.expansion_loc.as_ref()?, range.end.expansion_loc.as_ref()?);
        let spelled_elsewhere =
            range.begin.spelling_loc.as_ref().is_some_and(|spelling| spelling.offset != begin.offset);
        if !spelled_elsewhere
            || begin.is_macro_arg_expansion
            || begin.offset != end.offset
            || &*begin.file != STANDARD_INPUT
        {
            return None;
        }
        let name = self.text.get(begin.offset..begin.offset + begin.tok_len)?;
        NAMED_MACROS.iter().copied().find(|known| *known == name)
    }

    // Annotations.

    /// The annotations inside `span` and outside every one of `children`, in order, with the
    /// values of the instantiation being read for its template's parameters.
    fn take_annotations(&mut self, span: Span, children: &[Span]) -> Vec<(usize, ast::Annotation)> {
        let mut taken = Vec::new();
        for (found, placed) in self.annotations.iter().zip(&mut self.placed) {
            let inside = span.start < found.span.start
                && found.span.end <= span.end
                && !children.iter().any(|child| child.start <= found.span.start && found.span.end <= child.end);
            if inside {
                *placed = true;
                taken.push((found.span.start, with_values(&found.annotation, &self.substitution)));
            }
        }
        taken
    }

    // Types.

    /// The words, pointers and dimensions of a type as Clang prints it.
    fn spelled(&mut self, ty: &str, span: Span) -> Option<Spelled> {
        let mut spelled = Spelled { qualifiers: Vec::new(), words: Vec::new(), pointers: 0, dimensions: Vec::new() };
        self.spell_into(ty, span, &mut spelled, 0)?;
        Some(spelled)
    }

    fn spell_into(&mut self, ty: &str, span: Span, spelled: &mut Spelled, depth: usize) -> Option<()> {
        let (ty, width) = match ty.split_once("__attribute__((ext_vector_type(") {
            Some((before, after)) => {
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                (before.to_string(), digits.parse::<u32>().ok())
            }
            None => (ty.to_string(), None),
        };
        let mut tokens = type_tokens(&ty).into_iter().peekable();
        let mut in_declarator = false;
        let mut struct_next = false;
        while let Some(token) = tokens.next() {
            use ast::{BaseType as B, Qualifier as Q, TypeWord as W};
            match token.as_str() {
                "*" => {
                    in_declarator = true;
                    spelled.pointers += 1;
                }
                "[" => {
                    in_declarator = true;
                    let size: String = tokens.by_ref().take_while(|token| token != "]").collect();
                    spelled.dimensions.push(size.parse::<BigInt>().ok());
                }
                "(" | ")" | "&" | "&&" => {
                    self.unsupported(
                        span,
                        &format!("the type `{ty}`"),
                        "lockstep reads scalars, vectors, structs, arrays and pointers to them",
                    );
                    return None;
                }
                _ if in_declarator => {}
                "__global" | "global" => spelled.qualifiers.push(Q::Global),
                "__local" | "local" => spelled.qualifiers.push(Q::Local),
                "__constant" | "constant" => spelled.qualifiers.push(Q::Constant),
                "__private" | "private" | "__generic" | "generic" => {}
                "const" => spelled.qualifiers.push(Q::Const),
                "volatile" => spelled.qualifiers.push(Q::Volatile),
                "restrict" | "__restrict" => spelled.qualifiers.push(Q::Restrict),
                "unsigned" => spelled.words.push(W::Unsigned),
                "signed" => spelled.words.push(W::Signed),
                "void" => spelled.words.push(W::Base(B::Void, false)),
                "bool" | "_Bool" => spelled.words.push(W::Base(B::Bool, false)),
                "char" => spelled.words.push(W::Base(B::Char, false)),
                "short" => spelled.words.push(W::Base(B::Short, false)),
                "int" => spelled.words.push(W::Base(B::Int, false)),
                "long" => spelled.words.push(W::Base(B::Long, false)),
                "float" => spelled.words.push(W::Base(B::Float, false)),
                "double" => spelled.words.push(W::Base(B::Double, false)),
                "half" | "__fp16" => spelled.words.push(W::Base(B::Half, false)),
                "size_t" => spelled.words.push(W::Base(B::SizeT, true)),
                // OpenCL's event of an asynchronous copy: an `int`, the copy's number
                // ([`crate::c::lower::async_copies`]).
                "event_t" => spelled.words.push(W::Base(B::Int, false)),
                // A sampler is an `int` of `CLK_` flags; its filtering is in the arbitrary values
                // an image read gives ([`crate::c::lower::images`]).
                "sampler_t" => spelled.words.push(W::Base(B::Int, false)),
                // An image is an array of pixels in global memory, one `int` cell for each.
                "image1d_t" | "image2d_t" | "image3d_t" | "image1d_array_t" | "image2d_array_t"
                | "image1d_buffer_t" => {
                    spelled.words.push(W::Base(B::Int, false));
                    spelled.qualifiers.push(Q::Global);
                    spelled.pointers += 1;
                }
                "__read_only" | "read_only" | "__write_only" | "write_only" => {}
                "__read_write" | "read_write" => {
                    self.unsupported(
                        span,
                        "a `read_write` image",
                        "read an image in one kernel and write it in another: lockstep reads images as `read_only` or `write_only`",
                    );
                    return None;
                }
                "struct" | "class" => struct_next = true,
                "union" => {
                    self.unsupported(span, "a `union` type", "pass the members as separate arrays");
                    return None;
                }
                "enum" => {
                    self.unsupported(span, "an `enum` type", "use `#define` constants");
                    return None;
                }
                name if refused_feature(name).is_some() => {
                    let (construct, help) = refused_feature(name).expect("matched");
                    self.unsupported(span, &construct, help);
                    return None;
                }
                // CUDA's vector types are structs of its header (`int2`), read as vectors.
                name if !struct_next && ast::arithmetic_type_name(name).is_some_and(|(_, _, width)| width > 1) => {
                    let (base, unsigned, width) = ast::arithmetic_type_name(name).expect("matched");
                    spelled.words.push(W::Vector(base, unsigned, width));
                }
                name if struct_next || (self.records.contains(name) && !self.typedefs.contains_key(name)) => {
                    struct_next = false;
                    let tag = ast::Ident { name: name.to_string(), span };
                    spelled.words.push(W::Named(ast::NamedType::Struct(Box::new(ast::StructType {
                        tag: Some(tag),
                        fields: None,
                        span,
                    }))));
                }
                name if self.user_typedefs.contains(name) => {
                    spelled.words.push(W::Named(ast::NamedType::Typedef(ast::Ident { name: name.to_string(), span })));
                }
                name => match ast::arithmetic_type_name(name) {
                    Some((base, unsigned, 1)) => spelled.words.push(W::Base(base, unsigned)),
                    Some((base, unsigned, width)) => spelled.words.push(W::Vector(base, unsigned, width)),
                    None => match self.typedefs.get(name).cloned() {
                        Some(named) if depth < 16 => self.spell_into(&named, span, spelled, depth + 1)?,
                        _ => {
                            let help = "lockstep reads the scalar and vector types of OpenCL C and CUDA, not their events, images and samplers";
                            self.unsupported(span, &format!("the type `{name}`"), help);
                            return None;
                        }
                    },
                },
            }
        }
        if let Some(width) = width {
            // `float __attribute__((ext_vector_type(4)))`: the words name the component.
            let (base, unsigned) = match spelled.words.as_slice() {
                [.., ast::TypeWord::Base(base, unsigned)] => {
                    (*base, *unsigned || spelled.words.iter().any(|word| matches!(word, ast::TypeWord::Unsigned)))
                }
                _ => (ast::BaseType::Int, false),
            };
            spelled.words.retain(|word| {
                !matches!(word, ast::TypeWord::Base(..) | ast::TypeWord::Unsigned | ast::TypeWord::Signed)
            });
            spelled.words.push(ast::TypeWord::Vector(base, unsigned, width));
        }
        Some(())
    }

    fn specifiers(&self, spelled: &Spelled, extra: &[ast::Qualifier], span: Span) -> ast::Specifiers {
        let words = extra
            .iter()
            .chain(&spelled.qualifiers)
            .map(|qualifier| ast::SpecWord::Qualifier(*qualifier, span))
            .chain(spelled.words.iter().cloned().map(|word| ast::SpecWord::Type(word, span)))
            .collect();
        ast::specifiers(words, span)
    }

    fn type_spec(&mut self, ty: &QualType, span: Span) -> Option<(ast::TypeSpec, usize)> {
        let spelled = self.spelled(&ty.qual_type, span)?;
        if !spelled.dimensions.is_empty() {
            self.unsupported(span, &format!("the array type `{}` here", ty.qual_type), "index the array itself");
            return None;
        }
        let pointers = spelled.pointers;
        Some((self.specifiers(&spelled, &[], span).ty, pointers))
    }

    fn declarator(&self, name: &str, name_span: Span, spelled: &Spelled, span: Span) -> ast::Declarator {
        ast::Declarator {
            pointers: spelled.pointers,
            name: ast::Ident { name: name.to_string(), span: name_span },
            dimensions: spelled.dimensions.iter().map(|size| size.clone().map(|size| Expr::int(size, span))).collect(),
            span,
        }
    }

    // Declarations.

    /// The items of a declaration: one, or a struct's with the structs defined in it first.
    fn items(&mut self, node: &Node, owner: Option<&Node>) -> Vec<ast::Item> {
        match &node.kind {
            Clang::RecordDecl { .. } | Clang::CXXRecordDecl { .. } => {
                let mut declarations = Vec::new();
                self.record(node, owner, &mut declarations);
                let functions = std::mem::take(&mut self.member_functions_read);
                let declarations = declarations.into_iter().map(ast::Item::Declaration);
                declarations.chain(functions.into_iter().map(ast::Item::Function)).collect()
            }
            _ => self.item(node).into_iter().collect(),
        }
    }

    fn item(&mut self, node: &Node) -> Option<ast::Item> {
        match &node.kind {
            Clang::FunctionDecl { parent_decl_context_id: Some(_), range, .. } => {
                let span = self.span(range);
                self.unsupported(
                    span,
                    "a member function defined outside its struct",
                    "define the member function inside the struct's body",
                );
                None
            }
            Clang::FunctionDecl { .. } => self.function(node).map(ast::Item::Function),
            Clang::VarDecl { .. } => {
                let (declaration, _) = self.variable(node)?;
                Some(ast::Item::Declaration(declaration))
            }
            Clang::TypedefDecl { name, ty, range, .. } => {
                let span = self.span(range);
                let spelled = self.spelled(&ty.qual_type, span)?;
                self.user_typedefs.insert(name.clone());
                let specifiers = self.specifiers(&spelled, &[ast::Qualifier::Typedef], span);
                let declarator = self.declarator(name, span, &spelled, span);
                Some(ast::Item::Declaration(ast::Declaration {
                    specifiers,
                    declarators: vec![(declarator, None)],
                    span,
                }))
            }
            Clang::EnumDecl { range, .. } => {
                let span = self.span(range);
                self.unsupported(span, "an `enum` type", "use `#define` constants");
                None
            }
            _ => None,
        }
    }

    /// A struct's definition, and the `typedef` that names it when one does, after the structs
    /// defined inside it (C gives those file scope).
    fn record(&mut self, node: &Node, owner: Option<&Node>, declarations: &mut Vec<ast::Declaration>) -> Option<()> {
        let (Clang::RecordDecl { name, range, tag_used, complete_definition, .. }
        | Clang::CXXRecordDecl { name, range, tag_used, complete_definition, .. }) = &node.kind
        else {
            return None;
        };
        let span = self.span(range);
        if tag_used == "union" {
            self.unsupported(span, "a `union` type", "pass the members as separate arrays");
            return None;
        }
        let mut fields = Vec::new();
        for inner in &node.inner {
            match &inner.kind {
                Clang::FieldDecl { name, range, ty, .. } => {
                    let field_span = self.span(range);
                    let spelled = self.spelled(&ty.qual_type, field_span)?;
                    let specifiers = self.specifiers(&spelled, &[], field_span);
                    let declarator = self.declarator(name.as_deref().unwrap_or(""), field_span, &spelled, field_span);
                    fields.push(ast::Field { specifiers, declarators: vec![declarator], span: field_span });
                }
                Clang::CXXRecordDecl { is_implicit: true, .. }
                | Clang::FunctionDecl { is_implicit: true, .. }
                | Clang::Other { .. } => {}
                Clang::RecordDecl { .. } => self.record(inner, None, declarations)?,
                Clang::FunctionDecl { .. } => {
                    let function = self.member_function(inner, name.as_deref().unwrap_or_default())?;
                    self.member_functions_read.push(function);
                }
                Clang::CXXRecordDecl { .. } => {
                    self.unsupported(
                        self.span(inner.kind.range()?),
                        "a struct's nested type",
                        "declare it outside the struct",
                    );
                    return None;
                }
                _ => {}
            }
        }
        let tag = name.as_ref().filter(|name| !name.is_empty()).map(|name| ast::Ident { name: name.clone(), span });
        let structure = ast::StructType { tag, fields: complete_definition.then_some(fields), span };
        let word = ast::SpecWord::Type(ast::TypeWord::Named(ast::NamedType::Struct(Box::new(structure))), span);
        let (mut words, mut declarators) = (vec![word], Vec::new());
        if let Some(Node { kind: Clang::TypedefDecl { name, range, .. }, .. }) = owner {
            let typedef_span = self.span(range);
            self.user_typedefs.insert(name.clone());
            words.insert(0, ast::SpecWord::Qualifier(ast::Qualifier::Typedef, typedef_span));
            let name = ast::Ident { name: name.clone(), span: typedef_span };
            declarators.push((ast::Declarator { pointers: 0, name, dimensions: Vec::new(), span: typedef_span }, None));
        }
        declarations.push(ast::Declaration { specifiers: ast::specifiers(words, span), declarators, span });
        Some(())
    }

    /// A member function of the struct `record` as a function of its own, `record::name`, whose
    /// first parameter is `this`, a pointer to the object (unless it is `static`): its fields
    /// are `this->field`, and a call `object.f(x)` is `record::f(&object, x)`.
    fn member_function(&mut self, node: &Node, record: &str) -> Option<ast::Function> {
        let Clang::FunctionDecl { name, range, storage_class, .. } = &node.kind else { return None };
        let span = self.span(range);
        let mut function = self.function(node)?;
        function.name.name = format!("{record}::{name}");
        if storage_class.as_deref() != Some("static") {
            let spelled = self.spelled(&format!("{record} *"), span)?;
            let specifiers = self.specifiers(&spelled, &[], span);
            let declarator = self.declarator(THIS, span, &spelled, span);
            function.params.insert(0, ast::Param { specifiers, declarator, span });
        }
        Some(function)
    }

    fn function(&mut self, node: &Node) -> Option<ast::Function> {
        let Clang::FunctionDecl { name, loc, range, ty, storage_class, inline, .. } = &node.kind else { return None };
        let span = self.span(range);
        let written_name = name;
        let name = self.instantiations.get(&node.id).unwrap_or(name).clone();
        self.substitution = self.template_values.get(&name).cloned().unwrap_or_default();
        let name_span = self.offset(loc, false).map_or(span, |start| self.clamped(start, start + written_name.len()));
        let mut qualifiers = Vec::new();
        let mut params = Vec::new();
        let mut body = None;
        for inner in &node.inner {
            match &inner.kind {
                Clang::OpenCLKernelAttr { .. } | Clang::CudaGlobalAttr { .. } => {
                    qualifiers.push(ast::Qualifier::Kernel)
                }
                Clang::CudaDeviceAttr { .. } => qualifiers.push(ast::Qualifier::Device),
                Clang::CudaHostAttr { .. } => qualifiers.push(ast::Qualifier::Host),
                Clang::ParmVarDecl { name, loc, range, ty, .. } => {
                    let param_span = self.span(range);
                    // A reference parameter (`float &c`) is a pointer: its uses read through it,
                    // and its arguments are passed by their address.
                    let (ty, reference) = match reference_to(&ty.qual_type) {
                        Some(referenced) => (referenced, 1),
                        None => (ty.qual_type.as_str(), 0),
                    };
                    let mut spelled = self.spelled(ty, param_span)?;
                    spelled.pointers += reference;
                    let specifiers = self.specifiers(&spelled, &[], param_span);
                    let name = name.clone().unwrap_or_default();
                    let name_span =
                        self.offset(loc, false).map_or(param_span, |start| self.clamped(start, start + name.len()));
                    let declarator = self.declarator(&name, name_span, &spelled, param_span);
                    params.push(ast::Param { specifiers, declarator, span: param_span });
                }
                Clang::CompoundStmt { .. } => body = Some(self.block(inner)?),
                _ => {}
            }
        }
        match storage_class.as_deref() {
            Some("static") => qualifiers.push(ast::Qualifier::Static),
            Some("extern") => qualifiers.push(ast::Qualifier::Extern),
            _ => {}
        }
        if *inline {
            qualifiers.push(ast::Qualifier::Inline);
        }
        let result = ty.qual_type.split_once('(').map_or(ty.qual_type.as_str(), |(result, _)| result.trim());
        let spelled = self.spelled(result, span)?;
        let specifiers = self.specifiers(&spelled, &qualifiers, span);
        Some(ast::Function {
            specifiers,
            pointers: spelled.pointers,
            name: ast::Ident { name: name.clone(), span: name_span },
            params,
            body,
            span,
        })
    }

    /// A variable's declaration, and the span of its name.
    fn variable(&mut self, node: &Node) -> Option<(ast::Declaration, Span)> {
        let Clang::VarDecl { name, loc, range, ty, storage_class, init, .. } = &node.kind else { return None };
        let span = self.span(range);
        let name_span = self.offset(loc, false).map_or(span, |start| self.clamped(start, start + name.len()));
        let mut qualifiers = Vec::new();
        for inner in &node.inner {
            match &inner.kind {
                Clang::CudaSharedAttr { .. } => qualifiers.push(ast::Qualifier::Shared),
                Clang::CudaConstantAttr { .. } => qualifiers.push(ast::Qualifier::Constant),
                Clang::CudaDeviceAttr { .. } => qualifiers.push(ast::Qualifier::Device),
                _ => {}
            }
        }
        match storage_class.as_deref() {
            Some("static") => qualifiers.push(ast::Qualifier::Static),
            Some("extern") => qualifiers.push(ast::Qualifier::Extern),
            _ => {}
        }
        let spelled = self.spelled(&ty.qual_type, span)?;
        let specifiers = self.specifiers(&spelled, &qualifiers, span);
        let declarator = self.declarator(name, name_span, &spelled, span);
        // A variable of a struct type declared without a value is default-constructed in C++:
        // Clang writes a constructor call of no arguments, which leaves it as C would.
        let default_constructed = node
            .inner
            .iter()
            .any(|inner| matches!(inner.kind, Clang::CxxConstructExpr { .. }) && inner.inner.is_empty());
        let initializer = match init {
            Some(_) if default_constructed => None,
            Some(_) => {
                let value = node.inner.iter().find(|inner| !inner.kind.is_attribute())?;
                Some(self.expr(value)?)
            }
            None => None,
        };
        Some((ast::Declaration { specifiers, declarators: vec![(declarator, initializer)], span }, name_span))
    }

    // Statements.

    fn block(&mut self, node: &Node) -> Option<ast::Block> {
        let span = node.kind.range().map_or(Span::new(0, 0), |range| self.span(range));
        let mut stmts: Vec<(usize, Stmt)> = Vec::new();
        for inner in &node.inner {
            let stmt = self.stmt(inner)?;
            stmts.push((stmt.span.start, stmt));
        }
        let children: Vec<Span> = stmts.iter().map(|(_, stmt)| stmt.span).collect();
        for (start, annotation) in self.take_annotations(span, &children) {
            let annotation_span = annotation.span;
            stmts.push((start, Stmt::new(StmtKind::Annotation(annotation), annotation_span).ok()?));
        }
        stmts.sort_by_key(|(start, _)| *start);
        Some(ast::Block { stmts: stmts.into_iter().map(|(_, stmt)| stmt).collect(), span })
    }

    fn stmt(&mut self, node: &Node) -> Option<Stmt> {
        let span = node.kind.range().map_or(Span::new(0, 0), |range| self.span(range));
        let child = |importer: &mut Self, index: usize| -> Option<Option<Box<Stmt>>> {
            match node.inner.get(index) {
                None | Some(Node { kind: Clang::Null, .. }) => Some(None),
                Some(inner) => Some(Some(Box::new(importer.stmt(inner)?))),
            }
        };
        let kind = match &node.kind {
            Clang::CompoundStmt { .. } => StmtKind::Block(self.block(node)?),
            Clang::DeclStmt { .. } => {
                let mut declarations = Vec::new();
                for inner in &node.inner {
                    match &inner.kind {
                        Clang::VarDecl { .. } => declarations.push(self.variable(inner)?.0),
                        Clang::RecordDecl { .. } | Clang::CXXRecordDecl { .. } | Clang::TypedefDecl { .. } => {
                            self.unsupported(
                                span,
                                "a struct or `typedef` declared inside a function",
                                "declare it at file level",
                            );
                            return None;
                        }
                        _ => {}
                    }
                }
                // `int a, b;`: one declaration of several declarators, as written.
                let mut declarations = declarations.into_iter();
                let mut declaration = declarations.next()?;
                for next in declarations {
                    declaration.declarators.extend(next.declarators);
                }
                declaration.span = span;
                StmtKind::Declaration(declaration)
            }
            Clang::IfStmt { has_init, has_var, .. } => {
                if *has_init || *has_var {
                    self.unsupported(
                        span,
                        "a declaration in an `if`'s condition",
                        "declare the variable before the `if`",
                    );
                    return None;
                }
                let cond = self.expr(node.inner.first()?)?;
                let then_branch = Box::new(self.stmt(node.inner.get(1)?)?);
                let else_branch = child(self, 2)?;
                StmtKind::If { cond, then_branch, else_branch }
            }
            Clang::WhileStmt { .. } => {
                let (cond, body) = (node.inner.first()?, node.inner.last()?);
                StmtKind::While { cond: self.expr(cond)?, body: Box::new(self.stmt(body)?) }
            }
            Clang::DoStmt { .. } => StmtKind::DoWhile {
                body: Box::new(self.stmt(node.inner.first()?)?),
                cond: self.expr(node.inner.get(1)?)?,
            },
            Clang::ForStmt { .. } => {
                // Clang's children: init, the condition's variable, condition, step, body.
                if !matches!(node.inner.get(1).map(|inner| &inner.kind), None | Some(Clang::Null)) {
                    self.unsupported(
                        span,
                        "a declaration in a `for`'s condition",
                        "declare the variable before the loop",
                    );
                    return None;
                }
                let init = child(self, 0)?;
                let cond = self.optional_expr(node.inner.get(2))?;
                let step = self.optional_expr(node.inner.get(3))?;
                let body = Box::new(self.stmt(node.inner.get(4)?)?);
                StmtKind::For { init, cond, step, body }
            }
            Clang::BreakStmt { .. } => StmtKind::Break,
            Clang::ContinueStmt { .. } => StmtKind::Continue,
            Clang::ReturnStmt { .. } => StmtKind::Return(self.optional_expr(node.inner.first())?),
            Clang::NullStmt { .. } => StmtKind::Empty,
            Clang::SwitchStmt { .. } => StmtKind::Unsupported("switch"),
            Clang::GotoStmt { .. } | Clang::LabelStmt { .. } => {
                let construct = if matches!(node.kind, Clang::GotoStmt { .. }) { "`goto`" } else { "a label" };
                self.unsupported(span, construct, "use structured control flow: `if`, loops, `break` and `continue`");
                return None;
            }
            Clang::AttributedStmt { .. } => return self.stmt(node.inner.last()?),
            _ => StmtKind::Expr(self.expr(node)?),
        };
        Stmt::new(kind, span).map_err(|error| self.too_deep(error)).ok()
    }

    fn optional_expr(&mut self, node: Option<&Node>) -> Option<Option<Expr>> {
        match node {
            None | Some(Node { kind: Clang::Null, .. }) => Some(None),
            Some(node) => Some(Some(self.expr(node)?)),
        }
    }

    fn too_deep(&mut self, _: ast::TooDeep) {
        let span = Span::new(0, 0);
        self.diagnostics.push(Diagnostic::error(
            Code::NestingTooDeep,
            "expressions or statements nested too deeply",
            span,
            "here",
        ));
    }

    // Expressions.

    fn exprs(&mut self, nodes: &[Node]) -> Option<Vec<Expr>> {
        nodes.iter().map(|node| self.expr(node)).collect()
    }

    fn expr(&mut self, node: &Node) -> Option<Expr> {
        let range = node.kind.range()?;
        let span = self.span(range);
        if let Some(name) = self.named_macro(range) {
            let kind = match name {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                _ => ExprKind::Name(name.to_string()),
            };
            return self.node(kind, span);
        }
        let first = |importer: &mut Self| importer.expr(node.inner.first()?);
        let kind = match &node.kind {
            Clang::ImplicitCastExpr { .. }
            | Clang::ParenExpr { .. }
            | Clang::ConstantExpr { .. }
            | Clang::MaterializeTemporaryExpr { .. } => return first(self),
            Clang::SubstNonTypeTemplateParmExpr { .. } => {
                // The value is written where the parameter is used: its span is that use's.
                let mut value = self.expr(node.inner.last()?)?;
                value.span = span;
                return Some(value);
            }
            Clang::IntegerLiteral { value, ty, .. } => {
                ExprKind::Int { value: value.parse().ok()?, unsigned: ty.qual_type.starts_with("unsigned") }
            }
            Clang::CharacterLiteral { value, .. } => ExprKind::Int { value: BigInt::from(*value), unsigned: false },
            Clang::FloatingLiteral { value, range, .. } => {
                ExprKind::Float(self.spelling(range).map_or_else(|| value.clone(), str::to_string))
            }
            Clang::CxxBoolLiteralExpr { value, .. } => ExprKind::Bool(*value),
            Clang::StringLiteral { .. } => ExprKind::String,
            Clang::DeclRefExpr { referenced_decl, .. } => {
                if referenced_decl.kind == "EnumConstantDecl" {
                    self.unsupported(span, "an `enum` constant", "use `#define` constants");
                    return None;
                }
                let name = self.node(ExprKind::Name(referenced_decl.name.clone()), span)?;
                if reference_to(&referenced_decl.ty.qual_type).is_none() {
                    return Some(name);
                }
                ExprKind::Unary { op: ast::UnaryOp::Deref, operand: Box::new(name) }
            }
            Clang::CxxNullPtrLiteralExpr { .. } => ExprKind::Name("NULL".to_string()),
            Clang::CxxCastExpr { ty, .. } => {
                let (ty, pointers) = self.type_spec(ty, span)?;
                ExprKind::Cast { ty, pointers, operand: Box::new(first(self)?) }
            }
            Clang::CStyleCastExpr { ty, .. } => {
                let (ty, pointers) = self.type_spec(ty, span)?;
                ExprKind::Cast { ty, pointers, operand: Box::new(first(self)?) }
            }
            Clang::CompoundLiteralExpr { ty, .. } => {
                // OpenCL's vector literal: `(float4)(a, b, c, d)` or `(int2){1, 0}`.
                let (ty, pointers) = self.type_spec(ty, span)?;
                let list = node.inner.first()?;
                let items = self.exprs(list_items(list))?;
                let list_span = list.kind.range().map_or(span, |range| self.span(range));
                let braced = self.text.get(list_span.start..).is_some_and(|rest| rest.starts_with('{'));
                let operand = if braced {
                    self.node(ExprKind::InitList(items), list_span)?
                } else {
                    let mut items = items.into_iter();
                    let first = items.next()?;
                    items.try_fold(first, |lhs, rhs| {
                        let span = lhs.span.to(rhs.span);
                        self.node(ExprKind::Comma(Box::new(lhs), Box::new(rhs)), span)
                    })?
                };
                ExprKind::Cast { ty, pointers, operand: Box::new(operand) }
            }
            Clang::UnaryOperator { opcode, is_postfix, .. } => {
                use ast::UnaryOp as U;
                let op = match (opcode.as_str(), is_postfix) {
                    ("-", _) => U::Neg,
                    ("+", _) => U::Plus,
                    ("!", _) => U::Not,
                    ("~", _) => U::BitNot,
                    ("*", _) => U::Deref,
                    ("&", _) => U::AddressOf,
                    ("++", false) => U::PreIncrement,
                    ("--", false) => U::PreDecrement,
                    ("++", true) => U::PostIncrement,
                    ("--", true) => U::PostDecrement,
                    _ => {
                        self.unsupported(
                            span,
                            &format!("the operator `{opcode}`"),
                            "write the expression with C's arithmetic operators",
                        );
                        return None;
                    }
                };
                match (op, first(self)?) {
                    // `*&e` is `e`.
                    (U::Deref, Expr { kind: ExprKind::Unary { op: U::AddressOf, operand }, .. }) => operand.kind,
                    (op, operand) => ExprKind::Unary { op, operand: Box::new(operand) },
                }
            }
            Clang::BinaryOperator { opcode, .. } | Clang::CompoundAssignOperator { opcode, .. } => {
                let lhs = Box::new(self.expr(node.inner.first()?)?);
                let rhs = Box::new(self.expr(node.inner.get(1)?)?);
                match opcode.as_str() {
                    "=" => ExprKind::Assign { op: None, target: lhs, value: rhs },
                    "," => ExprKind::Comma(lhs, rhs),
                    compound
                        if compound.len() >= 2
                            && compound.ends_with('=')
                            && !matches!(compound, "==" | "!=" | "<=" | ">=") =>
                    {
                        let op = binary_op(&compound[..compound.len() - 1])?;
                        ExprKind::Assign { op: Some(op), target: lhs, value: rhs }
                    }
                    other => match binary_op(other) {
                        Some(op) => ExprKind::Binary { op, lhs, rhs },
                        None => {
                            self.unsupported(
                                span,
                                &format!("the operator `{other}`"),
                                "write the expression with C's arithmetic operators",
                            );
                            return None;
                        }
                    },
                }
            }
            Clang::ConditionalOperator { .. } => ExprKind::Cond {
                cond: Box::new(self.expr(node.inner.first()?)?),
                then_value: Box::new(self.expr(node.inner.get(1)?)?),
                else_value: Box::new(self.expr(node.inner.get(2)?)?),
            },
            Clang::ArraySubscriptExpr { .. } => ExprKind::Index {
                base: Box::new(self.expr(node.inner.first()?)?),
                index: Box::new(self.expr(node.inner.get(1)?)?),
            },
            Clang::CallExpr { .. } => {
                let callee = node.inner.first()?;
                if let Some((construct, help)) = self.callee(callee).and_then(|(name, _)| refused_feature(&name)) {
                    self.unsupported(span, &construct, help);
                    return None;
                }
                let Some((name, name_span)) = self.callee(callee) else {
                    self.unsupported(span, "a call through a function pointer", "call the function by its name");
                    return None;
                };
                let mut args = self.arguments(callee_id(callee), &node.inner[1..], &reference_parameters(callee))?;
                // CUDA's `__ldg(p)` reads `*p` through the read-only cache: a read of `*p`.
                if (name == "__ldg" || name.starts_with("__ldg<")) && args.len() == 1 {
                    match args.remove(0) {
                        Expr { kind: ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand }, .. } => {
                            return Some(*operand)
                        }
                        pointer => ExprKind::Unary { op: ast::UnaryOp::Deref, operand: Box::new(pointer) },
                    }
                } else {
                    ExprKind::Call { function: ast::Ident { name, span: name_span }, args }
                }
            }
            Clang::CxxThisExpr { .. } => ExprKind::Name(THIS.to_string()),
            Clang::MemberExpr { name, is_arrow, .. } => {
                let base = Box::new(first(self)?);
                let field_start = span.end.saturating_sub(name.len()).max(base.span.end);
                ExprKind::Member {
                    base,
                    field: ast::Ident { name: name.clone(), span: self.clamped(field_start, span.end) },
                    arrow: *is_arrow,
                }
            }
            Clang::ExtVectorElementExpr { .. } => {
                // Clang's JSON leaves the components out: they are the last token.
                let Some(accessor) = self.last_token(range) else {
                    self.unsupported(
                        span,
                        "a vector's components spelled in another file",
                        "write the components in the kernel's file",
                    );
                    return None;
                };
                let accessor = accessor.to_string();
                let base = Box::new(first(self)?);
                let field_start = span.end.saturating_sub(accessor.len()).max(base.span.end);
                ExprKind::Member {
                    base,
                    field: ast::Ident { name: accessor.clone(), span: self.clamped(field_start, span.end) },
                    arrow: false,
                }
            }
            Clang::UnaryExprOrTypeTraitExpr { name, arg_type, .. } if name == "sizeof" => match arg_type {
                Some(ty) => {
                    let (ty, pointers) = self.type_spec(ty, span)?;
                    ExprKind::SizeofType { ty, pointers }
                }
                None => ExprKind::SizeofExpr(Box::new(first(self)?)),
            },
            Clang::InitListExpr { .. } => ExprKind::InitList(self.exprs(list_items(node))?),
            Clang::CxxMemberCallExpr { .. } if self.called_method(node).is_some() => {
                let (callee, method) = self.called_method(node)?;
                let Clang::MemberExpr { is_arrow, referenced_member_decl, range, .. } = &callee.kind else {
                    return None;
                };
                let mut args = Vec::new();
                if !method.is_static {
                    let object = self.expr(callee.inner.first()?)?;
                    args.push(match is_arrow {
                        true => object,
                        false => {
                            let object_span = object.span;
                            let taken = ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand: Box::new(object) };
                            self.node(taken, object_span)?
                        }
                    });
                }
                args.extend(self.arguments(*referenced_member_decl, &node.inner[1..], &method.references)?);
                ExprKind::Call { function: ast::Ident { name: method.name, span: self.span(range) }, args }
            }
            Clang::CxxMemberCallExpr { .. } => {
                let (construct, help) = called_names(node).iter().find_map(|name| refused_feature(name)).unwrap_or((
                    "a call of this member function (of a class template, or a constructor's)".to_string(),
                    "define the member function inside the body of a struct that is not a template, or write it as a function of its own with the object as a parameter",
                ));
                self.unsupported(span, &construct, help);
                return None;
            }
            // A copy of a value (C++ copies `int2 v = make_int2(a, b);` through a constructor
            // that Clang elides): the value.
            Clang::CxxConstructExpr { .. } if node.inner.len() == 1 => return first(self),
            Clang::CxxConstructExpr { .. } => {
                self.unsupported(span, "a constructor call", "initialize the struct's fields one by one");
                return None;
            }
            Clang::CxxOperatorCallExpr { .. } => {
                self.unsupported(span, "an overloaded operator", "call a function that does what the operator does");
                return None;
            }
            Clang::CxxDefaultArgExpr { .. } => {
                self.unsupported(span, "a default argument", "write the argument in the call");
                return None;
            }
            Clang::LambdaExpr { .. } => {
                self.unsupported(span, "a lambda", "write it as a `__device__` function");
                return None;
            }
            _ => {
                let what = self
                    .text
                    .get(span.start..span.end)
                    .filter(|text| !text.is_empty() && text.len() < 40)
                    .map_or_else(|| "this expression".to_string(), |text| format!("`{text}`"));
                self.unsupported(
                    span,
                    &what,
                    "lockstep reads the expressions of C: arithmetic, comparisons, array and struct accesses, calls",
                );
                return None;
            }
        };
        self.node(kind, span)
    }

    /// The name a call calls, and where it is written.
    fn callee(&self, node: &Node) -> Option<(String, Span)> {
        match &node.kind {
            Clang::ImplicitCastExpr { .. } | Clang::ParenExpr { .. } => self.callee(node.inner.first()?),
            Clang::DeclRefExpr { referenced_decl, range, .. } if referenced_decl.kind == "FunctionDecl" => {
                let name = self.instantiations.get(&referenced_decl.id).unwrap_or(&referenced_decl.name);
                Some((name.clone(), self.span(range)))
            }
            // A static member function, `S::f(...)`.
            Clang::DeclRefExpr { referenced_decl, range, .. } if referenced_decl.kind == "CXXMethodDecl" => {
                Some((self.methods.get(&referenced_decl.id)?.name.clone(), self.span(range)))
            }
            _ => None,
        }
    }

    /// The arguments of a call of the function `function`: one left out passes its default, and
    /// one of a reference parameter is passed by its address.
    fn arguments(&mut self, function: Option<clang_ast::Id>, nodes: &[Node], references: &[bool]) -> Option<Vec<Expr>> {
        let defaults = function.and_then(|id| self.defaults.get(&id)).cloned().unwrap_or_default();
        let mut args = Vec::new();
        for (index, arg) in nodes.iter().enumerate() {
            let arg = match (&arg.kind, defaults.get(index)) {
                (Clang::CxxDefaultArgExpr { .. }, Some(Some(default))) => default,
                _ => arg,
            };
            let arg = self.expr(arg)?;
            args.push(match references.get(index) {
                Some(true) => {
                    let span = arg.span;
                    self.node(ExprKind::Unary { op: ast::UnaryOp::AddressOf, operand: Box::new(arg) }, span)?
                }
                _ => arg,
            });
        }
        Some(args)
    }

    /// The member function a call `object.f(...)` calls, and the callee `object.f`.
    fn called_method<'n>(&self, call: &'n Node) -> Option<(&'n Node, Method)> {
        let callee = call.inner.first()?;
        let Clang::MemberExpr { referenced_member_decl: Some(id), .. } = &callee.kind else { return None };
        Some((callee, self.methods.get(id)?.clone()))
    }

    fn node(&mut self, kind: ExprKind, span: Span) -> Option<Expr> {
        Expr::new(kind, span).map_err(|error| self.too_deep(error)).ok()
    }
}

/// The CUDA features lockstep refuses, by a name of theirs (a type, a function, a namespace):
/// what to say, and the help.
fn refused_feature(name: &str) -> Option<(String, &'static str)> {
    let (what, help) = match name {
        "texture" | "surface" | "cudaTextureObject_t" | "cudaSurfaceObject_t" | "tex1Dfetch" | "tex1D" | "tex2D"
        | "tex3D" | "surf1Dwrite" | "surf2Dwrite" | "surf1Dread" | "surf2Dread" => (
            "a texture or surface",
            "lockstep verifies kernels over global, shared and constant memory: pass the data as a `const` pointer and index it",
        ),
        "curandState" | "curandState_t" | "curandStateXORWOW" | "curand_init" | "curand" | "curand_uniform"
        | "curand_normal" | "curand_uniform_double" | "curand_normal_double" => (
            "cuRAND",
            "pass the random numbers to the kernel in an array, or compute them from the thread's id",
        ),
        "cooperative_groups" | "this_grid" | "this_thread_block" | "thread_block" | "grid_group" | "thread_group" => (
            "a cooperative group",
            "use `__syncthreads()` for a block's barrier; lockstep verifies no barrier over the whole grid",
        ),
        _ => return None,
    };
    Some((format!("{what} (`{name}`)"), help))
}

/// The functions a call's expression names, the callee's own and its object's.
fn called_names(node: &Node) -> Vec<String> {
    let mut names = Vec::new();
    if let Clang::DeclRefExpr { referenced_decl, .. } = &node.kind {
        names.push(referenced_decl.name.clone());
    }
    if let Clang::MemberExpr { name, .. } = &node.kind {
        names.push(name.clone());
    }
    for inner in &node.inner {
        names.extend(called_names(inner));
    }
    names
}

/// The names of a template's parameters, in order.
fn template_parameters(template: &Node) -> impl Iterator<Item = &str> {
    template.inner.iter().filter_map(|inner| match &inner.kind {
        Clang::TemplateParmDecl { name, .. } => Some(name.as_str()),
        _ => None,
    })
}

/// An annotation with values for names: a template's parameters' in an instantiation.
fn with_values(annotation: &ast::Annotation, values: &HashMap<String, BigInt>) -> ast::Annotation {
    let mut annotation = annotation.clone();
    if !values.is_empty() {
        for clause in &mut annotation.clauses {
            if let ast::SpecClause::Clause { formula, .. } = clause {
                substitute(formula, values);
            }
        }
    }
    annotation
}

/// Replaces each name of `values` in `expr` by its value.
fn substitute(expr: &mut Expr, values: &HashMap<String, BigInt>) {
    if let ExprKind::Name(name) = &expr.kind {
        if let Some(value) = values.get(name) {
            expr.kind = ExprKind::Int { value: value.clone(), unsigned: false };
        }
        return;
    }
    for child in expr.kind.children_mut() {
        substitute(child, values);
    }
}

/// The type a reference type refers to: `float` of `float &`.
fn reference_to(ty: &str) -> Option<&str> {
    ty.strip_suffix('&').filter(|referenced| !referenced.ends_with('&')).map(str::trim_end)
}

/// The default arguments of the parameters of every function in the tree, by its id.
fn default_arguments<'t>(node: &'t Node, defaults: &mut HashMap<clang_ast::Id, Vec<Option<&'t Node>>>) {
    if let Clang::FunctionDecl { .. } = node.kind {
        let parameters = node.inner.iter().filter(|inner| matches!(inner.kind, Clang::ParmVarDecl { .. }));
        let found: Vec<Option<&Node>> =
            parameters.map(|parameter| parameter.inner.iter().find(|inner| !inner.kind.is_attribute())).collect();
        if found.iter().any(Option::is_some) {
            defaults.insert(node.id, found);
        }
    }
    for inner in &node.inner {
        default_arguments(inner, defaults);
    }
}

/// The name of the pointer to the object that a member function reads as a parameter of its own.
const THIS: &str = "this";

/// A struct's member function: its name as a function of its own (`S::f`), whether it is
/// `static` (it has no `this`), and which of its parameters are references.
#[derive(Clone)]
struct Method {
    name: String,
    is_static: bool,
    references: Vec<bool>,
}

/// The member functions of every struct in the tree, by their ids.
fn member_functions(node: &Node, methods: &mut HashMap<clang_ast::Id, Method>) {
    if let Clang::CXXRecordDecl { name: Some(record), .. } = &node.kind {
        for inner in &node.inner {
            if let Clang::FunctionDecl { name, storage_class, is_implicit: false, ty, .. } = &inner.kind {
                let references =
                    parameter_types(&ty.qual_type).into_iter().map(|ty| reference_to(ty).is_some()).collect();
                let is_static = storage_class.as_deref() == Some("static");
                methods.insert(inner.id, Method { name: format!("{record}::{name}"), is_static, references });
            }
        }
    }
    for inner in &node.inner {
        member_functions(inner, methods);
    }
}

/// The id of the function a call's callee names.
fn callee_id(callee: &Node) -> Option<clang_ast::Id> {
    match &callee.kind {
        Clang::ImplicitCastExpr { .. } | Clang::ParenExpr { .. } => callee_id(callee.inner.first()?),
        Clang::DeclRefExpr { referenced_decl, .. } => Some(referenced_decl.id),
        _ => None,
    }
}

/// Whether each parameter of the function a call's callee names is a reference.
fn reference_parameters(callee: &Node) -> Vec<bool> {
    match &callee.kind {
        Clang::ImplicitCastExpr { .. } | Clang::ParenExpr { .. } => {
            callee.inner.first().map_or_else(Vec::new, reference_parameters)
        }
        Clang::DeclRefExpr { referenced_decl, .. } => parameter_types(&referenced_decl.ty.qual_type)
            .into_iter()
            .map(|parameter| reference_to(parameter).is_some())
            .collect(),
        _ => Vec::new(),
    }
}

/// The parameter types of a printed function type: `int &` and `float` of `void (int &, float)`.
fn parameter_types(ty: &str) -> Vec<&str> {
    let Some(open) = ty.find('(') else { return Vec::new() };
    // Up to the `)` that closes the list: a member function's type goes on (`int (int) const`).
    let inner = &ty[open + 1..];
    let mut parameters = Vec::new();
    let (mut depth, mut start, mut end) = (0usize, 0, inner.len());
    for (at, character) in inner.char_indices() {
        match character {
            ')' if depth == 0 => {
                end = at;
                break;
            }
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parameters.push(inner[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    parameters.push(inner[start..end].trim());
    parameters.retain(|parameter| !parameter.is_empty() && *parameter != "void");
    parameters
}

/// A template argument as C++ writes it: `int`, or `256`.
fn template_argument(node: &Node) -> Option<String> {
    match &node.kind {
        Clang::TemplateArgument { ty: Some(ty), .. } => Some(ty.qual_type.clone()),
        Clang::TemplateArgument { value: Some(value), .. } => Some(value.to_string()),
        _ => None,
    }
}

/// The values an initializer list is written with.
fn list_items(list: &Node) -> &[Node] {
    match &list.kind {
        Clang::InitListExpr { array_filler, .. } if !array_filler.is_empty() => &array_filler[1..],
        _ => &list.inner,
    }
}

fn binary_op(opcode: &str) -> Option<ast::BinaryOp> {
    use ast::BinaryOp as B;
    Some(match opcode {
        "*" => B::Mul,
        "/" => B::Div,
        "%" => B::Rem,
        "+" => B::Add,
        "-" => B::Sub,
        "<<" => B::Shl,
        ">>" => B::Shr,
        "<" => B::Lt,
        "<=" => B::Le,
        ">" => B::Gt,
        ">=" => B::Ge,
        "==" => B::Eq,
        "!=" => B::Ne,
        "&" => B::BitAnd,
        "^" => B::BitXor,
        "|" => B::BitOr,
        "&&" => B::And,
        "||" => B::Or,
        _ => return None,
    })
}

/// Whether a file of Clang's locations is the user's: the text itself, or a file it includes
/// that is neither Clang's header nor lockstep's.
fn is_users_file(file: &str) -> bool {
    file == STANDARD_INPUT
        || !(file.contains("/lib/clang/") || file.contains("lockstep-include-") || file.starts_with("/usr/include"))
}

/// The words and punctuation of a printed type.
fn type_tokens(ty: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in ty.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}
