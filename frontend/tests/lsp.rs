//! `lockstep lsp`, driven over stdio as an editor drives it: initialize, open, change, wait for
//! diagnostics, hover, go to definition, shut down.

#[path = "support/ring.rs"]
mod family;

use family::ring;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a test waits for a message before it gives up: a guard against a hung server, not a
/// measure of speed (the benchmark measures that).
const PATIENCE: Duration = Duration::from_secs(300);

struct Client {
    server: Child,
    stdin: ChildStdin,
    incoming: mpsc::Receiver<Value>,
    /// Every message received, in order.
    received: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start() -> Client {
        let mut server = Command::new(env!("CARGO_BIN_EXE_lockstep"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdin = server.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(server.stdout.take().expect("stdout"));
        let (sender, incoming) = mpsc::channel();
        std::thread::spawn(move || loop {
            let mut length = None;
            loop {
                let mut header = String::new();
                if stdout.read_line(&mut header).unwrap_or(0) == 0 {
                    return;
                }
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some(value) = header.strip_prefix("Content-Length: ") {
                    length = value.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("a Content-Length header")];
            stdout.read_exact(&mut body).expect("the body");
            if sender.send(serde_json::from_slice(&body).expect("JSON")).is_err() {
                return;
            }
        });
        let mut client = Client { server, stdin, incoming, received: Vec::new(), next_id: 1 };
        let result = client.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": { "textDocument": { "publishDiagnostics": { "relatedInformation": true } } } }),
        );
        assert_eq!(result["capabilities"]["hoverProvider"], true, "{result}");
        assert_eq!(result["capabilities"]["definitionProvider"], true, "{result}");
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("the server reads");
        self.stdin.flush().expect("flushed");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.wait_for(|message| message["id"] == id && message.get("method").is_none());
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    /// The first message received, or to come, that `wanted` accepts.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(found) = self.received.iter().find(|message| wanted(message)) {
            return found.clone();
        }
        loop {
            let message = self.incoming.recv_timeout(PATIENCE).expect("the server answers");
            self.received.push(message.clone());
            if wanted(&message) {
                return message;
            }
        }
    }

    fn notification(&mut self, method: &str, version: i64) -> Value {
        self.wait_for(|message| message["method"] == method && message["params"]["version"] == version)["params"]
            .clone()
    }

    /// The diagnostics published for `version` after its verification.
    fn verified_diagnostics(&mut self, version: i64) -> (Value, Vec<Value>) {
        let verdicts = self.notification("lockstep/verified", version);
        let published: Vec<Value> = self
            .received
            .iter()
            .filter(|message| {
                message["method"] == "textDocument/publishDiagnostics" && message["params"]["version"] == version
            })
            .map(|message| message["params"]["diagnostics"].clone())
            .collect();
        let last = published.last().and_then(Value::as_array).cloned().expect("diagnostics before the verdicts");
        (verdicts, last)
    }

    fn open(&mut self, uri: &str, text: &str) {
        let document = json!({ "uri": uri, "languageId": "pvl", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": document }));
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) {
        let document = json!({ "uri": uri, "version": version });
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": document, "contentChanges": [{ "text": text }] }),
        );
    }

    /// Shuts the server down as an editor does, and waits for it to end.
    fn shut_down(mut self) -> Vec<Value> {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let status = self.server.wait().expect("the server ends");
        assert!(status.success(), "{status}");
        self.received.extend(self.incoming.try_iter());
        self.received
    }
}

fn demo() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/seed/demo.pvl")).expect("the demo")
}

/// The 0-based line and column of the first `needle` in `text` (ASCII text).
fn place(text: &str, needle: &str) -> Value {
    let offset = text.find(needle).unwrap_or_else(|| panic!("`{needle}` in the text"));
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
    json!({ "line": line, "character": column })
}

const URI: &str = "file:///kernels/demo.pvl";

#[test]
fn an_editing_session_on_the_demo() {
    let demo = demo();
    let mut client = Client::start();
    client.open(URI, &demo);
    let (verdicts, diagnostics) = client.verified_diagnostics(1);
    assert_eq!(verdicts["kernels"], json!([{ "name": "demo", "verdict": "verified" }]));
    assert_eq!(diagnostics, Vec::<Value>::new(), "the demo verifies");

    // The seed's bug: the barrier does not fence the global array it hands over.
    let broken = demo.replace("barrier(global)", "barrier(local)");
    client.change(URI, 2, &broken);
    let (verdicts, diagnostics) = client.verified_diagnostics(2);
    assert_eq!(verdicts["kernels"][0]["verdict"], "failed");
    let functional = diagnostics
        .iter()
        .find(|diagnostic| diagnostic["code"] == "barrier.functional")
        .unwrap_or_else(|| panic!("barrier.functional: {diagnostics:?}"));
    assert_eq!(functional["severity"], 1);
    assert_eq!(functional["source"], "lockstep");
    assert_eq!(functional["range"]["start"], place(&broken, "a[(tid+1) mod gsize]=(tid+1)"), "{functional}");
    let related = functional["relatedInformation"].as_array().expect("related information");
    assert!(
        related
            .iter()
            .any(|info| info["message"].as_str().is_some_and(|text| text.starts_with("counterexample: tid = "))),
        "{related:?}"
    );
    assert!(related.iter().all(|info| info["location"]["uri"] == URI));

    // Hover on the barrier: its obligations, with the verdicts of this version.
    let barrier = place(&broken, "barrier(local)");
    let hover = client.request("textDocument/hover", json!({ "textDocument": { "uri": URI }, "position": barrier }));
    let text = hover["contents"]["value"].as_str().expect("Markdown");
    assert!(text.contains("barrier.functional") && text.contains("[failed]"), "{text}");
    assert!(text.contains("barrier.pre") && text.contains("[verified]"), "{text}");

    // Go to definition of `a` in `a[tid]:=tid`.
    let use_of_a = place(&broken, "a[tid]:=tid");
    let definition =
        client.request("textDocument/definition", json!({ "textDocument": { "uri": URI }, "position": use_of_a }));
    assert_eq!(definition["uri"], URI);
    assert_eq!(definition["range"]["start"]["line"], place(&broken, "global int[gsize] a;")["line"], "{definition}");

    // A syntax error is published at once, and nothing is verified.
    let unfinished = broken.replace("a[tid]:=tid;", "a[tid]:=tid");
    client.change(URI, 3, &unfinished);
    let published = client.wait_for(|message| {
        message["method"] == "textDocument/publishDiagnostics" && message["params"]["version"] == 3
    });
    let codes: Vec<&Value> =
        published["params"]["diagnostics"].as_array().expect("a list").iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("syntax::missing-semicolon")]);

    let received = client.shut_down();
    assert!(!received
        .iter()
        .any(|message| message["method"] == "lockstep/verifying" && message["params"]["version"] == 3));
}

