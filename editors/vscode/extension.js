// The lockstep extension: starts `lockstep lsp` for PVL files (and OpenCL C and CUDA files), and
// shows the verdict of the open file in the status bar from the server's `lockstep/verifying`,
// `lockstep/verified` and `lockstep/cancelled` notifications.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("lockstep").get("path", "lockstep");
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "lockstep",
    "lockstep",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "pvl" },
        { scheme: "untitled", language: "pvl" },
        { scheme: "file", pattern: "**/*.{cl,cu}" },
      ],
    },
  );
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left);
  context.subscriptions.push(status);
  const show = (text) => {
    status.text = text;
    status.show();
  };
  client.onNotification("lockstep/verifying", () => show("$(sync~spin) lockstep: verifying"));
  client.onNotification("lockstep/cancelled", () => show("$(sync~spin) lockstep: text changed"));
  client.onNotification("lockstep/verified", (params) => {
    const verdicts = params.kernels.map((kernel) => `${kernel.name} ${kernel.verdict}`);
    const failed = params.kernels.some((kernel) => kernel.verdict !== "verified");
    show(`${failed ? "$(error)" : "$(check)"} lockstep: ${verdicts.join(", ")}`);
  });
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
