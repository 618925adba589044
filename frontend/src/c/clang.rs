//! Clang, the front door of OpenCL C and CUDA: lockstep runs Debian's `clang` (14 or newer) as a
//! process on the text of a file and reads the typed syntax tree it prints (`-ast-dump=json`),
//! as Faial does. Preprocessing, `#include`s, macros, templates, overloads and C's implicit
//! conversions so come out exactly as the kernel's own compiler sees them.
//!
//! Why a process and its JSON rather than libclang through a crate: Debian's `clang` package is
//! the one thing to install (no `libclang-dev` matched to a crate's bindings, no `unsafe`), the
//! JSON carries every node of the typed tree (libclang's C API leaves out implicit casts and
//! most operators' kinds), and the [`clang_ast`] crate reads it with the file and line that
//! Clang leaves out of a location when they repeat the previous one.
//!
//! The headers a kernel expects come with lockstep (`frontend/include/`, written to a folder of
//! the temporary directory on first use): OpenCL's builtins are Clang's own; `lockstep_cuda.h`
//! declares what CUDA's headers give device code (`threadIdx`, `__syncthreads`, the atomics,
//! ...), and `lockstep_gpuverify.h` GPUVerify's annotation functions (`__requires`,
//! `__invariant`, ...). Clang's errors become [`Code::Clang`] diagnostics at their place in the
//! file; without `clang` installed, reading C gives one [`Code::NoClang`] error naming the package.

use crate::c::Dialect;
use crate::diagnostics::{Code, Diagnostic};
use lockstep_logic::Span;
use serde::Deserialize;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A node of Clang's tree: the kinds lockstep reads, with the fields it uses; every other kind is
/// [`Clang::Other`], which the import refuses where it matters (never silently drops).
pub type Node = clang_ast::Node<Clang>;

/// A type as Clang prints it (`__global float4 *__private`), and without its `typedef`s when
/// that differs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QualType {
    pub qual_type: String,
    pub desugared_qual_type: Option<String>,
}

/// The declaration a name refers to.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Referenced {
    #[serde(default)]
    pub id: clang_ast::Id,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub kind: String,
    #[serde(rename = "type", default)]
    pub ty: QualType,
}

/// The tag declaration a type node stands for (a `typedef`'s struct).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct DeclId {
    pub id: clang_ast::Id,
}

