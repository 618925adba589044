// The page: the editor, the examples, the Verify button, and z3 (z3-solver, z3's official
// WebAssembly build). lockstep runs in a worker (worker.js), whose SMT-LIB check loop asks this
// page's z3 to evaluate batches of commands: it posts each request and waits on a shared flag, and
// the page answers through a SharedArrayBuffer once z3 has (z3's evaluation is asynchronous, the
// check loop is not).
import { init } from "z3-solver";

const RESPONSE_BYTES = 64 << 20;
const $ = (id) => document.getElementById(id);
const text = $("text");
const status = $("status");

function setStatus(message, kind = "") {
  status.textContent = message;
  status.className = kind;
}

function escape(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// The findings drawn on the text (marks behind the transparent text area) and listed beside it.
function draw(findings) {
  const source = text.value;
  const sorted = [...findings].sort((a, b) => a.at.from - b.at.from);
  let html = "";
  let at = 0;
  for (const finding of sorted) {
    const from = Math.max(finding.at.from, at);
    const to = Math.max(finding.at.to, from + 1);
    html += escape(source.slice(at, from));
    html += `<mark class="${finding.level}" title="${escape(finding.code)}">${escape(source.slice(from, to))}</mark>`;
    at = to;
  }
  $("marks").innerHTML = html + escape(source.slice(at)) + "\n";
  $("findings").innerHTML = findings
    .map((finding) => {
      const related = finding.related.map((r) => `\n  line ${r.at.line}: ${escape(r.message)}`).join("");
      const counterexample = finding.counterexample ? `\n  ${escape(finding.counterexample)}` : "";
      return `<li class="${finding.level}" data-code="${escape(finding.code)}"><code>${escape(finding.code)}</code> line ${finding.at.line}:${finding.at.column}: ${escape(finding.message)}${related}${counterexample}</li>`;
    })
    .join("");
}

text.addEventListener("scroll", () => {
  $("marks").scrollTop = text.scrollTop;
  $("marks").scrollLeft = text.scrollLeft;
});

// `Z3.eval_smtlib2_string` hands z3's thread a copy of the text on the stack, which the next call
// may overwrite before z3 has read it: the text is copied to the heap instead, and freed once z3
// has answered.
async function evaluator() {
  const { Z3, em } = await init();
  const evaluate = async (context, text) => {
    const bytes = em.intArrayFromString(text);
    const address = em._malloc(bytes.length);
    em.HEAPU8.set(bytes, address);
    try {
      return await em.async_call(em._async_Z3_eval_smtlib2_string, context, address);
    } finally {
      em._free(address);
    }
  };
  return { Z3, evaluate };
}

async function main() {
  const { Z3, evaluate } = await evaluator();
  const contexts = new Map();
  let next = 1;
  const shared = new SharedArrayBuffer(8 + RESPONSE_BYTES);
  const flag = new Int32Array(shared, 0, 2);
  const bytes = new Uint8Array(shared, 8);
  const worker = new Worker("worker.js", { type: "module" });
  const pending = new Map();
  let request = 0;
  const ask = (message) =>
    new Promise((resolve) => {
      request += 1;
      pending.set(request, resolve);
      worker.postMessage({ ...message, request });
    });

  function answer(value) {
    const encoded = new TextEncoder().encode(value);
    if (encoded.length > RESPONSE_BYTES) throw new Error("z3's answer is too long for the page");
    bytes.set(encoded);
    Atomics.store(flag, 1, encoded.length);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }

  worker.onmessage = async ({ data }) => {
    if (data.kind === "z3") {
      if (data.op === "start") {
        const context = Z3.mk_context(Z3.mk_config());
        contexts.set(next, context);
        answer(String(next++));
      } else if (data.op === "evaluate") {
        let output;
        try {
          output = await evaluate(contexts.get(data.context), data.commands);
        } catch (error) {
          output = `(error "${String(error).replace(/"/g, "'")}")\n`;
        }
        answer(output);
      } else if (data.op === "end") {
        const context = contexts.get(data.context);
        contexts.delete(data.context);
        if (context !== undefined) Z3.del_context(context);
        answer("");
      }
    } else {
      pending.get(data.request)(data.result);
      pending.delete(data.request);
    }
  };
  await ask({ kind: "init", shared });

  const examples = JSON.parse(await ask({ kind: "examples" }));
  for (const example of examples) {
    const option = document.createElement("option");
    option.textContent = example.name;
    $("examples").append(option);
  }
  const path = () => $("examples").value;
  let typing;
  // Each edit and each verification starts a generation; an answer is drawn only if none started
  // since it was asked for, so that a late check never covers a verification's findings.
  let generation = 0;
  const check = async () => {
    const asked = ++generation;
    const result = JSON.parse(await ask({ kind: "check", path: path(), text: text.value }));
    if (asked === generation) draw(result.findings);
  };
  const verify = async () => {
    clearTimeout(typing);
    const asked = ++generation;
    $("verify").disabled = true;
    setStatus("verifying…");
    const started = performance.now();
    const result = JSON.parse(await ask({ kind: "verify", path: path(), text: text.value }));
    $("verify").disabled = false;
    if (asked !== generation) return;
    draw(result.findings);
    $("explain").textContent = result.explain;
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const failed = result.kernels.length === 0 || result.kernels.some((kernel) => kernel.verdict !== "verified");
    const verdicts = result.kernels.map((kernel) => `kernel ${kernel.name}: ${kernel.verdict}`).join(", ");
    setStatus(`${verdicts || "rejected"} (${seconds} s)`, failed ? "failed" : "verified");
  };
  const load = () => {
    text.value = examples.find((example) => example.name === path()).text;
    $("explain").textContent = "";
    check();
  };
  $("examples").addEventListener("change", load);
  $("verify").addEventListener("click", verify);
  text.addEventListener("input", () => {
    clearTimeout(typing);
    generation += 1;
    typing = setTimeout(check, 150);
    setStatus("changed: press Verify");
  });
  load();
  $("verify").disabled = false;
  setStatus("ready");
  await verify();
}

main().catch((error) => setStatus(`error: ${error}`, "failed"));
