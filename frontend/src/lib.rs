//! The frontend of lockstep.
pub mod ast;
pub mod diagnostics;
pub mod lexer;
pub mod parser;
pub mod source;
#[allow(clippy::all)]
mod grammar {
    include!(concat!(env!("OUT_DIR"), "/grammar.rs"));
}
