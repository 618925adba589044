//! The `lockstep` command line's subcommands, each a client of the library's pipeline: they read
//! the files, call it, and print its results for a person (miette) or a program (JSON).

pub mod ivl;
pub mod run;
pub mod verify;