#[test]
fn typing_cancels_the_verification_it_makes_stale() {
    let mut client = Client::start();
    let uri = "file:///kernels/ring.pvl";
    client.open(uri, &ring(64));
    // A ring of 64 barriers takes seconds to verify.
    // Changed while it is verified: the solver stops, and the new text is verified instead.
    client.notification("lockstep/verifying", 1);
    client.change(uri, 2, &demo());
    let cancelled = client.notification("lockstep/cancelled", 1);
    assert!(cancelled["stopped"].as_u64().is_some_and(|stopped| stopped > 0), "{cancelled}");
    let (verdicts, diagnostics) = client.verified_diagnostics(2);
    assert_eq!(verdicts["kernels"][0]["verdict"], "verified");
    assert!(diagnostics.is_empty());
    // Changes in quick succession: only the last text is verified.
    for version in 3..=5 {
        client.change(uri, version, &demo().replace("barrier(global)", &format!("barrier(global) /* {version} */")));
    }
    client.verified_diagnostics(5);
    let received = client.shut_down();
    let verified: Vec<&Value> = received
        .iter()
        .filter(|message| message["method"] == "lockstep/verified")
        .map(|message| &message["params"]["version"])
        .collect();
    assert_eq!(verified, [&json!(2), &json!(5)]);
}
