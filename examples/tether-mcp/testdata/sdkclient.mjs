// A third-party client for the serve subcommand: the official TypeScript
// SDK, driven the way editors drive it. The Go test passes the global
// node_modules directory, a file in the workspace and the server (a
// command over stdio, or a URL over streamable HTTP or legacy SSE); the
// script prints one JSON object with what it observed, and the Go test
// judges it, so that a failure names the check rather than a stack trace.
//
// usage: node sdkclient.mjs NODE_MODULES FILE stdio COMMAND ARGS...
//        node sdkclient.mjs NODE_MODULES FILE http|sse URL
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [nodeModules, fileInWorkspace, mode, target, ...args] = process.argv.slice(2);
if (!["stdio", "http", "sse"].includes(mode) || !target) {
  console.error("usage: node sdkclient.mjs NODE_MODULES FILE stdio COMMAND ARGS... | http URL | sse URL");
  process.exit(2);
}
const sdk = (p) => import(pathToFileURL(path.join(nodeModules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { SSEClientTransport } = await sdk("client/sse.js");

const transport = () => {
  switch (mode) {
    case "http":
      return new StreamableHTTPClientTransport(new URL(target));
    case "sse":
      return new SSEClientTransport(new URL(target));
  }
  return new StdioClientTransport({ command: target, args, stderr: "ignore" });
};
const report = {};

// Raw JSON-RPC over the SDK's transport: an older client offers its own
// protocol version, and a client from the future offers one the server
// cannot know.
async function handshake(version) {
  const t = transport();
  const replies = new Map();
  const waiters = new Map();
  t.onmessage = (m) => {
    if (m.id === undefined) return;
    replies.set(m.id, m);
    waiters.get(m.id)?.(m);
  };
  const call = (id, method, params) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no reply in 30s`)), 30000);
      waiters.set(id, (m) => { clearTimeout(timer); resolve(m); });
      t.send({ jsonrpc: "2.0", id, method, params }).catch(reject);
    });
  await t.start();
  try {
    const init = await call(1, "initialize", {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "sdkclient", version: "0.0.1" },
    });
    await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const tools = await call(2, "tools/list", {});
    const unknown = await call(3, "tools/call", { name: "no_such_tool", arguments: {} });
    return {
      negotiated: init.result?.protocolVersion,
      initError: init.error,
      toolCount: tools.result?.tools?.length ?? 0,
      unknownTool: unknown,
    };
  } finally {
    await t.close();
  }
}

// Raw handshakes over stdio only: over HTTP the SDK's transport sets
// headers from the version it negotiated itself.
report.handshakes = {};
const offered = mode === "stdio" ? ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2099-01-01"] : [];
for (const v of offered) {
  try {
    report.handshakes[v] = await handshake(v);
  } catch (e) {
    report.handshakes[v] = { failure: String(e) };
  }
}

// The SDK's own client: it negotiates its newest version and validates
// structured content against each tool's output schema.
const client = new Client({ name: "sdkclient", version: "0.0.1" });
const step = async (name, f) => {
  try {
    report[name] = await f();
  } catch (e) {
    report[name] = { thrown: String(e?.message ?? e), code: e?.code };
  }
};
await client.connect(transport());
report.version = client.getServerVersion();
report.capabilities = client.getServerCapabilities();
await step("tools", async () => (await client.listTools()).tools.map((t) => ({ name: t.name, hasOutputSchema: !!t.outputSchema, annotations: t.annotations })));
await step("read", () => client.callTool({ name: "read_file", arguments: { path: fileInWorkspace } }));
await step("badArgs", () => client.callTool({ name: "read_file", arguments: { bogus: 1 } }));
await step("wrongType", () => client.callTool({ name: "read_file", arguments: { path: 7 } }));
await step("unknown", () => client.callTool({ name: "no_such_tool", arguments: {} }));
await step("resources", () => client.listResources());
await step("prompts", () => client.listPrompts());
await step("ping", () => client.ping());
// Progress: when the workspace has lines.sh (and the server allows it),
// run it asking for progress; the command's output lines arrive as
// progress notifications. The script waits for "ack", written once the
// second line has arrived, before it ends: this client handles a progress
// notification a microtask later than a response, so one that arrives in
// the same read as the result is dropped, whatever the server's order.
if (fs.existsSync("lines.sh")) {
  await step("progress", async () => {
    const got = [];
    const res = await client.callTool({ name: "run_terminal_command", arguments: { command: "sh lines.sh" } }, undefined, {
      onprogress: (p) => {
        got.push(p);
        if (String(p.message).includes("second line")) fs.writeFileSync("ack", "");
      },
      timeout: 120000,
    });
    return { isError: res.isError, notifications: got };
  });
}
// Cancellation: when the workspace has slow.sh (and the server allows
// running it), start it, and cancel the call once the script has written
// its pid, so the Go test can check that the process is gone.
if (fs.existsSync("slow.sh")) {
  await step("cancelled", async () => {
    const ac = new AbortController();
    const call = client.callTool({ name: "run_terminal_command", arguments: { command: "sh slow.sh" } }, undefined, { signal: ac.signal, timeout: 120000 });
    const started = setInterval(() => fs.existsSync("pid.txt") && fs.readFileSync("pid.txt", "utf8").trim() && ac.abort("cancelled by the test"), 20);
    try {
      return await call;
    } finally {
      clearInterval(started);
    }
  });
}
await client.close();
console.log(JSON.stringify(report));
