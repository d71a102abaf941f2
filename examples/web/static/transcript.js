// The conversation: the agent's events turned into DOM, in order. Every
// string from the model or a tool is set as textContent or rendered by
// the Markdown renderer, which does the same.
import { renderMarkdown } from "./markdown.js";
import { highlightDiff } from "./highlight.js";
import { el, button } from "./dom.js";


export class Transcript {
  // onAnswer(id, choice, message) posts an approval answer.
  constructor(root, onAnswer) {
    this.root = root;
    this.onAnswer = onAnswer;
    this.clear();
  }

  clear() {
    this.root.replaceChildren();
    this.turn = null;
    this.text = null; // {el, buf}: the assistant text block being streamed
    this.thinking = null;
    this.groups = new Map();
    this.actions = new Map();
    this.cards = new Map();
  }

  ensureTurn() {
    if (!this.turn) {
      this.turn = el("div", "turn assistant");
      this.root.append(this.turn);
    }
    return this.turn;
  }

  add(node) {
    this.ensureTurn().append(node);
    this.text = null; // text after this node starts a new block, keeping the order
    this.root.scrollTop = this.root.scrollHeight;
  }

  // apply renders one event; it returns nothing and ignores unknown types.
  apply(ev) {
    const h = this["on_" + ev.type];
    if (h) h.call(this, ev);
  }

  on_run_started(ev) {
    this.turn = el("div", "turn assistant");
    const u = el("div", "user", ev.prompt);
    if (ev.mode && ev.mode !== "agent") u.prepend(el("span", "mode-tag muted", ev.mode));
    this.turn.append(u);
    this.root.append(this.turn);
    this.text = null;
    this.streamed = false;
  }

  on_thinking_delta(ev) {
    if (!this.thinking) {
      const d = el("details", "thinking");
      d.open = true;
      d.append(el("summary", "", "Thinking…"), el("div"));
      this.add(d);
      this.thinking = d;
    }
    this.thinking.lastChild.append(ev.text);
  }

  on_thinking_collapsed(ev) {
    if (!this.thinking) return;
    this.thinking.open = false;
    this.thinking.firstChild.textContent = `Thought for ${Math.max(1, Math.round(ev.duration_ms / 1000))}s`;
    this.thinking = null;
  }

  on_text_delta(ev) {
    if (!this.text) {
      const block = el("div", "text");
      this.add(block);
      this.text = { el: block, buf: "" };
    }
    this.text.buf += ev.text;
    this.streamed = true;
    this.scheduleRender();
  }

  // scheduleRender re-renders a streaming block at most every 30 ms (a
  // timer, not requestAnimationFrame, which a hidden tab never fires).
  // The block is captured: later events may already have started another.
  scheduleRender() {
    const block = this.text;
    if (block.pending) return;
    block.pending = true;
    setTimeout(() => {
      block.pending = false;
      block.el.replaceChildren(renderMarkdown(block.buf));
      this.root.scrollTop = this.root.scrollHeight;
    }, 30);
  }

  on_file_writing(ev) { this.add(el("div", "muted", `Writing ${ev.path}…`)); }

  on_progress_group_started(ev) {
    const g = el("div", "group");
    g.dataset.group = ev.group_id;
    g.append(el("div", "title status status-running", ev.title));
    this.groups.set(ev.group_id, g);
    this.add(g);
  }

  on_progress_group_finished(ev) {
    const g = this.groups.get(ev.group_id);
    if (g) g.firstChild.className = `title status status-${ev.status}`;
  }

  on_tool_action(ev) {
    let row = this.actions.get(ev.call_id);
    if (!row) {
      row = el("div", "action");
      row.dataset.call = ev.call_id;
      this.actions.set(ev.call_id, row);
      const g = this.groups.get(ev.group_id);
      if (g) g.append(row); else this.add(row);
    }
    row.dataset.status = ev.status;
    row.dataset.tool = ev.tool;
    const line = el("div", `status status-${ev.status}`);
    line.append(el("span", "title", ev.title));
    if (ev.detail) line.append(el("span", "detail", ev.detail));
    if (ev.auto_approved) line.append(el("span", "detail", "(auto-approved)"));
    const parts = [line];
    const final = ev.status !== "running" && ev.status !== "pending";
    if (final) row.live = null; // the final output replaces the live one
    if (row.live) parts.push(row.live);
    if (ev.output) {
      const d = el("details", "output");
      d.append(el("summary", "muted", "Output"), el("pre", "", ev.output));
      parts.push(d);
    }
    row.replaceChildren(...parts);
  }

