//! Tests of the lowering as a whole: what it accepts, how it rewrites a `return`, and what it
//! refuses and how it names it.

use crate::c::{check, integers::Integers, Dialect};
use crate::diagnostics::Code;

/// The first diagnostic of a kernel body, as `(code, message)`.
fn refusal(body: &str) -> (Code, String) {
    let text = format!("__kernel void k(global int* a) {{ {body} }}");
    let (_, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
    let first = diagnostics.first().unwrap_or_else(|| panic!("`{body}` is accepted"));
    (first.code, first.message.clone())
}

/// C that Clang refuses never reaches the lowering: the error is Clang's, at its place.
#[test]
fn invalid_c_is_refused_by_clang() {
    for (body, message) in [
        ("int2 v = (int2){1};", "too few elements in vector initialization"),
        ("int z = __add_noovfl_float(1, 2);", "implicit declaration of function '__add_noovfl_float'"),
        ("int n = a[0]; int b[n];", "variable length arrays are not supported in OpenCL"),
        ("int b[2] = {1, 2, 3};", "excess elements in array initializer"),
        ("int b[2][2] = {{1, 2, 3}};", "excess elements in array initializer"),
        ("int t[2] = {{1, 2}};", "excess elements in scalar initializer"),
        ("int b[2] = a[0];", "array initializer must be an initializer list"),
        ("int x = 0; atomic_inc(&x);", "no matching function for call to 'atomic_inc'"),
        (
            "local int s[2]; global int* p = a; if (a[0] > 0) { p = s; } atomic_inc(p);",
            "assigning '__local int *' to '__global int *__private' changes address space of pointer",
        ),
        (
            "global int* p = a; p[0] = 1; local int s[2]; p = s;",
            "assigning '__local int *' to '__global int *__private' changes address space of pointer",
        ),
        ("float f = 1.0f; int x = 1 & f;", "invalid operands to binary expression"),
        ("void v;", "variable has incomplete type 'void'"),
        ("if (a[0] > 0) break;", "'break' statement not in loop or switch statement"),
        ("a[0] = foo(1);", "implicit declaration of function 'foo' is invalid in OpenCL"),
        ("int x = 0; __assert(!__read(x));", "no matching function for call to '__read'"),
        ("__ensures(\\returned); a[0] = 1;", "expected expression"),
    ] {
        let (code, found) = refusal(body);
        assert_eq!(code, Code::Clang, "{body}: {found}");
        assert!(found.starts_with(message), "{body}: {found}");
    }
}

/// A `return;` that ends the kernel: the code after it becomes the `if`'s other branch.
#[test]
fn a_return_that_ends_the_kernel_guards_the_code_after_it() {
    for body in [
        "if (get_global_id(0) >= 4) return; a[get_global_id(0)] = 1;",
        "if (a[0] > 0) { if (a[1] > 0) return; a[2] = 1; }",
        "a[0] = 1; return;",
    ] {
        let text = format!("__kernel void k(global int* a) {{ {body} }}");
        let (program, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
        assert!(diagnostics.is_empty(), "{body}: {diagnostics:#?}");
        assert!(program.is_some());
    }
    // The write after the guard is the else branch of the guard.
    let text = "__kernel void k(global int* a) { if (a[0] > 0) return; a[1] = 1; }";
    let program = check(text, Dialect::OpenCl, Integers::Machine, &Default::default()).0.expect("accepted");
    let body = &program.kernels[0].body.stmts;
    assert_eq!(body.len(), 1, "{body:#?}");
    let lockstep_logic::StmtKind::If { else_branch: Some(rest), then_branch, .. } = &body[0].kind else {
        panic!("an if: {body:#?}")
    };
    assert!(then_branch.stmts.iter().all(|stmt| !matches!(stmt.kind, lockstep_logic::StmtKind::Write { .. })));
    assert!(format!("{rest:?}").contains("Write"), "{rest:#?}");
}

/// Any other `return` sets the function's return flag, which guards the code after it: the
/// kernel's body starts by declaring it.
#[test]
fn a_return_inside_a_loop_or_before_code_sets_the_return_flag() {
    for body in [
        "if (a[0] > 0) { if (a[1] > 0) return; a[2] = 1; } a[3] = 1;",
        "for (int i = 0; i < 4; i++) { if (i == 2) return; } a[0] = 1;",
        "int i = 0; do { if (a[i] > 0) return; i++; } while (i < 4); a[1] = 1;",
    ] {
        let text = format!("__kernel void k(global int* a) {{ {body} }}");
        let (program, diagnostics) = check(&text, Dialect::OpenCl, Integers::Machine, &Default::default());
        assert!(diagnostics.is_empty(), "{body}: {diagnostics:#?}");
        let kernel = &program.expect("accepted").kernels[0];
        let lockstep_logic::StmtKind::Declare { var, .. } = &kernel.body.stmts[0].kind else {
            panic!("{body}: {:#?}", kernel.body.stmts[0])
        };
        assert!(kernel.vars[var.0 as usize].name.starts_with("\\return@"), "{body}");
    }
}

/// A clause that cannot be read is an error, never left out: `Perm(&n, q)` of a scalar once
/// dropped the whole `ensures` around it without a word, so that the kernel below verified
/// with `a[0] == 5` unchecked.
#[test]
fn a_clause_that_cannot_be_read_is_an_error_not_dropped() {
    let text = "/*@ requires \\pointer_length(a) == 1 ** Perm(&a[0], write); ensures Perm(&n, write) ** a[0] == 5; @*/ __kernel void k(global int* a, int n) { a[0] = n; }";
    let (program, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
    assert!(program.is_none());
    assert_eq!(
        diagnostics.first().map(|diagnostic| diagnostic.code),
        Some(Code::PermissionLocation),
        "{diagnostics:#?}"
    );
}

/// In annotations, floating-point values compare only with each other, by `==` and `!=`: a
/// property of their order or of their relation to an integer would claim more than the
/// arbitrary values of the floating-point operations support.
#[test]
fn annotations_compare_floating_point_values_as_copies_only() {
    let kernel = |formula: &str| {
        let text = format!(
            "/*@ requires \\pointer_length(f) == 2; requires Perm(&f[0], read) ** Perm(&f[1], read); requires {formula}; @*/ __kernel void k(global float* f) {{ }}"
        );
        check(&text, Dialect::OpenCl, Integers::Machine, &Default::default()).1
    };
    assert!(kernel("f[0] == f[1]").is_empty(), "{:#?}", kernel("f[0] == f[1]"));
    assert!(kernel("f[0] != f[1]").is_empty());
    for (formula, construct) in [
        ("f[0] < f[1]", "ordering floating-point values in an annotation"),
        ("f[0] == 1", "comparing a floating-point value with another type in an annotation"),
        ("f[0] == 1.0f", "floating-point arithmetic or a floating-point constant in an annotation"),
        ("f[0] + f[1] == f[0]", "floating-point arithmetic or a floating-point constant in an annotation"),
    ] {
        let diagnostics = kernel(formula);
        assert_eq!(diagnostics.first().map(|diagnostic| diagnostic.code), Some(Code::Unsupported), "{formula}");
        assert_eq!(diagnostics[0].message, format!("{construct} is not supported"), "{formula}");
    }
}

#[test]
fn constant_memory_is_read_only() {
    let text = "__constant int c[2] = {1, 2};\n__kernel void k() { int x = c[1]; c[0] = x; }";
    let (_, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
    let messages: Vec<_> =
        diagnostics.iter().map(|diagnostic| (diagnostic.code, diagnostic.message.as_str())).collect();
    assert_eq!(messages, [(Code::Clang, "read-only variable is not assignable")]);
    // A variable of the same name declared inside the kernel is its own.
    let text = "__constant int c = 1;\n__kernel void k() { { int c = 2; c = 3; } }";
    let (program, diagnostics) = check(text, Dialect::OpenCl, Integers::Machine, &Default::default());
    assert!(program.is_some() && diagnostics.is_empty(), "{diagnostics:?}");
}

#[test]
fn a_permission_on_private_memory_is_an_error() {
    let (code, message) = refusal("int t[2]; /*@ assert Perm(&t[0], read); @*/");
    assert_eq!(
        (code, message.as_str()),
        (Code::PermissionLocation, "a cell of a private array is not a cell of memory")
    );
}

#[test]
fn constructs_outside_the_subset_are_named() {
    for (body, construct) in [
        ("local int L[4]; ((local char*)L)[0] = 1;", "a pointer cast"),
        (
            "int z = a[0] > 0 && __add_noovfl_int(a[0], 1) > 0;",
            "`__add_noovfl_int` other than as the value of `x = __add_noovfl_int(a, b);` with operands without effects",
        ),
        (
            "int x = 0; int y; x = 0, y = __add_noovfl_int(x, 1);",
            "`__add_noovfl_int` other than as the value of `x = __add_noovfl_int(a, b);` with operands without effects",
        ),
        ("int b[65];", "a private array of 65 cells (lockstep keeps 1 to 64 cells in private variables)"),
        (
            "int b[][2] = {1, 2, 3, 4, 5}; int c[2] = {1}; int d[3][32] = {1};",
            "a private array of 96 cells (lockstep keeps 1 to 64 cells in private variables)",
        ),
        ("int x = 1; int y = x ^ 2 ^ 3 ^ 4;", "`^` of an operand that is itself a bitwise operation of unknown values"),
        ("global int* p[2];", "a private array of pointers or a pointer to pointers"),
        ("int t[2]; __assert(__read(t));", "`__read` of private memory"),
        ("global int* p = a; /*@ assert p < a; @*/", "`<` of pointers in an annotation"),
        ("global int* p; p[0] = 1;", "the pointer `p` before it points into an array"),
        ("global int* p = a; int x = p;", "the pointer `p` as a value"),
        ("int x = a[0] | 1;", "`|` of a value read from memory"),
        ("float f = 0.5f; while (f < 1.0f) { f = f * 2.0f; }", "a floating-point operation in a loop's condition"),
        ("/*@ assert 1.0f == 1.0f; @*/", "floating-point arithmetic or a floating-point constant in an annotation"),
        // GPUVerify's access logs are this thread's, in its code.
        ("__global_assert(!__write(a));", "`__global_assert` over the access logs (`__write`)"),
        ("__ensures(!__write(a)); a[0] = 1;", "`__write` in a kernel's contract"),
        (
            "int i = 0; while (a[i] > 0) { i = i + 1; } __assert(!__read(a));",
            "a read of `a` in a loop's condition, in a kernel that asks about its access logs",
        ),
        ("int x = 1; int y = x++;", "`++` or `--` inside an expression"),
        ("int x = 1, y = (x, x);", "the comma operator in an expression"),
        ("/*@ assert \\returned(1); @*/", "`\\returned`"),
    ] {
        assert_eq!(refusal(body), (Code::Unsupported, format!("{construct} is not supported")), "{body}");
    }
}