#[derive(Debug, Deserialize)]
pub enum Clang {
    TranslationUnitDecl,
    /// `namespace n { ... }`: its declarations.
    NamespaceDecl {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// `template <...> f`: the pattern, then an instantiation for each use.
    FunctionTemplateDecl {
        #[serde(default)]
        name: String,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CXXConstructExpr", alias = "CXXTemporaryObjectExpr")]
    CxxConstructExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CXXOperatorCallExpr")]
    CxxOperatorCallExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CXXDefaultArgExpr")]
    CxxDefaultArgExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    LambdaExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// `this` in a member function.
    #[serde(rename = "CXXThisExpr")]
    CxxThisExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// `object.f(...)`: a call of a member function.
    #[serde(rename = "CXXMemberCallExpr")]
    CxxMemberCallExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// A template's parameter: a value's (`int K`), or a type's (`class T`).
    #[serde(rename = "NonTypeTemplateParmDecl", alias = "TemplateTypeParmDecl")]
    TemplateParmDecl {
        #[serde(default)]
        name: String,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// An instantiation's template argument: a type, or a value.
    TemplateArgument {
        #[serde(rename = "type")]
        ty: Option<QualType>,
        value: Option<serde_json::Value>,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// `using T = int;`.
    TypeAliasDecl {
        #[serde(default)]
        name: String,
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// `static_cast<T>(e)`, `const_cast`, `reinterpret_cast` and `T(e)`: casts.
    #[serde(
        rename = "CXXStaticCastExpr",
        alias = "CXXFunctionalCastExpr",
        alias = "CXXConstCastExpr",
        alias = "CXXReinterpretCastExpr"
    )]
    CxxCastExpr {
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CXXNullPtrLiteralExpr")]
    CxxNullPtrLiteralExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// A template's value parameter in an instantiation: the parameter, then its value.
    SubstNonTypeTemplateParmExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// C++'s wrappers of a value (a temporary, its cleanups): the value.
    #[serde(alias = "ExprWithCleanups")]
    MaterializeTemporaryExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// A function, or a struct's member function (`CXXMethodDecl`).
    #[serde(rename_all = "camelCase", alias = "CXXMethodDecl")]
    FunctionDecl {
        #[serde(default)]
        name: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        storage_class: Option<String>,
        #[serde(default)]
        inline: bool,
        #[serde(default)]
        is_implicit: bool,
        /// The struct of a member function defined outside it (`void S::f() { ... }`).
        parent_decl_context_id: Option<clang_ast::Id>,
    },
    ParmVarDecl {
        name: Option<String>,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
    },
    #[serde(rename_all = "camelCase")]
    VarDecl {
        #[serde(default)]
        name: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        storage_class: Option<String>,
        init: Option<String>,
        #[serde(default)]
        is_implicit: bool,
    },
    FieldDecl {
        name: Option<String>,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    RecordDecl {
        name: Option<String>,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        tag_used: String,
        #[serde(default)]
        complete_definition: bool,
        #[serde(default)]
        is_implicit: bool,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    CXXRecordDecl {
        name: Option<String>,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        tag_used: String,
        #[serde(default)]
        complete_definition: bool,
        #[serde(default)]
        is_implicit: bool,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    TypedefDecl {
        #[serde(default)]
        name: String,
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        is_implicit: bool,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// A type node inside a `typedef`: the struct it declares, when it declares one.
    #[serde(rename_all = "camelCase")]
    ElaboratedType {
        owned_tag_decl: Option<DeclId>,
    },
    EnumDecl {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    OpenCLKernelAttr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CUDAGlobalAttr")]
    CudaGlobalAttr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CUDADeviceAttr")]
    CudaDeviceAttr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CUDAHostAttr")]
    CudaHostAttr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CUDASharedAttr")]
    CudaSharedAttr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CUDAConstantAttr")]
    CudaConstantAttr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    // Statements.
    CompoundStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    DeclStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    IfStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        has_else: bool,
        #[serde(default)]
        has_init: bool,
        #[serde(default)]
        has_var: bool,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    WhileStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    DoStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ForStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    BreakStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ContinueStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ReturnStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    NullStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    SwitchStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    GotoStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    LabelStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// A statement with attributes (`__attribute__((opencl_unroll_hint))`): the statement.
    AttributedStmt {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    // Expressions.
    IntegerLiteral {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        value: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    CharacterLiteral {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        value: i64,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    FloatingLiteral {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        value: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename = "CXXBoolLiteralExpr")]
    CxxBoolLiteralExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        value: bool,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    StringLiteral {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    DeclRefExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        referenced_decl: Referenced,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ParenExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    ImplicitCastExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        cast_kind: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    CStyleCastExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    UnaryOperator {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        opcode: String,
        #[serde(default)]
        is_postfix: bool,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    BinaryOperator {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        opcode: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    CompoundAssignOperator {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        opcode: String,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ConditionalOperator {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ArraySubscriptExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    CallExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    MemberExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        name: String,
        #[serde(default)]
        is_arrow: bool,
        /// The field or member function named.
        referenced_member_decl: Option<clang_ast::Id>,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    ExtVectorElementExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    #[serde(rename_all = "camelCase")]
    UnaryExprOrTypeTraitExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        name: String,
        arg_type: Option<QualType>,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// `{a, b}`: its values are the children, or, when the list leaves values to be filled
    /// (`{1}` for three), the `array_filler`'s after its first, the filler.
    InitListExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        array_filler: Vec<Node>,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    CompoundLiteralExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(rename = "type", default)]
        ty: QualType,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// A constant expression Clang evaluated (an array's size): the expression.
    ConstantExpr {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
    /// An empty child (`for (;;)` has no init, condition or step).
    #[serde(rename = "null")]
    Null,
    Other {
        #[serde(default)]
        range: clang_ast::SourceRange,
        #[serde(default)]
        loc: clang_ast::SourceLocation,
    },
}

impl Clang {
    /// Whether the node is an attribute lockstep reads (`__kernel`, `__shared__`, ...), which Clang
    /// lists among a declaration's children.
    pub fn is_attribute(&self) -> bool {
        use Clang::*;
        matches!(
            self,
            OpenCLKernelAttr { .. }
                | CudaGlobalAttr { .. }
                | CudaDeviceAttr { .. }
                | CudaHostAttr { .. }
                | CudaSharedAttr { .. }
                | CudaConstantAttr { .. }
        )
    }

    /// The node's source range, where it has one.
    pub fn range(&self) -> Option<&clang_ast::SourceRange> {
        use Clang::*;
        match self {
            NamespaceDecl { range, .. }
            | FunctionTemplateDecl { range, .. }
            | CxxConstructExpr { range, .. }
            | CxxOperatorCallExpr { range, .. }
            | CxxDefaultArgExpr { range, .. }
            | CxxThisExpr { range, .. }
            | LambdaExpr { range, .. }
            | CxxMemberCallExpr { range, .. }
            | TemplateParmDecl { range, .. }
            | TemplateArgument { range, .. }
            | TypeAliasDecl { range, .. }
            | CxxCastExpr { range, .. }
            | CxxNullPtrLiteralExpr { range, .. }
            | SubstNonTypeTemplateParmExpr { range, .. }
            | MaterializeTemporaryExpr { range, .. }
            | FunctionDecl { range, .. }
            | ParmVarDecl { range, .. }
            | VarDecl { range, .. }
            | FieldDecl { range, .. }
            | RecordDecl { range, .. }
            | CXXRecordDecl { range, .. }
            | TypedefDecl { range, .. }
            | EnumDecl { range, .. }
            | OpenCLKernelAttr { range, .. }
            | CudaGlobalAttr { range, .. }
            | CudaDeviceAttr { range, .. }
            | CudaHostAttr { range, .. }
            | CudaSharedAttr { range, .. }
            | CudaConstantAttr { range, .. }
            | CompoundStmt { range, .. }
            | DeclStmt { range, .. }
            | IfStmt { range, .. }
            | WhileStmt { range, .. }
            | DoStmt { range, .. }
            | ForStmt { range, .. }
            | BreakStmt { range, .. }
            | ContinueStmt { range, .. }
            | ReturnStmt { range, .. }
            | NullStmt { range, .. }
            | SwitchStmt { range, .. }
            | GotoStmt { range, .. }
            | LabelStmt { range, .. }
            | AttributedStmt { range, .. }
            | IntegerLiteral { range, .. }
            | CharacterLiteral { range, .. }
            | FloatingLiteral { range, .. }
            | CxxBoolLiteralExpr { range, .. }
            | StringLiteral { range, .. }
            | DeclRefExpr { range, .. }
            | ParenExpr { range, .. }
            | ImplicitCastExpr { range, .. }
            | CStyleCastExpr { range, .. }
            | UnaryOperator { range, .. }
            | BinaryOperator { range, .. }
            | CompoundAssignOperator { range, .. }
            | ConditionalOperator { range, .. }
            | ArraySubscriptExpr { range, .. }
            | CallExpr { range, .. }
            | MemberExpr { range, .. }
            | ExtVectorElementExpr { range, .. }
            | UnaryExprOrTypeTraitExpr { range, .. }
            | InitListExpr { range, .. }
            | CompoundLiteralExpr { range, .. }
            | ConstantExpr { range, .. }
            | Other { range, .. } => Some(range),
            TranslationUnitDecl | ElaboratedType { .. } | Null => None,
        }
    }
}

/// The name Clang gives the text it reads from standard input, in its locations and messages.
pub const STANDARD_INPUT: &str = "<stdin>";

/// What Clang is given besides the text: the folder of the file (where a local `#include "..."`
/// is found, set from the file's path), and the user's `-I`, `-D` and `-include` options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub folder: Option<PathBuf>,
    pub include_paths: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub includes: Vec<PathBuf>,
}

/// The headers lockstep gives Clang, by file name.
const HEADERS: &[(&str, &str)] = &[
    ("lockstep_cuda.h", include_str!("../../include/lockstep_cuda.h")),
    ("lockstep_gpuverify.h", include_str!("../../include/lockstep_gpuverify.h")),
];

/// The names under which kernels include the headers of OpenCL and CUDA: empty here, as
/// everything they declare is given to every file already.
const EMPTY_HEADERS: &[&str] = &[
    "CL/cl.h",
    "builtin_types.h",
    "cuda.h",
    "cuda_device_runtime_api.h",
    "cuda_fp16.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "device_atomic_functions.h",
    "device_functions.h",
    "device_launch_parameters.h",
    "driver_types.h",
    "host_defines.h",
    "math_functions.h",
    "opencl.h",
    "sm_20_atomic_functions.h",
    "sm_32_atomic_functions.h",
    "sm_60_atomic_functions.h",
    "sm_atomic_functions.h",
    "vector_functions.h",
    "vector_types.h",
];

/// The folder holding lockstep's headers, written on first use into the temporary directory
/// under a name that changes with their contents, so that builds never read each other's.
fn header_folder() -> Result<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    HEADERS.hash(&mut hasher);
    EMPTY_HEADERS.hash(&mut hasher);
    let folder = std::env::temp_dir().join(format!("lockstep-include-{:016x}", hasher.finish()));
    if folder.join(".complete").is_file() {
        return Ok(folder);
    }
    let write = || -> std::io::Result<()> {
        // Written beside, then renamed: two lockstep processes may start at once.
        let staging = std::env::temp_dir().join(format!("lockstep-include-{}-{}", std::process::id(), hasher.finish()));
        let contents = HEADERS.iter().copied().chain(
            EMPTY_HEADERS.iter().map(|name| (*name, "/* Declared by lockstep_cuda.h or Clang's OpenCL header. */\n")),
        );
        for (name, text) in contents {
            let path = staging.join(name);
            std::fs::create_dir_all(path.parent().unwrap_or(&staging))?;
            std::fs::write(path, text)?;
        }
        std::fs::write(staging.join(".complete"), "")?;
        match std::fs::rename(&staging, &folder) {
            Ok(()) => Ok(()),
            // Another process was first: its folder holds the same files.
            Err(_) if folder.join(".complete").is_file() => std::fs::remove_dir_all(&staging),
            Err(error) => Err(error),
        }
    };
    write().map_err(|error| format!("cannot write lockstep's headers to {}: {error}", folder.display()))?;
    Ok(folder)
}

/// The `clang` to run: `$LOCKSTEP_CLANG` if set, else the first of `clang`, `clang-19` down to
/// `clang-14` on the `PATH`.
fn clang_program() -> Option<PathBuf> {
    if let Some(program) = std::env::var_os("LOCKSTEP_CLANG") {
        return Some(PathBuf::from(program));
    }
    let names = ["clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14"];
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&path).map(|folder| folder.join(name)).find(|candidate| candidate.is_file())
    })
}

/// The most CPU time (seconds) and memory (bytes) Clang may take on one file: a kernel takes a
/// fraction of a second and a few hundred MiB, and an input that makes Clang run away (as the
/// fuzz tests' mutated kernels can) is stopped, and is an error rather than a hang.
const CPU_SECONDS: u32 = 5;
const MEMORY_BYTES: u64 = 4 << 30;
/// The most Clang may print for one file (its syntax tree, or the preprocessed text).
const MAX_OUTPUT: u64 = 256 << 20;

/// The command that runs `program` within [`CPU_SECONDS`] and [`MEMORY_BYTES`], through
/// util-linux's `prlimit` (Debian installs it everywhere), or without limits where it is missing.
fn bounded(program: &Path) -> Command {
    let prlimit = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path).map(|folder| folder.join("prlimit")).find(|candidate| candidate.is_file())
    });
    match prlimit {
        Some(prlimit) => {
            let mut command = Command::new(prlimit);
            command.arg(format!("--cpu={CPU_SECONDS}")).arg(format!("--as={MEMORY_BYTES}")).arg("--").arg(program);
            command
        }
        None => Command::new(program),
    }
}

/// The arguments that make Clang read a file of the dialect, with lockstep's headers.
fn dialect_arguments(dialect: Dialect, headers: &Path) -> Vec<String> {
    let mut arguments: Vec<String> = match dialect {
        Dialect::OpenCl => {
            ["-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header", "-Xclang", "-fdeclare-opencl-builtins"]
                .map(String::from)
                .to_vec()
        }
        Dialect::Cuda => ["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70"]
            .map(String::from)
            .to_vec(),
    };
    arguments.extend(["-isystem".to_string(), headers.display().to_string()]);
    if dialect == Dialect::Cuda {
        arguments.extend(["-include".to_string(), "lockstep_cuda.h".to_string()]);
    }
    arguments.extend(["-include".to_string(), "lockstep_gpuverify.h".to_string()]);
    arguments
}

fn user_arguments(options: &Options) -> Vec<String> {
    let mut arguments = Vec::new();
    // A file named without a folder is in the working directory, where Clang looks first anyway.
    if let Some(folder) = options.folder.as_ref().filter(|folder| !folder.as_os_str().is_empty()) {
        arguments.extend(["-iquote".to_string(), folder.display().to_string()]);
    }
    for path in &options.include_paths {
        arguments.push(format!("-I{}", path.display()));
    }
    for define in &options.defines {
        arguments.push(format!("-D{define}"));
    }
    for path in &options.includes {
        arguments.extend(["-include".to_string(), path.display().to_string()]);
    }
    arguments
}

/// What a run of Clang printed: its standard output, and its diagnostics in the file.
struct Run {
    stdout: Vec<u8>,
    diagnostics: Vec<Diagnostic>,
    /// The text of its `#pragma message`s, as `(line, message)`, when they were asked for.
    messages: Vec<(usize, String)>,
    /// The headers it read, when their messages were asked for.
    headers: Vec<PathBuf>,
}

/// Runs Clang on `text` with the dialect's arguments and `mode` (`-fsyntax-only ...` or `-E`).
/// Its messages about lines from `first_appended_line` on (a part of the text that lockstep
/// wrote, after the file's) are not the file's: they are left out, but for the `#pragma
/// message`s, which are returned.
fn run(
    text: &str,
    dialect: Dialect,
    options: &Options,
    mode: &[&str],
    first_appended_line: Option<usize>,
) -> Result<Run, Diagnostic> {
    if cfg!(target_family = "wasm") {
        return Err(Diagnostic::error(
            Code::NoClang,
            "OpenCL C and CUDA are not read here",
            Span::new(0, 0),
            "Clang reads them, and it does not run in a web page",
        )
        .with_help("write the kernel in PVL here, or verify the C file with `lockstep verify` on the command line"));
    }
    let Some(program) = clang_program() else {
        return Err(Diagnostic::error(Code::NoClang, "clang is not installed", Span::new(0, 0), "OpenCL C and CUDA are read by Clang")
            .with_help("install Debian's `clang` package (`apt-get install clang`, version 14 or newer), or set LOCKSTEP_CLANG to a clang binary; PVL files need no Clang"));
    };
    let headers =
        header_folder().map_err(|message| Diagnostic::error(Code::NoClang, message, Span::new(0, 0), "here"))?;
    let mut command = bounded(&program);
    command
        .args(dialect_arguments(dialect, &headers))
        .args(user_arguments(options))
        // Clang's warnings are left out, but for the ones that mean the kernel is not what it
        // says: those are errors.
        .args(["-fno-color-diagnostics", "-fno-caret-diagnostics", "-Wno-everything", "-Werror=excess-initializers"])
        .args(first_appended_line.into_iter().flat_map(|_| ["-W#pragma-messages", "-H"]))
        .args(mode)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let failed = |error: std::io::Error| {
        Diagnostic::error(
            Code::NoClang,
            format!("clang could not be run ({}): {error}", program.display()),
            Span::new(0, 0),
            "OpenCL C and CUDA are read by Clang",
        )
        .with_help("install Debian's `clang` package (`apt-get install clang`, version 14 or newer)")
    };
    let mut child = command.spawn().map_err(failed)?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    // Clang reads while it writes: the text goes in, and its messages come out, in threads of
    // their own; what it prints is read up to a bound, past which it is stopped.
    let (printed, messages) = std::thread::scope(|scope| {
        scope.spawn(move || {
            let _ = stdin.write_all(text.as_bytes());
        });
        let messages = scope.spawn(move || {
            let mut messages = Vec::new();
            let _ = stderr.take(MAX_OUTPUT).read_to_end(&mut messages);
            messages
        });
        let mut printed = Vec::new();
        let read = stdout.take(MAX_OUTPUT + 1).read_to_end(&mut printed);
        if read.is_err() || printed.len() as u64 > MAX_OUTPUT {
            let _ = child.kill();
        }
        (printed, messages.join().unwrap_or_default())
    });
    let status = child.wait().map_err(failed)?;
    if printed.len() as u64 > MAX_OUTPUT {
        let message = format!("clang printed more than {} MiB for this file", MAX_OUTPUT >> 20);
        return Err(Diagnostic::error(Code::Clang, message, Span::new(0, 0), "while reading this file")
            .with_help("a kernel's syntax tree takes a few MiB: look for a macro that expands without end"));
    }
    let output = std::process::Output { status, stdout: printed, stderr: messages };
    let stderr = String::from_utf8_lossy(&output.stderr);
    let (stderr, messages, headers, appended_errors) = match first_appended_line {
        Some(first) => appended_messages(&stderr, first),
        None => (stderr.to_string(), Vec::new(), Vec::new(), false),
    };
    // Spans lie in the file's own text, never in the lines appended after it (`{text}\n{appended}`).
    let own_text = match first_appended_line {
        Some(first) => text.match_indices('\n').nth(first - 2).map_or(text, |(joint, _)| &text[..joint]),
        None => text,
    };
    let diagnostics = clang_diagnostics(own_text, &stderr);
    if !output.status.success() && !diagnostics.iter().any(Diagnostic::is_error) && !appended_errors {
        let message = stderr.lines().find(|line| !line.trim().is_empty()).map_or_else(
            || {
                let limits = format!("{CPU_SECONDS} s and {} GiB", MEMORY_BYTES >> 30);
                format!("it stopped ({}): past its limits of {limits}, or it crashed", output.status)
            },
            str::to_string,
        );
        return Err(Diagnostic::error(
            Code::Clang,
            format!("clang failed: {message}"),
            Span::new(0, 0),
            "while reading this file",
        ));
    }
    Ok(Run { stdout: output.stdout, diagnostics, messages, headers })
}

/// Clang's messages split at `first_appended_line`: those about the file's own lines, the
/// `#pragma message`s of the lines after, as `(line, message)`, the headers `-H` lists, and
/// whether there are errors about the lines after.
fn appended_messages(stderr: &str, first_appended_line: usize) -> (String, Vec<(usize, String)>, Vec<PathBuf>, bool) {
    let mut own = String::new();
    let mut messages = Vec::new();
    let mut headers = Vec::new();
    let mut errors = false;
    for line in stderr.lines() {
        if let Some((_, header)) = line.split_once(". ").filter(|(dots, _)| dots.bytes().all(|byte| byte == b'.')) {
            headers.push(PathBuf::from(header));
            continue;
        }
        let row = line
            .strip_prefix(STANDARD_INPUT)
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|rest| rest.split(':').next())
            .and_then(|row| row.parse::<usize>().ok());
        match row {
            Some(row) if row >= first_appended_line => match line.split_once(": warning: ") {
                Some((_, message)) => {
                    let message = message.strip_suffix(" [-W#pragma-messages]").unwrap_or(message);
                    messages.push((row, message.to_string()));
                }
                None => errors |= line.contains(" error: "),
            },
            _ => {
                own.push_str(line);
                own.push('\n');
            }
        }
    }
    (own, messages, headers, errors)
}

/// Whether a macro that the file, one of its headers or a `-D` defines holds a backslash: a
/// `#pragma message` would read it as a string's escape (`\\2`, `\\gtid`).
fn backslash_in_macros(text: &str, headers: &[PathBuf], options: &Options) -> bool {
    let defines_backslash = |text: &str| {
        text.lines().any(|line| {
            let line = line.trim_start();
            let directive = line.strip_prefix('#').map(str::trim_start);
            directive.is_some_and(|directive| {
                directive.starts_with("define") && line.trim_end().trim_end_matches('\\').contains('\\')
            })
        })
    };
    let header_holds = |header: &PathBuf| std::fs::read_to_string(header).map_or(true, |text| defines_backslash(&text));
    defines_backslash(text)
        || headers.iter().chain(&options.includes).any(header_holds)
        || options.defines.iter().any(|define| define.contains('\\'))
}

/// The typed syntax tree of the file, or the errors Clang found in it; and the messages of the
/// `#pragma message` lines of `appended`, a text that the run reads after the file's (one Clang
/// run for both: starting Clang takes most of the time it spends on a kernel), in order, unless
/// a macro holds a backslash, which they would read as an escape.
pub fn syntax_tree(
    text: &str,
    dialect: Dialect,
    options: &Options,
    appended: Option<&str>,
) -> (Option<Node>, Vec<Diagnostic>, Option<Vec<String>>) {
    let mode = ["-fsyntax-only", "-Xclang", "-ast-dump=json"];
    let result = match appended {
        Some(appended) => {
            let first_appended_line = text.matches('\n').count() + 2;
            run(&format!("{text}\n{appended}"), dialect, options, &mode, Some(first_appended_line))
        }
        None => run(text, dialect, options, &mode, None),
    };
    let run = match result {
        Ok(run) => run,
        Err(diagnostic) => return (None, vec![diagnostic], None),
    };
    let messages = (appended.is_some() && !backslash_in_macros(text, &run.headers, options))
        .then(|| run.messages.into_iter().map(|(_, message)| message).collect());
    if run.diagnostics.iter().any(Diagnostic::is_error) {
        return (None, run.diagnostics, messages);
    }
    if json_depth(&run.stdout) > MAX_JSON_DEPTH {
        let diagnostic = Diagnostic::error(
            Code::NestingTooDeep,
            "expressions or statements nested too deeply",
            Span::new(0, 0),
            "in this file",
        )
        .with_help(format!("lockstep reads at most {} levels of nesting", crate::pvl::ast::MAX_DEPTH));
        return (None, vec![diagnostic], messages);
    }
    match deserialize(&run.stdout) {
        Ok(tree) => (Some(tree), run.diagnostics, messages),
        Err(error) => {
            let diagnostic = Diagnostic::error(
                Code::Clang,
                format!("clang's syntax tree cannot be read: {error}"),
                Span::new(0, 0),
                "while reading this file",
            )
            .with_help("lockstep reads the JSON syntax tree of Debian's clang 14 or newer");
            (None, vec![diagnostic], messages)
        }
    }
}

/// Clang's tree from its JSON, however deep (up to [`MAX_JSON_DEPTH`]), on a stack that grows.
#[cfg(not(target_family = "wasm"))]
fn deserialize(json: &[u8]) -> Result<Node, serde_json::Error> {
    let mut json = serde_json::Deserializer::from_slice(json);
    json.disable_recursion_limit();
    Node::deserialize(serde_stacker::Deserializer::new(&mut json))
}

/// In a web page Clang does not run, and there is no tree to read.
#[cfg(target_family = "wasm")]
fn deserialize(json: &[u8]) -> Result<Node, serde_json::Error> {
    serde_json::from_slice(json)
}

/// The deepest JSON that lockstep reads of Clang's tree: a level of the tree is two of JSON (a
/// node and its children), and Clang's tree has levels that lockstep's has not (implicit
/// conversions, parentheses), which [`crate::pvl::ast::MAX_DEPTH`] bounds in its turn.
const MAX_JSON_DEPTH: usize = 8 * crate::pvl::ast::MAX_DEPTH as usize;

/// How deeply a JSON text nests its objects and arrays.
fn json_depth(json: &[u8]) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &byte in json {
        match (in_string, escaped, byte) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, false, _) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'{' | b'[') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b'}' | b']') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The text Clang's preprocessor makes of `text` (`clang -E`), for the macros of annotations.
pub fn preprocessed(text: &str, dialect: Dialect, options: &Options) -> Result<String, Diagnostic> {
    let run = run(text, dialect, options, &["-E", "-P"], None)?;
    Ok(String::from_utf8_lossy(&run.stdout).into_owned())
}

/// Clang's messages about the text itself, as diagnostics at their place: `<stdin>:L:C: error:
/// message`. A message about another file (a header) is placed at the start of the file. Notes
/// and warnings are left out: lockstep says itself what it leaves out.
fn clang_diagnostics(text: &str, stderr: &str) -> Vec<Diagnostic> {
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(text.match_indices('\n').map(|(offset, _)| offset + 1)).collect();
    let mut diagnostics = Vec::new();
    for line in stderr.lines() {
        let Some((place, message)) = line.split_once(": error: ").or_else(|| line.split_once(": fatal error: ")) else {
            continue;
        };
        let mut parts = place.rsplitn(3, ':');
        let column: Option<usize> = parts.next().and_then(|column| column.parse().ok());
        let row: Option<usize> = parts.next().and_then(|row| row.parse().ok());
        let file = parts.next().unwrap_or("");
        let span = match (file == STANDARD_INPUT, row, column) {
            (true, Some(row), Some(column)) => {
                let start = line_starts.get(row.saturating_sub(1)).copied().unwrap_or(text.len());
                let mut offset = (start + column.saturating_sub(1)).min(text.len());
                while !text.is_char_boundary(offset) {
                    offset -= 1;
                }
                let end = text[offset..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .map_or(text.len(), |length| offset + length.max(1));
                Span::new(offset, end.min(text.len()).max(offset))
            }
            _ => Span::new(0, 0),
        };
        let label = if file == STANDARD_INPUT || file.is_empty() { "here".to_string() } else { format!("in {file}") };
        // Without the warning flag Clang names (`[-Werror,-Wexcess-initializers]`).
        let message = match message.rsplit_once(" [-W") {
            Some((message, flag)) if flag.ends_with(']') => message,
            _ => message,
        };
        // Clang refuses a kernel launch in device code without relocatable device code: that is
        // dynamic parallelism, which lockstep does not verify either.
        if message.starts_with("reference to __global__ function") {
            let refusal = "dynamic parallelism (a kernel launched from a kernel) is not supported";
            diagnostics.push(
                Diagnostic::error(Code::Unsupported, refusal, span, "not supported").with_help(
                    "launch the kernels one after the other from the host: lockstep verifies each on its own",
                ),
            );
            continue;
        }
        diagnostics.push(Diagnostic::error(Code::Clang, message.to_string(), span, label));
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clang's tree of an 80-term sum nests deeper than serde_json reads by default (128 levels).
    #[test]
    fn a_long_sum_is_read() {
        let terms: Vec<String> = (0..80).map(|index| format!("a[{}]", index % 4)).collect();
        let text = format!("__kernel void k(__global int *a) {{ a[0] = {}; }}", terms.join(" + "));
        let (tree, diagnostics) = crate::c::parse(&text, Dialect::OpenCl, &Options::default());
        assert!(tree.is_some() && diagnostics.is_empty(), "{diagnostics:?}");
    }

    #[test]
    fn json_depth_counts_objects_and_arrays_outside_strings() {
        assert_eq!(json_depth(br#"{"a": [1, {"b": "[{\"]"}]}"#), 3);
        assert_eq!(json_depth(b"[]"), 1);
        assert_eq!(json_depth(b"1"), 0);
    }
}
