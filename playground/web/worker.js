// lockstep, compiled to WebAssembly, in a worker of its own: its SMT-LIB check loop blocks while
// the page's z3 evaluates (main.js), which only a worker may do.
import init, * as lockstep from "./pkg/lockstep_playground.js";

let flag;
let bytes;

// Asks the page's z3, and waits for its answer.
function call(op, context, commands) {
  postMessage({ kind: "z3", op, context, commands });
  Atomics.wait(flag, 0, 0);
  const length = Atomics.load(flag, 1);
  const answer = new TextDecoder().decode(bytes.slice(0, length));
  Atomics.store(flag, 0, 0);
  return answer;
}

globalThis.lockstepZ3 = {
  start: () => Number(call("start")),
  evaluate: (context, commands) => call("evaluate", context, commands),
  end: (context) => {
    call("end", context);
  },
};

const ready = init();

onmessage = async ({ data }) => {
  await ready;
  let result = null;
  if (data.kind === "init") {
    flag = new Int32Array(data.shared, 0, 2);
    bytes = new Uint8Array(data.shared, 8);
  } else if (data.kind === "examples") {
    result = lockstep.examples();
  } else if (data.kind === "check") {
    result = lockstep.check(data.path, data.text);
  } else if (data.kind === "verify") {
    result = lockstep.verify(data.path, data.text);
  }
  postMessage({ kind: "result", request: data.request, result });
};
