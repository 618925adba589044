//! The IVL names of a kernel's parts. Every name a kernel contributes carries a prefix (`p_`,
//! `v_`, `H_`, ...) and the id of what it names, so two kernel names never collide with each other
//! or with the encoding's own names, and every name is a valid Boogie identifier.

use lockstep_logic::{Function, Kernel, VarId};

pub const GSIZE: &str = "gsize";
pub const TCOUNT: &str = "tcount";
pub const RESULT: &str = "result";
pub const SUCC: &str = "succ";
pub const NO_FUEL: &str = "no_fuel";
pub const UNKNOWN: &str = "unknown_value";
pub const TID: &str = "tid";
pub const GID: &str = "gid";
pub const LID: &str = "lid";

/// A kernel parameter: a global constant.
pub fn param(kernel: &Kernel, var: VarId) -> String {
    format!("p_{}_{}", identifier(&kernel.var(var).name), var.0)
}

pub fn private(kernel: &Kernel, var: VarId) -> String {
    format!("v_{}_{}", identifier(&kernel.var(var).name), var.0)
}

pub fn bound(kernel: &Kernel, var: VarId) -> String {
    format!("q_{}_{}", identifier(&kernel.var(var).name), var.0)
}

/// The procedure of a kernel's thread: a CUDA kernel template's instantiation is named with its
/// arguments (`reduce<int, 256>`), escaped.
pub fn thread_procedure(kernel: &Kernel) -> String {
    format!("thread_{}", identifier(&kernel.name))
}

/// The procedure that probes a loop invariant of a kernel.
pub fn invariant_probe(kernel: &Kernel, index: usize) -> String {
    format!("invariant_{}_{index}", identifier(&kernel.name))
}

/// A variable's name as identifier characters: the C frontend names the unknown length of an
/// array `\pointer_length(a)`, and an inlined helper's variables `x@bar1`. Every other character
/// is escaped; the variable's id after it keeps the names apart.
fn identifier(name: &str) -> String {
    escaped(name, |character| character.is_ascii_alphanumeric() || character == '_')
}

/// `text` with every character that `keep` refuses written as `_` and its hexadecimal code.
fn escaped(text: &str, keep: impl Fn(char) -> bool) -> String {
    let mut name = String::new();
    for character in text.chars() {
        if keep(character) {
            name.push(character);
        } else {
            name.push_str(&format!("_{:02x}", character as u32));
        }
    }
    name
}

pub fn function(function: &Function) -> String {
    format!("f_{}", function.name)
}

/// Whether a recursive function's unfolding axioms may be used (E5).
pub fn defined(function: &Function) -> String {
    format!("defined_{}", function.name)
}

/// The procedure that checks a function's well-definedness and termination (E5).
pub fn function_procedure(function: &Function) -> String {
    format!("function_{}", function.name)
}

pub fn function_var(function: &Function, var: VarId) -> String {
    format!("x_{}_{}", identifier(&function.vars[var.index()].name), var.0)
}

pub fn heap(kernel: &Kernel, index: usize) -> String {
    format!("H_{}", kernel.arrays[index].name)
}

/// The function that gives each thread's increments of a counter array their values (E20), and
/// its inverses (`site`, `gid`, `lid`).
pub fn ticket(kernel: &Kernel, counter: lockstep_logic::ArrayId) -> String {
    format!("ticket_{}", kernel.array(counter).name)
}

pub fn ticket_inverse(kernel: &Kernel, counter: lockstep_logic::ArrayId, coordinate: &str) -> String {
    format!("ticket_{}_{coordinate}", kernel.array(counter).name)
}

pub fn old_heap(kernel: &Kernel, index: usize) -> String {
    format!("H0_{}", kernel.arrays[index].name)
}

pub fn mask(kernel: &Kernel, index: usize) -> String {
    format!("M_{}", kernel.arrays[index].name)
}

/// The constant that stands for the amount `fraction \ divisor` (E16): named after the amount's
/// text, every character other than a letter or digit escaped, so that equal amounts share it.
pub fn amount(fraction: &num_rational::BigRational, divisor: &crate::ivl::Expr) -> String {
    format!("amount_{}", escaped(&format!("{fraction}_over_{divisor}"), |character| character.is_ascii_alphanumeric()))
}

/// `scaled(n, q)`: `n` times the amount `q`, as an uninterpreted function of which only true
/// facts are assumed where it is used (E16).
pub const SCALED: &str = "scaled";
