//! The `lockstep` command line's subcommands, each a client of the library's pipeline: they read
//! the files, call it, and print its results for a person (miette), a program (JSON) or a CI
//! system (SARIF).

pub mod bench;
pub mod ivl;
pub mod lsp;
pub mod run;
pub mod sarif;
pub mod verify;

/// How `check` and `verify` report.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Diagnostics on stderr as miette draws them, a line per file or kernel on stdout.
    Human,
    /// One JSON document on stdout.
    Json,
    /// A SARIF 2.1.0 log on stdout, for CI systems and code-scanning dashboards.
    Sarif,
}
