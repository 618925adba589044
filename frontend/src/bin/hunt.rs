//! `lockstep-hunt`: a long hunt for soundness holes (see `lockstep_frontend::hunt`). It judges
//! random kernels from consecutive seeds and one-token mutants of the verified examples, prints
//! what it found, and saves each disagreement, shrunk to a minimal kernel, in the output
//! directory. Exit status 1 when it found a disagreement, else 0.
//!
//! ```text
//! cargo run --release --bin lockstep-hunt -- --generated 5000 --mutants 5000 --out hunt-found
//! ```

use clap::Parser;
use lockstep_frontend::hunt::{self, generate, mutate, Judgement, Outcome, Settings};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Hunt for kernels that verify while a run finds a bug")]
struct Arguments {
    /// How many random kernels to judge.
    #[arg(long, default_value_t = 1000)]
    generated: u64,
    /// The seed of the first random kernel (the others take the next seeds).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How many mutants of the examples to judge, spread over all examples.
    #[arg(long, default_value_t = 1000)]
    mutants: usize,
    /// The examples whose verified kernels are mutated.
    #[arg(long, default_value = "examples")]
    examples: PathBuf,
    /// Print the cases (random kernels and mutants) instead of judging them, to reproduce one.
    #[arg(long)]
    print: bool,
    /// Name each case before judging it (to find one that hangs or crashes).
    #[arg(long)]
    verbose: bool,
    /// Where shrunk disagreements are saved.
    #[arg(long, default_value = "hunt-found")]
    out: PathBuf,
}

#[derive(Default)]
struct Tally {
    judged: u64,
    refused: u64,
    verified: u64,
    failed: u64,
    undecided: u64,
    run_found_bug: u64,
    disagreements: Vec<PathBuf>,
}

impl Tally {
    fn summary(&self) -> String {
        format!(
            "{} judged, {} refused, {} verified, {} failed, {} undecided; a run found a bug in {}; {} disagreements",
            self.judged,
            self.refused,
            self.verified,
            self.failed,
            self.undecided,
            self.run_found_bug,
            self.disagreements.len()
        )
    }

    fn add(&mut self, name: &str, text: &str, settings: &Settings, arguments: &Arguments) {
        let out = &arguments.out;
        if arguments.verbose {
            eprintln!("judging {name}");
        }
        self.judged += 1;
        if self.judged.is_multiple_of(100) {
            eprintln!("{name}: {}", self.summary());
        }
        match hunt::judge(text, settings) {
            Judgement::Refused => self.refused += 1,
            Judgement::Agree { verdict, run_found_bug } => {
                match verdict {
                    Outcome::Verified => self.verified += 1,
                    Outcome::Failed => self.failed += 1,
                    Outcome::Undecided => self.undecided += 1,
                }
                self.run_found_bug += u64::from(run_found_bug);
            }
            Judgement::Disagree(what) => {
                eprintln!("{name}: {what}");
                let shrunk =
                    hunt::shrink(text, |candidate| matches!(hunt::judge(candidate, settings), Judgement::Disagree(_)));
                let after = match hunt::judge(&shrunk, settings) {
                    Judgement::Disagree(what) => what,
                    _ => what,
                };
                let path = out.join(format!("{}.pvl", name.replace(['/', '.'], "_")));
                let saved = format!("// {name}: {after}\n// original:\n{}\n{shrunk}", comment(text));
                if let Err(error) = std::fs::create_dir_all(out).and_then(|()| std::fs::write(&path, saved)) {
                    eprintln!("cannot save {}: {error}", path.display());
                }
                self.disagreements.push(path);
            }
        }
    }
}

fn comment(text: &str) -> String {
    text.lines().map(|line| format!("// {line}")).collect::<Vec<_>>().join("\n")
}

/// The example files, sorted.
fn examples(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            examples(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "pvl") {
            found.push(path);
        }
    }
}

/// The random kernels of the seeds asked for, each with its name, and each again with its
/// annotations stripped, so that `verify` infers its permissions.
fn generated_cases(arguments: &Arguments) -> Vec<(String, String)> {
    (arguments.seed..arguments.seed + arguments.generated)
        .flat_map(|seed| {
            let text = generate::kernel(seed);
            let stripped = generate::unannotated(&text);
            [(format!("generated-{seed}"), text), (format!("generated-{seed}-unannotated"), stripped)]
        })
        .collect()
}

/// As many one-token mutants of the verified examples as asked for, spread evenly over all of
/// them, each with its name. Only verified examples are mutated: a mutant of one may wrongly stay
/// verified.
fn mutant_cases(arguments: &Arguments) -> Vec<(String, String)> {
    let mut files = Vec::new();
    examples(&arguments.examples, &mut files);
    let verified: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|path| Some((path.clone(), std::fs::read_to_string(&path).ok()?)))
        .filter(|(_, text)| !text.contains("//:: verdict failed"))
        .collect();
    let all: Vec<(String, String)> = verified
        .iter()
        .flat_map(|(path, text)| {
            mutate::mutants(text)
                .into_iter()
                .enumerate()
                .map(move |(index, mutant)| (format!("{}-mutant-{index}", path.display()), mutant))
        })
        .collect();
    let step = (all.len() / arguments.mutants.max(1)).max(1);
    all.into_iter().step_by(step).take(arguments.mutants).collect()
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    let sources = [
        ("generated kernels", generated_cases(&arguments)),
        ("mutants of verified examples", mutant_cases(&arguments)),
    ];
    if arguments.print {
        for (name, text) in sources.iter().flat_map(|(_, cases)| cases) {
            println!("// {name}\n{text}");
        }
        return ExitCode::SUCCESS;
    }
    let settings = Settings::default();
    let started = std::time::Instant::now();
    let mut found = false;
    for (what, cases) in &sources {
        let mut tally = Tally::default();
        for (name, text) in cases {
            tally.add(name, text, &settings, &arguments);
        }
        println!("{what}: {}", tally.summary());
        for path in &tally.disagreements {
            println!("  saved {}", path.display());
        }
        found |= !tally.disagreements.is_empty();
    }
    println!("in {:.0} s", started.elapsed().as_secs_f64());
    if found {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
