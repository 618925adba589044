//! `lockstep lsp`: a Language Server Protocol server over stdio, for verifying as one types.
//!
//! Built on rust-analyzer's `lsp-server` and `lsp-types`: a synchronous loop over crossbeam
//! channels, with no async runtime, which suits a server whose work is CPU-bound solving on
//! threads of its own (`tower-lsp` would bring tokio for nothing).
//!
//! The main thread owns the documents and never waits on the solver. On open and on every change
//! it checks the text at once (parse, resolve, types: milliseconds) and publishes those
//! diagnostics, then hands the text to the verification thread, cancelling the verification of
//! the text it replaces ([`lockstep_encoder::smt::Limits::cancel`]: the check in flight is
//! interrupted). The verification thread waits for [`QUIET`] without a newer text before it
//! starts, verifies as `lockstep verify` does, and sends the verdicts back; the main thread
//! publishes them if the document has not changed since, with the counterexample of each failure
//! in the diagnostic's related information, and a `lockstep/verified` notification that says
//! each kernel's verdict (what an editor shows in its status bar, and what tests wait for).
//! Hover shows what `lockstep explain` says of a contract clause or a barrier, with the verdicts;
//! go to definition finds arrays, variables and functions ([`lockstep_frontend::editor`]).
//! Positions are UTF-16 code units, the protocol's default.

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lockstep_encoder::smt::{Cancel, Limits};
use lockstep_frontend::editor::{self, Finding, Level};
use lockstep_frontend::explain::{self, Explained};
use lockstep_frontend::source::SourceFile;
use lockstep_frontend::verify::{self, Verdict, Verification};
use lockstep_frontend::Checked;
use lockstep_logic::Span;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{GotoDefinition, HoverRequest, Request as _};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, GotoDefinitionParams, GotoDefinitionResponse, Hover,
    HoverContents, HoverParams, HoverProviderCapability, Location, MarkupContent, MarkupKind, NumberOrString, OneOf,
    Position, PublishDiagnosticsParams, Range, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    Uri,
};
use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Duration;

/// How long the text must stay unchanged before it is verified: long enough not to start a
/// verification per keystroke, short enough that the verdict follows a pause at once.
const QUIET: Duration = Duration::from_millis(300);

/// The notifications that follow a verification (besides the diagnostics): it starts, it ends
/// with each kernel's verdict, or a change stops it.
const VERIFYING: &str = "lockstep/verifying";
const VERIFIED: &str = "lockstep/verified";
const CANCELLED: &str = "lockstep/cancelled";

pub fn run() -> ExitCode {
    let (connection, io_threads) = Connection::stdio();
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    };
    let capabilities = serde_json::to_value(capabilities).expect("capabilities serialise");
    if let Err(error) = connection.initialize(capabilities) {
        eprintln!("lockstep lsp: the client did not initialize: {error}");
        return ExitCode::from(2);
    }
    let (jobs, queued) = crossbeam_channel::unbounded::<Job>();
    let (events, verified) = crossbeam_channel::unbounded::<Event>();
    let worker = std::thread::spawn(move || verify_in_turn(&queued, &events));
    let mut server = Server { sender: connection.sender.clone(), documents: HashMap::new(), jobs };
    let ended = server.serve(&connection, &verified);
    for document in server.documents.values() {
        document.cancel.cancel();
    }
    drop(server);
    let _ = worker.join();
    drop(connection);
    let joined = io_threads.join();
    match (ended, joined) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(error), _) => {
            eprintln!("lockstep lsp: {error}");
            ExitCode::from(1)
        }
        (_, Err(error)) => {
            eprintln!("lockstep lsp: {error}");
            ExitCode::from(1)
        }
    }
}

/// An open document, as last checked.
struct Document {
    version: i32,
    checked: Checked,
    /// Its kernels explained with their verdicts, once this version is verified. Before that,
    /// hover explains the kernels as written, when asked: not on every keystroke.
    verified: Option<Vec<Explained>>,
    /// Stops the verification of this version.
    cancel: Cancel,
}

/// A text to verify.
struct Job {
    uri: Uri,
    version: i32,
    path: String,
    text: String,
    cancel: Cancel,
}

/// What the verification thread reports.
enum Event {
    /// It started to verify a text.
    Started { uri: Uri, version: i32 },
    /// It verified a text.
    Done { uri: Uri, version: i32, verification: Verification },
    /// The text changed while it was verified: the verification stopped, leaving `stopped`
    /// obligations unchecked.
    Cancelled { uri: Uri, version: i32, stopped: usize },
}

struct Server {
    sender: Sender<Message>,
    documents: HashMap<Uri, Document>,
    jobs: Sender<Job>,
}

