// The page: sessions, the event stream, the prompt form and the stop
// button. Rendering lives in transcript.js and changes.js.
import { get, post, pageSecret } from "./api.js";
import { Transcript } from "./transcript.js";
import { Changes } from "./changes.js";
import { Attachments } from "./attach.js";

const $ = (id) => document.getElementById(id);

const state = {
  session: "",
  source: null, // the EventSource of the current session
  running: false,
  replayed: false, // the past events of the session are shown
  usage: { in: 0, out: 0 },
};

const transcript = new Transcript($("transcript"), answer);
const changes = new Changes($("checkpoints"), showError);
const attachments = new Attachments($("attachments"), (m) => showError(`Attach: ${m}`));

function showError(message) {
  transcript.apply({ type: "host_error", error: message });
}

async function answer(id, choice, message) {
  const card = document.querySelector(`.card[data-approval="${CSS.escape(id)}"]`);
  card?.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  try {
    const res = await post("/api/approve", { id, choice, message });
    if (res.status === 409) throw new Error(res.body.error);
  } catch (e) {
    card?.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    showError(`Approval: ${e.message}`);
  }
}

function setRunning(running) {
  state.running = running;
  $("stop").hidden = !running;
  $("send").disabled = running;
  $("status").textContent = running ? "Working…" : "";
  document.body.dataset.running = running ? "yes" : "no";
}

function showUsage() {
  $("usage").textContent = `Tokens: ${state.usage.in} in · ${state.usage.out} out`;
}

// onEvent applies one event of the current session.
function onEvent(ev) {
  transcript.apply(ev);
  switch (ev.type) {
    case "run_started":
      setRunning(true);
      break;
    case "files_changed":
      if (state.replayed) changes.refresh(); // open() shows the replayed state once
      break;
    case "run_finished":
      state.usage.in += ev.usage?.prompt_tokens || 0;
      state.usage.out += ev.usage?.completion_tokens || 0;
      showUsage();
      setRunning(false);
      if (!state.replayed) break;
      changes.refresh();
      listSessions().catch((e) => showError(`Sessions: ${e.message}`)); // turn counts
      break;
  }
}

// open shows a session: its past events are replayed by the stream, then
// live ones follow. The browser resumes a dropped stream by itself with
// Last-Event-ID.
function open(id) {
  state.source?.close();
  state.session = id;
  document.body.dataset.session = id;
  state.usage = { in: 0, out: 0 };
  showUsage();
  setRunning(false);
  transcript.clear();
  changes.refresh(id);
  state.replayed = false;
  delete document.body.dataset.replayed;
  // EventSource sends no custom headers: the secret goes in the query.
  const src = new EventSource(`/api/events?session=${encodeURIComponent(id)}&secret=${pageSecret()}`);
  src.onmessage = (m) => onEvent(JSON.parse(m.data));
  // Sent once the past events are in (again after a reconnect).
  src.addEventListener("replayed", (m) => {
    const { running } = JSON.parse(m.data);
    state.replayed = true;
    document.body.dataset.replayed = "yes";
    setRunning(running);
    if (!running) transcript.expireCards();
  });
  state.source = src;
  $("sessions").value = id;
}

// listSessions fills the session picker and returns the list, creating
// a first session in a workspace that has none.
async function listSessions() {
  const body = await get("/api/sessions");
  $("workspace").textContent = body.workspace;
  let list = body.sessions;
  if (!list.length) {
    await post("/api/sessions", { title: "Session 1" });
    list = (await get("/api/sessions")).sessions;
  }
  $("sessions").replaceChildren(...list.map((s) => {
    const o = document.createElement("option");
    o.value = s.id;
    o.textContent = `${s.title} · ${s.runs} turn${s.runs === 1 ? "" : "s"} · ${new Date(s.updated).toLocaleString()}`;
    return o;
  }));
  $("sessions").value = state.session;
  return list;
}

async function loadSessions(select) {
  const list = await listSessions();
  open(select || list[0].id);
}

async function send(e) {
  e.preventDefault();
  const text = $("prompt").value;
  if ((!text.trim() && !attachments.files.length) || state.running) return;
  // The run_started event marks the turn running; until the server has
  // answered, only the button is held, so a double click sends once.
  $("send").disabled = true;
  try {
    const req = { session: state.session, text, mode: $("mode").value };
    if (attachments.files.length) req.attachments = attachments.payload();
    const res = await post("/api/prompt", req);
    if (res.status === 409) throw new Error(res.body.error);
    $("prompt").value = "";
    attachments.clear();
  } catch (err) {
    showError(`Prompt: ${err.message}`);
  } finally {
    $("send").disabled = state.running;
  }
}

$("prompt-form").addEventListener("submit", send);
$("prompt").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send(e);
});
$("attach").addEventListener("change", async (e) => {
  await attachments.add([...e.target.files]);
  e.target.value = ""; // the same file can be picked again
});
const form = $("prompt-form");
form.addEventListener("dragover", (e) => {
  if (!e.dataTransfer?.types.includes("Files")) return;
  e.preventDefault();
  form.classList.add("dropping");
});
form.addEventListener("dragleave", () => form.classList.remove("dropping"));
form.addEventListener("drop", (e) => {
  form.classList.remove("dropping");
  if (!e.dataTransfer?.files.length) return;
  e.preventDefault();
  attachments.add([...e.dataTransfer.files]);
});
$("prompt").addEventListener("paste", (e) => {
  const files = [...(e.clipboardData?.files || [])];
  if (!files.length) return;
  e.preventDefault();
  attachments.add(files);
});
$("stop").addEventListener("click", async () => {
  try { await post("/api/cancel", { session: state.session }); } catch (e) { showError(`Stop: ${e.message}`); }
});
$("sessions").addEventListener("change", (e) => open(e.target.value));
$("new-session").addEventListener("click", async () => {
  try {
    const res = await post("/api/sessions", { title: `Session ${$("sessions").options.length + 1}` });
    await loadSessions(res.body.id);
  } catch (e) { showError(`New session: ${e.message}`); }
});

loadSessions().catch((e) => showError(`Sessions: ${e.message}`));
