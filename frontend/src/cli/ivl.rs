//! `lockstep ivl`: verify an IVL (Boogie subset) file directly.

use lockstep_encoder::ivl::{self, Declaration, Position};
use lockstep_encoder::run::{self, Backend, ProcedureOutcome};
use lockstep_encoder::smt::smtlib::Flavour;
use lockstep_encoder::smt::Limits;
use lockstep_encoder::vcgen;
use lockstep_encoder::verify::Status;
use std::process::ExitCode;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendName {
    Z3,
    Z3Process,
    Cvc5,
    Boogie,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    Boogie,
    Smt2,
}

fn backend(name: BackendName) -> Backend {
    match name {
        BackendName::Z3 => Backend::Z3,
        BackendName::Z3Process => Backend::Process(Flavour::Z3),
        BackendName::Cvc5 => Backend::Process(Flavour::Cvc5),
        BackendName::Boogie => Backend::Boogie,
    }
}

fn bad_input(path: &str, position: Position, message: &str, json: bool) -> ExitCode {
    if json {
        let error = serde_json::json!({ "line": position.line, "column": position.column, "message": message });
        println!("{}", serde_json::json!({ "files": [{ "path": path, "procedures": [], "errors": [error] }] }));
    } else {
        eprintln!("{path}:{}:{}: error: {message}", position.line, position.column);
    }
    ExitCode::from(2)
}

/// Writes a program as Boogie, or as the SMT-LIB of each procedure's verification condition.
pub fn write_program(program: &ivl::Program, emit: Emit) {
    match emit {
        Emit::Boogie => print!("{}", ivl::print::program(program)),
        Emit::Smt2 => {
            for declaration in &program.declarations {
                if let Declaration::Procedure(procedure) = declaration {
                    if procedure.body.is_some() {
                        let vc = vcgen::procedure(program, procedure);
                        println!("; procedure {}", procedure.name);
                        // Which labels stand for which checks: `enabled@k` assumes check k,
                        // `holds@k` is its condition.
                        for (index, check) in vc.checks.iter().enumerate() {
                            let tag = check.tag.as_ref().map(|tag| format!(" [{tag}]")).unwrap_or_default();
                            let at = format!("{}:{}", check.position.line, check.position.column);
                            println!("; check {index}: {:?} at {at}{tag}", check.kind);
                        }
                        print!("{}", vc.script);
                    }
                }
            }
        }
    }
}

pub fn backend_of(name: BackendName) -> Backend {
    backend(name)
}

pub fn run(path: &str, backend_name: BackendName, limits: &Limits, emit: Option<Emit>, json: bool) -> ExitCode {
    let text = match std::fs::read(path).map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => return bad_input(path, Position { line: 1, column: 1 }, "the file is not valid UTF-8", json),
        Err(error) => {
            return bad_input(path, Position { line: 1, column: 1 }, &format!("cannot read the file: {error}"), json)
        }
    };
    let program = match ivl::parse::program(&text) {
        Ok(program) => program,
        Err(error) => return bad_input(path, error.position, &error.message, json),
    };
    if let Err(errors) = ivl::check::program(&program) {
        for error in &errors[1..] {
            eprintln!("{path}:{}:{}: error: {}", error.position.line, error.position.column, error.message);
        }
        return bad_input(path, errors[0].position, &errors[0].message, json);
    }
    if let Some(emit) = emit {
        write_program(&program, emit);
        return ExitCode::SUCCESS;
    }
    let results = match run::program(&program, backend(backend_name), limits) {
        Ok(results) => results,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(3);
        }
    };
    let failed = results
        .iter()
        .flat_map(|result| &result.outcomes)
        .any(|outcome| matches!(outcome.status, Status::Failed { .. }));
    let undecided = results
        .iter()
        .flat_map(|result| &result.outcomes)
        .any(|outcome| matches!(outcome.status, Status::Undecided(_)));
    if json {
        println!("{}", serde_json::to_string_pretty(&report_json(path, &results)).expect("JSON values serialise"));
    } else {
        report_human(path, &results);
    }
    match (failed, undecided) {
        (true, _) => ExitCode::from(1),
        (false, true) => ExitCode::from(3),
        (false, false) => ExitCode::SUCCESS,
    }
}

fn status_word(status: &Status) -> &'static str {
    match status {
        Status::Verified => "verified",
        Status::Failed { .. } => "failed",
        Status::Undecided(_) => "undecided",
    }
}

fn verdict(result: &ProcedureOutcome) -> &'static str {
    let statuses = || result.outcomes.iter().map(|outcome| &outcome.status);
    if statuses().any(|status| matches!(status, Status::Failed { .. })) {
        "failed"
    } else if statuses().any(|status| matches!(status, Status::Undecided(_))) {
        "undecided"
    } else {
        "verified"
    }
}

fn report_human(path: &str, results: &[ProcedureOutcome]) {
    for result in results {
        for outcome in &result.outcomes {
            let check = &outcome.check;
            let tag = check.tag.as_ref().map(|tag| format!(" [{tag}]")).unwrap_or_default();
            let at = format!("{path}:{}:{}", check.position.line, check.position.column);
            match &outcome.status {
                Status::Verified => {}
                Status::Failed { model } => {
                    println!("{at}: error: {}{tag}", check.kind.describe());
                    if let Some(related) = check.related {
                        println!(
                            "{path}:{}:{}: note: the precondition that might not hold",
                            related.line, related.column
                        );
                    }
                    let values: Vec<String> = model.iter().map(|(name, value)| format!("{name} = {value}")).collect();
                    if !values.is_empty() {
                        println!("    counterexample: {}", values.join(", "));
                    }
                }
                Status::Undecided(reason) => {
                    println!("{at}: undecided ({reason}): {}{tag}", check.kind.describe())
                }
            }
        }
        let failed = result.outcomes.iter().filter(|outcome| matches!(outcome.status, Status::Failed { .. })).count();
        println!(
            "procedure {}: {} ({} of {} checks failed)",
            result.procedure,
            verdict(result),
            failed,
            result.outcomes.len()
        );
    }
}

fn report_json(path: &str, results: &[ProcedureOutcome]) -> serde_json::Value {
    let procedures: Vec<serde_json::Value> = results
        .iter()
        .map(|result| {
            let checks: Vec<serde_json::Value> = result
                .outcomes
                .iter()
                .map(|outcome| {
                    let check = &outcome.check;
                    let model: serde_json::Map<String, serde_json::Value> = match &outcome.status {
                        Status::Failed { model } => {
                            model.iter().map(|(name, value)| (name.clone(), value.to_string().into())).collect()
                        }
                        _ => serde_json::Map::new(),
                    };
                    serde_json::json!({
                        "kind": format!("{:?}", check.kind),
                        "status": status_word(&outcome.status),
                        "line": check.position.line,
                        "column": check.position.column,
                        "tag": check.tag,
                        "message": check.kind.describe(),
                        "model": model,
                    })
                })
                .collect();
            serde_json::json!({ "name": result.procedure, "verdict": verdict(result), "resources": result.resources, "checks": checks })
        })
        .collect();
    serde_json::json!({ "files": [{ "path": path, "procedures": procedures, "errors": [] }] })
}