impl Server {
    /// Answers the client until it shuts the server down.
    fn serve(&mut self, connection: &Connection, events: &Receiver<Event>) -> Result<(), String> {
        loop {
            crossbeam_channel::select! {
                recv(connection.receiver) -> message => match message {
                    Ok(Message::Request(request)) => {
                        if connection.handle_shutdown(&request).map_err(|error| error.to_string())? {
                            return Ok(());
                        }
                        self.answer(request);
                    }
                    Ok(Message::Notification(notification)) => self.notice(notification),
                    Ok(Message::Response(_)) => {}
                    Err(_) => return Err("the client went away without shutting the server down".into()),
                },
                recv(events) -> event => match event {
                    Ok(Event::Started { uri, version }) => {
                        self.tell(VERIFYING, serde_json::json!({ "uri": uri, "version": version }));
                    }
                    Ok(Event::Done { uri, version, verification }) => self.verified(uri, version, verification),
                    Ok(Event::Cancelled { uri, version, stopped }) => {
                        self.tell(CANCELLED, serde_json::json!({ "uri": uri, "version": version, "stopped": stopped }));
                    }
                    Err(_) => return Err("the verification thread stopped".into()),
                }
            }
        }
    }

    fn notice(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(params) =
                    notification.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                {
                    let document = params.text_document;
                    self.changed(document.uri, document.version, document.text);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(params) =
                    notification.extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                {
                    // Full synchronisation: the last change is the whole text.
                    if let Some(change) = params.content_changes.into_iter().last() {
                        self.changed(params.text_document.uri, params.text_document.version, change.text);
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(params) =
                    notification.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                {
                    if let Some(document) = self.documents.remove(&params.text_document.uri) {
                        document.cancel.cancel();
                    }
                    self.publish(params.text_document.uri, None, Vec::new());
                }
            }
            _ => {}
        }
    }

    /// A new text: checked and published at once, then queued for verification.
    fn changed(&mut self, uri: Uri, version: i32, text: String) {
        if let Some(previous) = self.documents.get(&uri) {
            previous.cancel.cancel();
        }
        let path = uri.path().as_str().to_string();
        let settings = verify::Settings::default();
        let checked = verify::check(&path, text.clone().into_bytes(), &settings);
        let well_formed = checked.program.is_some() && !checked.has_errors();
        let findings = editor::check_findings(&checked);
        let diagnostics = findings.iter().map(|finding| diagnostic(&uri, &checked.file, finding)).collect();
        self.publish(uri.clone(), Some(version), diagnostics);
        let cancel = Cancel::default();
        if well_formed {
            let job = Job { uri: uri.clone(), version, path, text, cancel: cancel.clone() };
            // The verification thread lives as long as the server.
            let _ = self.jobs.send(job);
        }
        self.documents.insert(uri, Document { version, checked, verified: None, cancel });
    }

    /// Verdicts back from the verification thread: published if their text is still the
    /// document's.
    fn verified(&mut self, uri: Uri, version: i32, verification: Verification) {
        let Some(document) = self.documents.get_mut(&uri).filter(|document| document.version == version) else {
            return;
        };
        let findings = editor::findings(&verification);
        let Verification { checked, kernels } = verification;
        let mut kernel_verdicts = Vec::new();
        if let (Some(program), Some(Ok(results))) = (&checked.program, kernels) {
            let memory_model = verify::Settings::default().memory_model_of(&checked.file.path);
            document.verified = Some(explain::kernels(&checked.file, program, Some(&results), memory_model));
            kernel_verdicts = results
                .iter()
                .map(|result| serde_json::json!({ "name": result.name, "verdict": result.verdict().name() }))
                .collect();
        }
        let diagnostics = findings.iter().map(|finding| diagnostic(&uri, &checked.file, finding)).collect();
        document.checked = checked;
        self.publish(uri.clone(), Some(version), diagnostics);
        self.tell(VERIFIED, serde_json::json!({ "uri": uri, "version": version, "kernels": kernel_verdicts }));
    }

    /// One of the notifications that follow a verification.
    fn tell(&self, method: &str, params: serde_json::Value) {
        let _ = self.sender.send(Notification::new(method.to_string(), params).into());
    }

    fn answer(&mut self, request: Request) {
        let id = request.id.clone();
        let invalid = |error: lsp_server::ExtractError<Request>| {
            Response::new_err(id.clone(), ErrorCode::InvalidParams as i32, error.to_string())
        };
        let response = match request.method.as_str() {
            HoverRequest::METHOD => match request.extract::<HoverParams>(HoverRequest::METHOD) {
                Ok((id, params)) => Response::new_ok(id, self.hover(&params.text_document_position_params)),
                Err(error) => invalid(error),
            },
            GotoDefinition::METHOD => match request.extract::<GotoDefinitionParams>(GotoDefinition::METHOD) {
                Ok((id, params)) => Response::new_ok(id, self.definition(&params.text_document_position_params)),
                Err(error) => invalid(error),
            },
            _ => Response::new_err(
                request.id,
                ErrorCode::MethodNotFound as i32,
                format!("lockstep lsp does not answer `{}`", request.method),
            ),
        };
        let _ = self.sender.send(response.into());
    }

    fn hover(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<Hover> {
        let document = self.documents.get(&at.text_document.uri)?;
        let file = &document.checked.file;
        let offset = file.offset_of_utf16(at.position.line, at.position.character);
        let written;
        let explained = match &document.verified {
            Some(verified) => verified,
            None => {
                let program = document.checked.program.as_ref().filter(|_| !document.checked.has_errors())?;
                let memory_model = verify::Settings::default().memory_model_of(&file.path);
                written = explain::kernels(file, program, None, memory_model);
                &written
            }
        };
        let (span, text) = editor::hover(file, explained, offset)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: text }),
            range: Some(range(file, span)),
        })
    }

    fn definition(&self, at: &lsp_types::TextDocumentPositionParams) -> Option<GotoDefinitionResponse> {
        let document = self.documents.get(&at.text_document.uri)?;
        let file = &document.checked.file;
        let program = document.checked.program.as_ref()?;
        let offset = file.offset_of_utf16(at.position.line, at.position.character);
        let span = editor::definition(file, program, offset)?;
        Some(GotoDefinitionResponse::Scalar(Location { uri: at.text_document.uri.clone(), range: range(file, span) }))
    }

    fn publish(&self, uri: Uri, version: Option<i32>, diagnostics: Vec<lsp_types::Diagnostic>) {
        let params = PublishDiagnosticsParams { uri, diagnostics, version };
        let _ = self.sender.send(Notification::new(PublishDiagnostics::METHOD.to_string(), params).into());
    }
}

