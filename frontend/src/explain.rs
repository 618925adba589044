//! `lockstep explain`: the outline of a kernel ([`lockstep_logic::outline`]) as a reader sees it,
//! in the seed's notation: the specifications of the levels (written, or generated from the
//! thread contract), every global obligation as an entailment, and the thread's triple with its
//! barrier calls, each obligation with its number, id, place and, when asked, its verdict.
//!
//! The outline is first turned into a tree of [`Step`]s, which both the human and the JSON form
//! print, so the two always say the same.

use crate::source::SourceFile;
use crate::verify::Verdict;
use lockstep_logic::outline::{Command, Formula, Global, Origin, Outline, Part, Side, Spec, Threads};
use lockstep_logic::resources::{Conjunct, ConjunctKind};
use lockstep_logic::{Amount, Clause, Expr, ExprKind, Kernel, Obligation, Span, UnaryOp};
use std::fmt::Write;

/// One line of an explanation, with the obligations it holds and the steps inside it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// What happens, or what must hold.
    pub text: String,
    /// Where, when the step has a place in the source.
    pub span: Option<Span>,
    /// The numbers of the obligations of the step (into the outline's, or, for a divergent
    /// barrier, into [`Explanation::divergence`]).
    pub obligations: Vec<usize>,
    /// For a global obligation: the entailment `premise ⊢ conclusion` it is, in the seed's
    /// notation.
    pub entailment: Option<(String, String)>,
    pub steps: Vec<Step>,
}

/// The explanation of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub kernel: String,
    pub span: Span,
    /// The specifications of the thread, the group and the kernel.
    pub specifications: Vec<Step>,
    /// The global obligations, each an entailment with its obligations.
    pub global: Vec<Step>,
    /// The thread's triple.
    pub thread: Vec<Step>,
    /// The pure functions' obligations.
    pub functions: Vec<Step>,
    /// The outline's obligations, by number.
    pub obligations: Vec<Obligation>,
    /// The barriers the threads of a group might reach divergently, failed without a solver.
    pub divergence: Vec<Obligation>,
}

/// Explains a kernel's outline, reading its text from the file.
pub fn explain(file: &SourceFile, outline: &Outline) -> Explanation {
    let writer = Writer { file, kernel: outline.kernel };
    Explanation {
        kernel: outline.kernel.name.clone(),
        span: outline.kernel.span,
        specifications: writer.specifications(outline),
        global: outline.globals.iter().map(|global| writer.global(global)).collect(),
        thread: writer.triple(&outline.thread),
        functions: outline
            .function_outlines
            .iter()
            .map(|function| {
                let declared = &outline.functions[function.function.index()];
                let obligations = function
                    .requires
                    .iter()
                    .flatten()
                    .chain(function.measure.iter().flat_map(|(_, checks)| checks))
                    .chain(&function.body)
                    .map(|check| check.obligation)
                    .chain(
                        function
                            .ensures
                            .iter()
                            .flat_map(|(checks, post)| checks.iter().map(|check| check.obligation).chain([*post])),
                    )
                    .collect();
                Step {
                    text: format!(
                        "pure function `{}`: defined, terminating, postconditions from the body",
                        declared.name
                    ),
                    span: Some(declared.span),
                    obligations,
                    entailment: None,
                    steps: Vec::new(),
                }
            })
            .collect(),
        obligations: outline.obligations.clone(),
        divergence: outline.divergence.clone(),
    }
}

fn holds_obligations(step: &Step) -> bool {
    !step.obligations.is_empty() || step.steps.iter().any(holds_obligations)
}

/// A kernel's explanation, with the verdicts of its obligations when it was verified.
pub struct Explained {
    pub explanation: Explanation,
    /// The verdict on each of the outline's obligations, by number.
    pub verdicts: Option<Vec<Verdict>>,
    /// Whether some barrier may be reached divergently (failed without a solver).
    pub divergent: bool,
}

