// An editor, played by the official ACP TypeScript library: it launches
// the agent, drives one phase of the scenario the Go test names, and
// prints what it saw as one JSON object. Every message in both directions
// is appended to $TRANSCRIPT ("> " client to agent, "< " agent to client)
// for the Go test to validate against the protocol's JSON schema.
//
//   node client.mjs turn|restart
//
// Environment: SDK (the package's directory), AGENT (the binary),
// AGENT_ARGS (JSON array), WS (the session's directory), TRANSCRIPT,
// SLEEPER_PID (where the long command writes its pid), SESSION (restart).
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const env = process.env;
const acp = await import(pathToFileURL(join(env.SDK, "dist/v1/stable/acp.js")).href);
const { client, methods, ndJsonStream } = acp;

const log = (dir, m) => appendFileSync(env.TRANSCRIPT, dir + " " + JSON.stringify(m) + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const agent = spawn(env.AGENT, JSON.parse(env.AGENT_ARGS), { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((r) => agent.on("exit", (code, signal) => r({ code, signal })));
const raw = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
const toAgent = new TransformStream({ transform(m, c) { log(">", m); c.enqueue(m); } });
toAgent.readable.pipeTo(raw.writable).catch(() => {});
const stream = {
  writable: toAgent.writable,
  readable: raw.readable.pipeThrough(new TransformStream({ transform(m, c) { log("<", m); c.enqueue(m); } })),
};

const updates = [];
const permissions = [];
// The editor's buffers: BUFFER_PATH is open with unsaved text. A write
// through the editor saves the buffer to the disk, as an editor does.
const buffers = new Map();
if (env.BUFFER_PATH) buffers.set(env.BUFFER_PATH, env.BUFFER_TEXT);
const reads = [];
const writes = [];
const app = client({ name: "tether-acp-test" })
  .onNotification(methods.client.session.update, ({ params }) => { updates.push(params.update); })
  .onRequest(methods.client.session.requestPermission, async ({ params: p }) => {
    permissions.push(p);
    // The edit of .env.local is rejected; everything else allowed once.
    const paths = (p.toolCall.locations ?? []).map((l) => l.path);
    const reject = paths.some((x) => x.endsWith(".env.local"));
    return { outcome: { outcome: "selected", optionId: reject ? "reject_once" : "allow_once" } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    reads.push(params.path);
    return { content: buffers.has(params.path) ? buffers.get(params.path) : readFileSync(params.path, "utf8") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    writes.push({ path: params.path, content: params.content });
    writeFileSync(params.path, params.content);
    buffers.delete(params.path);
    return {};
  });

async function until(what, ok, ms = 60000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (ok()) return;
    await sleep(50);
  }
  throw new Error("timed out waiting for " + what);
}

const out = { updates, permissions, reads, writes };
await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    clientInfo: { name: "tether-acp-test", version: "1" },
  });
  out.init = init;
  if (process.argv[2] === "turn") {
    const s = await ctx.request(methods.agent.session.new, { cwd: env.WS, mcpServers: [] });
    out.session = s;
    out.turn = await ctx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId, prompt: [{ type: "text", text: "Plan, read a.txt, configure .env, then run the tests." }],
    });
    // A long command, cancelled once it runs: the response must say
    // cancelled, and the command's process must be gone.
    const before = updates.length;
    const slow = ctx.request(methods.agent.session.prompt, {
      sessionId: s.sessionId, prompt: [{ type: "text", text: "Run the slow job." }],
    });
    await until("the long command to start", () => existsSync(env.SLEEPER_PID) && readFileSync(env.SLEEPER_PID, "utf8").trim() !== "");
    out.sleeperPid = Number(readFileSync(env.SLEEPER_PID, "utf8").trim());
    out.sleeperAliveBeforeCancel = existsSync("/proc/" + out.sleeperPid);
    await ctx.notify(methods.agent.session.cancel, { sessionId: s.sessionId });
    out.cancelled = await slow;
    out.slowUpdates = updates.length - before;
  } else {
    out.list = await ctx.request(methods.agent.session.list, { cwd: env.WS });
    const before = updates.length;
    out.load = await ctx.request(methods.agent.session.load, { sessionId: env.SESSION, cwd: env.WS, mcpServers: [] });
    out.replayed = updates.slice(before).map((u) => u.sessionUpdate);
    out.undo = await ctx.request(methods.agent.session.prompt, {
      sessionId: env.SESSION, prompt: [{ type: "text", text: "/undo" }],
    });
  }
});
agent.stdin.end();
out.exit = await exited;
process.stdout.write(JSON.stringify(out) + "\n");
