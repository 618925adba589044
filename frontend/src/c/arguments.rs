//! A C kernel's scalar parameters as the host passes them, for GPUVerify's `--kernel-args`: each
//! parameter that is not a pointer, in order, with the parameters of the lowered kernel that hold
//! its parts (a struct's fields, a vector's components) and where each lies in its bytes.
//!
//! The bytes are C's: a struct's fields in order, each at the next offset its size divides (the
//! natural alignment of the scalar types), a vector's components one after the other, all little
//! endian, as on every GPU. A struct with a struct or vector field has a layout that this does not
//! compute, and is refused.

use crate::c::ast;
use crate::c::integers::CType;
use crate::c::lower::vectors;
use crate::c::{clang, structs, Dialect};
use lockstep_logic::MachineInt;

/// One scalar parameter of a kernel, as the host passes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostArgument {
    /// The name the C code gives it.
    pub name: String,
    pub parts: Vec<Part>,
}

/// A part of an argument's bytes: the lowered kernel's parameter that holds it, where it starts
/// and how long it is (in bits), and its integer type: `None` for a floating-point or `bool`
/// part, which lockstep does not tie to bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub param: String,
    pub offset: u32,
    pub bits: u32,
    pub int: Option<MachineInt>,
}

/// The scalar parameters of the kernel `kernel` of a C file that parses, or why they cannot be
/// given. `None` when the file has no such kernel.
pub fn host_arguments(text: &str, dialect: Dialect, kernel: &str) -> Option<Result<Vec<HostArgument>, String>> {
    let (tree, _) = crate::c::parse(text, dialect, &clang::Options::default());
    let (tree, _) = structs::flatten(&tree?);
    let function = tree.items.iter().find_map(|item| match item {
        ast::Item::Function(function)
            if function.name.name == kernel && function.specifiers.has(ast::Qualifier::Kernel) =>
        {
            Some(function)
        }
        _ => None,
    })?;
    let mut arguments: Vec<HostArgument> = Vec::new();
    for param in &function.params {
        let declarator = &param.declarator;
        if declarator.pointers > 0 || !declarator.dimensions.is_empty() || declarator.name.name.is_empty() {
            continue;
        }
        let name = &declarator.name.name;
        let (base, field) = match name.split_once('.') {
            Some((base, field)) => (base, Some(field)),
            None => (name.as_str(), None),
        };
        let ty = &param.specifiers.ty;
        let element = vectors::scalar_of(ty);
        let bits = match element {
            Some(CType::Int(int)) => int.bits,
            Some(CType::Float(bits)) => bits,
            Some(CType::Bool) | None => 8,
        };
        let int = match element {
            Some(CType::Int(int)) => Some(int),
            _ => None,
        };
        if field.is_some_and(|field| field.contains('.')) || (field.is_some() && ty.width > 1) {
            return Some(Err(format!(
                "the struct parameter `{base}` has a struct or vector field, whose layout lockstep does not compute"
            )));
        }
        let argument = match arguments.last_mut() {
            Some(argument) if field.is_some() && argument.name == base => argument,
            _ => {
                arguments.push(HostArgument { name: base.to_string(), parts: Vec::new() });
                arguments.last_mut().expect("just pushed")
            }
        };
        if ty.width > 1 {
            for component in 0..ty.width {
                let param = vectors::component_name(name, component);
                argument.parts.push(Part { param, offset: component * bits, bits, int });
            }
            continue;
        }
        // The next offset the field's size divides.
        let end = argument.parts.last().map_or(0, |last| last.offset + last.bits);
        let offset = end.div_ceil(bits) * bits;
        argument.parts.push(Part { param: name.clone(), offset, bits, int });
    }
    Some(Ok(arguments))
}