/// Explains every kernel of a well-formed program: the kernel verified, with the contracts
/// inferred for it, when `results` (of [`crate::verify::file`]) are given; otherwise the kernel
/// as written, as inferring contracts takes the solver.
pub fn kernels(
    file: &SourceFile,
    program: &lockstep_logic::Program,
    results: Option<&[crate::verify::KernelResult]>,
    memory_model: lockstep_logic::fences::MemoryModel,
) -> Vec<Explained> {
    program
        .kernels
        .iter()
        .enumerate()
        .map(|(index, written)| {
            let result = results.map(|results| &results[index]);
            let kernel = result.and_then(|result| result.inferred.as_ref()).unwrap_or(written);
            let outline = Outline::of(program, kernel, memory_model);
            // Verification reports the divergent barriers first, then the outline's obligations
            // in their numbering.
            let verdicts = result.map(|result| {
                result.results[outline.divergence.len()..].iter().map(|outcome| outcome.verdict.clone()).collect()
            });
            Explained { explanation: explain(file, &outline), verdicts, divergent: !outline.divergence.is_empty() }
        })
        .collect()
}

struct Writer<'a> {
    file: &'a SourceFile,
    kernel: &'a Kernel,
}

impl Writer<'_> {
    fn source(&self, span: Span) -> String {
        let text = self.file.text.get(span.start..span.end).unwrap_or("?");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// An expression as written; a negation or `\old` the logic made (spanning the text it
    /// wraps) is spelled out.
    fn expr(&self, expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Unary { op: UnaryOp::Not, operand } if operand.span == expr.span => {
                format!("¬({})", self.expr(operand))
            }
            ExprKind::Old(inner) if inner.span == expr.span => format!("\\old({})", self.expr(inner)),
            _ => self.source(expr.span),
        }
    }

    /// A conjunct in the seed's notation: `⊛ j: range. (guard → Perm(a[e], q))`.
    fn conjunct(&self, conjunct: &Conjunct) -> String {
        let mut text = match &conjunct.kind {
            ConjunctKind::Perm { array, index, amount } => {
                let amount = match amount {
                    Amount::Exact(value) => value.to_string(),
                    Amount::Divided { fraction, divisor } => format!("{fraction} \\ ({})", self.expr(divisor)),
                    Amount::Read => "read".to_string(),
                };
                format!("Perm({}[{}], {amount})", self.kernel.array(*array).name, self.expr(index))
            }
            ConjunctKind::Fact(fact) => self.expr(fact),
        };
        for guard in conjunct.guards.iter().rev() {
            text = format!("({} → {text})", self.expr(guard));
        }
        for binder in conjunct.binders.iter().rev() {
            text = format!("(⊛ {}: {}. {text})", self.kernel.var(binder.var).name, self.expr(&binder.range));
        }
        text
    }

    fn conjuncts<'c>(&self, conjuncts: impl IntoIterator<Item = &'c Conjunct>) -> String {
        let texts: Vec<String> = conjuncts.into_iter().map(|conjunct| self.conjunct(conjunct)).collect();
        if texts.is_empty() {
            "emp".into()
        } else {
            texts.join(" ⊛ ")
        }
    }

    fn formula(&self, formula: &Formula) -> String {
        match formula {
            Formula::Conjuncts(conjuncts) => self.conjuncts(conjuncts),
            Formula::Named(name) => (*name).to_string(),
            Formula::Iterated { over, separating, body } => {
                let operator = if *separating { "⊛" } else { "∀" };
                let range = match over {
                    Threads::Group => "lid ∈ group",
                    Threads::Kernel => "gid ∈ kernel",
                };
                format!("{operator} {range}. {}", self.formula(body))
            }
            Formula::Star(parts) => {
                let texts: Vec<String> = parts
                    .iter()
                    .filter(|part| !is_empty(part))
                    .map(|part| format!("({})", self.formula(part)))
                    .collect();
                if texts.is_empty() {
                    "emp".into()
                } else {
                    texts.join(" ⊛ ")
                }
            }
            Formula::Whole(array) => {
                let name = &self.kernel.array(*array).name;
                format!("⊛ j ∈ [0, |{name}|). Perm({name}[j], 1)")
            }
            Formula::Unfenced(array) => format!(
                "the locations of {} another thread of the group may have written since the last barrier that fences its memory",
                self.kernel.array(*array).name
            ),
            Formula::Empty => "emp".into(),
        }
    }

    fn clauses(&self, keyword: &str, clauses: &[Clause]) -> Vec<Step> {
        clauses
            .iter()
            .map(|clause| Step {
                text: format!("{keyword} {}", self.source(clause.assertion.span)),
                span: Some(clause.span),
                obligations: Vec::new(),
                entailment: None,
                steps: Vec::new(),
            })
            .collect()
    }

    fn specifications(&self, outline: &Outline) -> Vec<Step> {
        let contract = &self.kernel.thread_contract;
        let mut thread = self.clauses("requires", &contract.requires);
        thread.extend(self.clauses("ensures", &contract.ensures));
        let level = |name: &str, short: &str, arguments: &str, spec: &Spec| {
            let origin = match spec.origin {
                Origin::Written => "written",
                Origin::Generated => "generated from the thread contract, seed §5.4",
            };
            let parts = [("res", &spec.resources), ("pre", &spec.pre), ("post", &spec.post)];
            Step {
                text: format!("{name} ({origin})"),
                span: None,
                obligations: Vec::new(),
                entailment: None,
                steps: parts
                    .into_iter()
                    .map(|(part, formula)| Step {
                        text: format!("{short}_{part}{arguments} = {}", self.formula(formula)),
                        span: None,
                        obligations: Vec::new(),
                        entailment: None,
                        steps: Vec::new(),
                    })
                    .collect(),
            }
        };
        vec![
            Step {
                text: "thread (written): T_res(gid, lid) ⊛ T_pre(gid, lid), and T_res' ⊛ T_post(gid, lid) at the end"
                    .into(),
                span: None,
                obligations: Vec::new(),
                entailment: None,
                steps: thread,
            },
            level("group", "G", "(gid)", &outline.group_spec),
            level("kernel", "K", "", &outline.kernel_spec),
        ]
    }

    fn global(&self, global: &Global) -> Step {
        let entailment = global
            .entailment(self.kernel)
            .map(|entailment| (self.formula(&entailment.premise), self.formula(&entailment.conclusion)));
        let (text, span) = match global {
            Global::Fit { id, array, barrier, .. } => {
                let at = barrier.map_or_else(|| "at the launch".to_string(), |barrier| self.barrier_name(barrier));
                let name = &self.kernel.array(*array).name;
                (format!("{} ({name}, {at})", id.as_str()), barrier.map(|barrier| self.kernel.barrier(barrier).span))
            }
            Global::Handover { array, barrier, .. } => (
                format!(
                    "barrier.resources, the fence rule ({}, {} does not fence its memory)",
                    self.kernel.array(*array).name,
                    self.barrier_name(*barrier)
                ),
                Some(self.kernel.barrier(*barrier).span),
            ),
            Global::Functional { barrier, .. } => (
                format!("barrier.functional ({})", self.barrier_name(*barrier)),
                Some(self.kernel.barrier(*barrier).span),
            ),
            Global::Implication { id, from, to, side, .. } => {
                let side = match side {
                    Side::Pre => "preconditions",
                    Side::Post => "postconditions",
                };
                (format!("{} ({side}: {} to {})", id.as_str(), from.name(), to.name()), None)
            }
            Global::Defined { level, .. } => (format!("the written {} contract is well defined", level.name()), None),
        };
        Step {
            text: match &entailment {
                Some((premise, conclusion)) => format!("{text}: {premise}  ⊢  {conclusion}"),
                None => text,
            },
            span,
            obligations: global.obligations(),
            entailment,
            steps: Vec::new(),
        }
    }

    fn barrier_name(&self, barrier: lockstep_logic::BarrierId) -> String {
        let span = self.kernel.barrier(barrier).span;
        let line = self.file.position(span.start).line;
        format!("the barrier at line {line}")
    }

    fn parts(&self, verb: &str, parts: &[Part]) -> Step {
        Step {
            text: format!("{verb} {}", self.conjuncts(parts.iter().map(|part| &part.conjunct))),
            span: parts.first().map(|part| part.conjunct.span),
            obligations: parts
                .iter()
                .flat_map(|part| {
                    part.checks.iter().map(|check| check.obligation).chain(part.holds).chain(part.distinct)
                })
                .collect(),
            entailment: None,
            steps: Vec::new(),
        }
    }

    /// The triple: its first command inhales the thread precondition, its last exhales the
    /// thread postcondition.
    fn triple(&self, commands: &[Command]) -> Vec<Step> {
        let mut steps = self.commands(commands);
        let last = steps.len().saturating_sub(1);
        for (index, label) in [(0, "T_res ⊛ T_pre:"), (last, "T_res' ⊛ T_post:")] {
            if let Some(step) = steps.get_mut(index) {
                step.text = step.text.replacen(' ', &format!(" {label} "), 1);
            }
        }
        steps
    }

    fn commands(&self, commands: &[Command]) -> Vec<Step> {
        commands.iter().map(|command| self.command(command)).collect()
    }

    fn command(&self, command: &Command) -> Step {
        let leaf = |text: String, span: Option<Span>, obligations: Vec<usize>| Step {
            text,
            span,
            obligations,
            entailment: None,
            steps: Vec::new(),
        };
        let numbers = |checks: &[lockstep_logic::outline::Check]| checks.iter().map(|check| check.obligation).collect();
        match command {
            Command::Inhale(parts) => self.parts("inhale", parts),
            Command::Exhale { parts, .. } => self.parts("exhale", parts),
            Command::Assert { parts, .. } => self.parts("assert", parts),
            Command::Assign { var, value: None, .. } => {
                leaf(format!("declare {}", self.kernel.var(*var).name), None, Vec::new())
            }
            Command::Assign { var, value: Some(value), checks } => leaf(
                format!("{} := {}", self.kernel.var(*var).name, self.expr(value)),
                Some(value.span),
                numbers(checks),
            ),
            Command::Write { array, index, value, checks, bounds, write, span } => {
                let mut obligations: Vec<usize> = numbers(checks);
                obligations.extend(bounds.iter().chain([write]));
                let name = &self.kernel.array(*array).name;
                leaf(format!("{name}[{}] := {}", self.expr(index), self.expr(value)), Some(*span), obligations)
            }
            Command::If { cond, checks, then_branch, else_branch } => Step {
                text: format!("if {}", self.expr(cond)),
                span: Some(cond.span),
                obligations: numbers(checks),
                entailment: None,
                steps: vec![
                    Step {
                        text: "then".into(),
                        span: None,
                        obligations: Vec::new(),
                        entailment: None,
                        steps: self.commands(then_branch),
                    },
                    Step {
                        text: "else".into(),
                        span: None,
                        obligations: Vec::new(),
                        entailment: None,
                        steps: self.commands(else_branch),
                    },
                ],
            },
            Command::Loop { cond, entry, inhaled, cond_checks, body, preserved, exit, span, .. } => {
                let mut iteration = vec![self.parts("inhale the invariant", inhaled)];
                iteration.push(leaf(format!("assume {}", self.expr(cond)), Some(cond.span), numbers(cond_checks)));
                iteration.extend(self.commands(body));
                let mut preserved = self.command(preserved);
                preserved.text = preserved.text.replacen("exhale", "exhale the invariant", 1);
                iteration.push(preserved);
                let mut entry = self.command(entry);
                entry.text = entry.text.replacen("exhale", "exhale the invariant", 1);
                Step {
                    text: format!("loop while {}", self.expr(cond)),
                    span: Some(*span),
                    obligations: Vec::new(),
                    entailment: None,
                    steps: vec![
                        entry,
                        Step {
                            text: "one iteration, from the invariant alone".into(),
                            span: None,
                            obligations: Vec::new(),
                            entailment: None,
                            steps: iteration,
                        },
                        Step {
                            text: "exit".into(),
                            span: None,
                            obligations: Vec::new(),
                            entailment: None,
                            steps: vec![
                                self.parts("inhale the invariant", exit),
                                leaf(format!("assume ¬({})", self.expr(cond)), None, Vec::new()),
                            ],
                        },
                    ],
                }
            }
            Command::Barrier { barrier, pre, post } => {
                let declared = self.kernel.barrier(*barrier);
                let mut fences = Vec::new();
                if declared.fences.local {
                    fences.push("local");
                }
                if declared.fences.global {
                    fences.push("global");
                }
                let fences = if fences.is_empty() { "no memory".to_string() } else { fences.join(" and ") };
                Step {
                    text: format!("call the barrier (fences {fences})"),
                    span: Some(declared.span),
                    obligations: Vec::new(),
                    entailment: None,
                    steps: vec![
                        self.parts("exhale B_pre:", pre),
                        leaf("give up all remaining permission, forget the heap".into(), None, Vec::new()),
                        self.parts("inhale B_res ⊛ B_post:", post),
                    ],
                }
            }
            Command::Assume { expr, checks, span } => {
                leaf(format!("assume {}", self.expr(expr)), Some(*span), numbers(checks))
            }
        }
    }
}