  // on_tool_progress shows a running call's new output lines under its
  // action, or how far it has come beside it. The events are stored with the session, so a resumed
  // session replays them until the final action replaces them.
  on_tool_progress(ev) {
    const row = this.actions.get(ev.call_id);
    if (!row || row.dataset.status !== "running") return;
    if (!ev.output && !ev.dropped) {
      // A report without output (a chunk of a file, a page of a PDF) says
      // how far the call has come; the latest one replaces the last.
      const text = ev.title || (ev.total ? `${ev.done || 0} of ${ev.total}` : "");
      if (!text) return;
      let step = row.querySelector(".step");
      if (!step) {
        step = el("span", "detail step");
        row.firstChild.append(step);
      }
      step.textContent = text;
      return;
    }
    if (!row.live) {
      row.live = el("pre", "live");
      row.append(row.live);
    }
    if (ev.dropped) row.live.append(`… ${ev.dropped} lines not shown\n`);
    if (ev.output) row.live.append(ev.output.replace(/\n$/, "") + "\n");
    row.live.scrollTop = row.live.scrollHeight;
  }

  on_approval_requested(ev) {
    const d = ev.display;
    const card = el("div", `card severity-${d.severity}`);
    card.dataset.approval = ev.id;
    const head = el("div", "", d.kind === "command" ? "Run this command?" : d.kind === "file_edit" ? "Change this file?" : "Allow this action?");
    head.append(el("span", "badge", d.severity));
    if (d.tool_name) head.append(el("span", "muted", "  " + d.tool_name));
    card.append(head, el("code", "subject", d.subject));
    if (d.escaped) card.append(el("div", "escaped", "It contains hidden or control characters, shown escaped."));
    if (d.reasons && d.reasons.length) {
      const ul = el("ul", "reasons");
      for (const r of d.reasons) ul.append(el("li", "", r));
      card.append(ul);
    }
    if (d.diff) {
      const pre = el("pre", "diff");
      pre.append(highlightDiff(d.diff));
      card.append(pre);
    }
    const choices = el("div", "choices");
    choices.append(button("allow-once primary", "Allow once", () => this.onAnswer(ev.id, "allow_once", "")));
    if (d.severity !== "critical") { // a critical action is never granted for the session
      const session = button("allow-session", "Allow for session", () => this.onAnswer(ev.id, "allow_session", ""));
      session.title = d.rule;
      choices.append(session);
    }
    if (d.kind === "command" && d.severity !== "critical" && !d.escaped) {
      // The exact command becomes an allow rule of the project.
      const always = button("allow-always", "Always allow", () => this.onAnswer(ev.id, "allow_always", ""));
      always.title = `Saves "${d.subject}" to .tether/settings.json as an allow rule (see /permissions in the coder)`;
      choices.append(always);
    }
    const msg = el("input", "deny-message");
    msg.placeholder = "Tell the agent why (optional)";
    msg.setAttribute("aria-label", "Reason for refusing");
    choices.append(msg, button("deny danger", "Refuse", () => this.onAnswer(ev.id, "deny", msg.value)));
    card.append(choices);
    this.cards.set(ev.id, card);
    this.add(card);
  }

  on_approval_resolved(ev) {
    const card = this.cards.get(ev.id);
    if (!card) return;
    card.querySelector(".choices").replaceChildren(
      el("span", "outcome", ev.choice === "deny" ? "Refused" : ev.choice === "allow_session" ? "Allowed for the session" : "Allowed once"),
      el("span", "muted", ev.reason ? ` — ${ev.reason}` : ""));
    card.dataset.resolved = ev.choice;
  }

  // expireCards closes the cards of a turn that ended without answering
  // them (the server restarted mid-turn): nothing waits for them now.
  expireCards() {
    for (const card of this.cards.values()) {
      if (card.dataset.resolved) continue;
      card.dataset.resolved = "expired";
      card.querySelector(".choices").replaceChildren(el("span", "outcome", "No longer waiting: the run ended"));
    }
  }

  on_final_message(ev) {
    // The answer was usually streamed already; show it when it was not
    // (e.g. a resumed run whose deltas were compacted away).
    if (!this.streamed && ev.text) {
      const block = el("div", "text");
      block.append(renderMarkdown(ev.text));
      this.add(block);
    }
  }

  on_notice(ev) { this.add(el("div", "notice", ev.text)); }

  on_host_error(ev) { this.add(el("div", "error", ev.error)); }

  on_run_finished(ev) {
    if (ev.error) this.add(el("div", "error", `Stopped: ${ev.error}`));
    else if (ev.stop_reason && ev.stop_reason !== "completed") this.add(el("div", "notice", `Run ended: ${ev.stop_reason}`));
    this.turn = null;
    this.text = null;
  }
}
