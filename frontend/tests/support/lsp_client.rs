//! A language client for `lockstep lsp`, as an editor is one: it frames JSON-RPC messages on the
//! server's stdin and stdout, and keeps every message received. The tests and the benchmark of the
//! server drive it.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long the client waits for a message before it gives up: a guard against a hung server, not a
/// measure of speed (the benchmark measures that).
const PATIENCE: Duration = Duration::from_secs(300);

pub struct Client {
    server: Child,
    stdin: ChildStdin,
    incoming: mpsc::Receiver<Value>,
    /// Every message received, in order.
    received: Vec<Value>,
    next_id: i64,
}

impl Client {
    pub fn start() -> Client {
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

    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("the server reads");
        self.stdin.flush().expect("flushed");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.wait_for(|message| message["id"] == id && message.get("method").is_none());
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    /// The first message received, or to come, that `wanted` accepts.
    pub fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
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

    pub fn notification(&mut self, method: &str, version: i64) -> Value {
        self.wait_for(|message| message["method"] == method && message["params"]["version"] == version)["params"]
            .clone()
    }

    /// The diagnostics published for `version` after its verification.
    pub fn verified_diagnostics(&mut self, version: i64) -> (Value, Vec<Value>) {
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

    pub fn open(&mut self, uri: &str, text: &str) {
        let document = json!({ "uri": uri, "languageId": "pvl", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": document }));
    }

    pub fn change(&mut self, uri: &str, version: i64, text: &str) {
        let document = json!({ "uri": uri, "version": version });
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": document, "contentChanges": [{ "text": text }] }),
        );
    }

    /// Shuts the server down as an editor does, and waits for it to end.
    pub fn shut_down(mut self) -> Vec<Value> {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        let status = self.server.wait().expect("the server ends");
        assert!(status.success(), "{status}");
        self.received.extend(self.incoming.try_iter());
        self.received
    }
}