/// Whether a formula is `emp`: nothing, or an iteration of nothing.
fn is_empty(formula: &Formula) -> bool {
    match formula {
        Formula::Empty => true,
        Formula::Conjuncts(list) => list.is_empty(),
        Formula::Iterated { body, .. } => is_empty(body),
        Formula::Star(parts) => parts.iter().all(is_empty),
        Formula::Named(_) | Formula::Whole(_) | Formula::Unfenced(_) => false,
    }
}

/// An obligation in a line: its id, place and message, and its verdict if known.
fn obligation_line(file: &SourceFile, obligation: &Obligation, verdict: Option<&Verdict>) -> String {
    let place = file.position(obligation.span.start);
    let verdict = verdict.map_or_else(String::new, |verdict| format!("  [{}]", verdict_word(verdict)));
    format!("{} {}:{}  {}{verdict}", obligation.id.as_str(), place.line, place.column, obligation.message)
}

/// The verdict's word.
fn verdict_word(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Verified => "verified".into(),
        Verdict::Failed => "failed".into(),
        Verdict::Undecided(reason) => format!("undecided ({reason})"),
        Verdict::NotChecked(reason) => format!("not checked ({reason})"),
    }
}

impl Explanation {
    /// The explanation as text, each obligation with its verdict when `verdicts` (by number) are
    /// given.
    pub fn human(&self, file: &SourceFile, verdicts: Option<&[Verdict]>) -> String {
        let mut out = String::new();
        let line = |span: Span| file.position(span.start).line;
        let _ = writeln!(out, "kernel {} (line {})", self.kernel, line(self.span));
        let sections = [
            ("specifications", &self.specifications),
            ("global obligations", &self.global),
            ("thread triple {T_res ⊛ T_pre} body {T_res' ⊛ T_post}, barriers as calls", &self.thread),
            ("pure functions", &self.functions),
        ];
        for (title, steps) in sections {
            if steps.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title}");
            for step in steps {
                self.write_step(&mut out, file, step, 1, verdicts);
            }
        }
        if !self.divergence.is_empty() {
            let _ = writeln!(out, "\nbarrier divergence (decided without a solver)");
            for obligation in &self.divergence {
                let _ = writeln!(out, "  {}", obligation_line(file, obligation, Some(&Verdict::Failed)));
            }
        }
        out
    }

    fn write_step(&self, out: &mut String, file: &SourceFile, step: &Step, depth: usize, verdicts: Option<&[Verdict]>) {
        let indent = "  ".repeat(depth);
        let at = step.span.map_or_else(String::new, |span| format!("line {}: ", file.position(span.start).line));
        let _ = writeln!(out, "{indent}{at}{}", step.text);
        for &number in &step.obligations {
            let verdict = verdicts.map(|verdicts| &verdicts[number]);
            let _ = writeln!(out, "{indent}  o{number} {}", obligation_line(file, &self.obligations[number], verdict));
        }
        for inner in &step.steps {
            self.write_step(out, file, inner, depth + 1, verdicts);
        }
    }

    /// What the explanation says of the construct at byte `offset` (a contract clause, a barrier,
    /// a statement): the steps about the innermost place that holds it, as the human form prints
    /// them, with that place. A step is about a place when the place is its own, or that of one of
    /// its obligations (a permission of the thread's precondition, say, is the place of the
    /// group's resource checks). `None` where no obligation is about.
    pub fn at(&self, file: &SourceFile, offset: usize, verdicts: Option<&[Verdict]>) -> Option<(Span, String)> {
        let holds = |span: Span| span.start <= offset && offset <= span.end;
        let mut places: Vec<(Span, &Step)> = Vec::new();
        let mut steps: Vec<&Step> =
            [&self.specifications, &self.global, &self.thread, &self.functions].into_iter().flatten().collect();
        while let Some(step) = steps.pop() {
            let own = step.span.filter(|&span| holds(span) && holds_obligations(step));
            let obligations = step.obligations.iter().map(|&number| self.obligations[number].span);
            places.extend(own.into_iter().chain(obligations.filter(|&span| holds(span))).map(|span| (span, step)));
            steps.extend(&step.steps);
        }
        let (span, _) = *places.iter().min_by_key(|(span, _)| span.end - span.start)?;
        // In the order of the text, each step once (a step's places are pushed together).
        let mut chosen: Vec<&Step> = places.iter().filter(|(place, _)| *place == span).map(|(_, step)| *step).collect();
        chosen.dedup_by(|later, earlier| std::ptr::eq(*later, *earlier));
        chosen.sort_by_key(|step| step.span.map_or(0, |span| span.start));
        let mut out = String::new();
        for step in chosen {
            self.write_step(&mut out, file, step, 0, verdicts);
        }
        for divergent in self.divergence.iter().filter(|obligation| obligation.span == span) {
            let _ = writeln!(out, "{}", obligation_line(file, divergent, verdicts.map(|_| &Verdict::Failed)));
        }
        Some((span, out))
    }

    /// The explanation as JSON, each obligation with its verdict when `verdicts` are given.
    pub fn json(&self, file: &SourceFile, verdicts: Option<&[Verdict]>) -> serde_json::Value {
        let obligation = |number: Option<usize>, obligation: &Obligation, verdict: Option<&Verdict>| {
            let place = file.position(obligation.span.start);
            let mut value = serde_json::json!({
                "id": obligation.id.as_str(),
                "line": place.line,
                "column": place.column,
                "message": obligation.message,
            });
            if let Some(number) = number {
                value["number"] = serde_json::json!(number);
            }
            if let Some(verdict) = verdict {
                value["verdict"] = serde_json::json!(verdict_word(verdict));
            }
            value
        };
        fn step_json(
            step: &Step,
            file: &SourceFile,
            obligation: &dyn Fn(usize) -> serde_json::Value,
        ) -> serde_json::Value {
            let mut value = serde_json::json!({
                "text": step.text,
                "obligations": step.obligations.iter().map(|&number| obligation(number)).collect::<Vec<_>>(),
            });
            if let Some(span) = step.span {
                value["line"] = serde_json::json!(file.position(span.start).line);
            }
            if let Some((premise, conclusion)) = &step.entailment {
                value["premise"] = serde_json::json!(premise);
                value["conclusion"] = serde_json::json!(conclusion);
            }
            if !step.steps.is_empty() {
                value["steps"] = serde_json::json!(step
                    .steps
                    .iter()
                    .map(|inner| step_json(inner, file, obligation))
                    .collect::<Vec<_>>());
            }
            value
        }
        let numbered = |number: usize| {
            obligation(Some(number), &self.obligations[number], verdicts.map(|verdicts| &verdicts[number]))
        };
        let steps = |steps: &[Step]| steps.iter().map(|step| step_json(step, file, &numbered)).collect::<Vec<_>>();
        serde_json::json!({
            "name": self.kernel,
            "line": file.position(self.span.start).line,
            "specifications": steps(&self.specifications),
            "global": steps(&self.global),
            "thread": steps(&self.thread),
            "functions": steps(&self.functions),
            "divergence": self
                .divergence
                .iter()
                .map(|divergent| obligation(None, divergent, verdicts.map(|_| &Verdict::Failed)))
                .collect::<Vec<_>>(),
        })
    }
}