/// The verification thread: takes the latest text of each document once the texts stop
/// changing for [`QUIET`], and verifies it unless it was cancelled meanwhile.
fn verify_in_turn(queued: &Receiver<Job>, events: &Sender<Event>) {
    let mut pending: Vec<Job> = Vec::new();
    loop {
        if pending.is_empty() {
            match queued.recv() {
                Ok(job) => pending.push(job),
                Err(_) => return,
            }
        }
        loop {
            match queued.recv_timeout(QUIET) {
                Ok(job) => {
                    pending.retain(|waiting| waiting.uri != job.uri);
                    pending.push(job);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let job = pending.remove(0);
        if job.cancel.is_cancelled() {
            continue;
        }
        let (uri, version) = (job.uri, job.version);
        let _ = events.send(Event::Started { uri: uri.clone(), version });
        let settings = verify::Settings {
            limits: Limits { cancel: Some(job.cancel.clone()), ..Limits::default() },
            ..verify::Settings::default()
        };
        let verification = verify::file(&job.path, job.text.into_bytes(), &settings);
        // A cancelled verification's undecided verdicts say nothing of the text.
        let event = if job.cancel.is_cancelled() {
            let results = verification.kernels.into_iter().flatten().flatten();
            let outcomes = results.flat_map(|kernel| kernel.results);
            let cancelled = Verdict::Undecided(lockstep_encoder::smt::CANCELLED.to_string());
            Event::Cancelled { uri, version, stopped: outcomes.filter(|outcome| outcome.verdict == cancelled).count() }
        } else {
            Event::Done { uri, version, verification }
        };
        if events.send(event).is_err() {
            return;
        }
    }
}

fn position(file: &SourceFile, offset: usize) -> Position {
    let (line, character) = file.utf16_position(offset);
    Position { line, character }
}

fn range(file: &SourceFile, span: Span) -> Range {
    Range { start: position(file, span.start), end: position(file, span.end) }
}

/// A finding as the protocol carries it: the other places and the counterexample as related
/// information.
fn diagnostic(uri: &Uri, file: &SourceFile, finding: &Finding) -> lsp_types::Diagnostic {
    let related = |span: Span, message: String| DiagnosticRelatedInformation {
        location: Location { uri: uri.clone(), range: range(file, span) },
        message,
    };
    let mut related_information: Vec<DiagnosticRelatedInformation> =
        finding.related.iter().map(|(span, message)| related(*span, message.clone())).collect();
    if let Some(counterexample) = &finding.counterexample {
        related_information.push(related(finding.span, counterexample.clone()));
    }
    lsp_types::Diagnostic {
        range: range(file, finding.span),
        severity: Some(match finding.level {
            Level::Error => DiagnosticSeverity::ERROR,
            Level::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(finding.code.to_string())),
        source: Some("lockstep".to_string()),
        message: finding.message.clone(),
        related_information: Some(related_information).filter(|related| !related.is_empty()),
        ..lsp_types::Diagnostic::default()
    }
}
