// The changes view: each checkpoint of the session with its files and
// hunks, and the decisions a person can take on them.
import { get, post } from "./api.js";
import { highlightDiff } from "./highlight.js";
import { el, button } from "./dom.js";


export class Changes {
  // onError(message) shows a failure in the transcript.
  constructor(root, onError) {
    this.root = root;
    this.onError = onError;
    this.session = "";
    this.seq = 0; // drops responses to requests that a newer refresh overtook
  }

  async refresh(session = this.session) {
    this.session = session;
    const seq = ++this.seq;
    try {
      const body = await get(`/api/changes?session=${encodeURIComponent(session)}`);
      if (seq === this.seq) this.render(body.checkpoints || []);
    } catch (e) {
      this.onError(`Changes: ${e.message}`);
    }
  }

  // decide posts one decision; a conflict (someone else changed the file
  // since the agent wrote it) is shown and, if confirmed, forced.
  async decide(req) {
    try {
      let res = await post("/api/checkpoint", { session: this.session, ...req });
      if (res.status === 409 && confirm(`${res.body.conflict || res.body.error}\n\nDiscard those other changes too?`)) {
        res = await post("/api/checkpoint", { session: this.session, ...req, force: true });
      }
      if (res.status === 409) this.onError(res.body.conflict || res.body.error);
    } catch (e) {
      this.onError(`${req.action}: ${e.message}`);
    }
    await this.refresh();
  }

  render(checkpoints) {
    if (!checkpoints.length) {
      this.root.replaceChildren(el("p", "muted", "No changes yet."));
      return;
    }
    this.root.replaceChildren(...checkpoints.map((cp) => this.checkpoint(cp)));
  }

  checkpoint(cp) {
    const box = el("div", "checkpoint");
    box.dataset.checkpoint = cp.id;
    box.dataset.state = cp.state;
    const head = el("div", "head");
    const label = el("span", "label", cp.label || cp.id);
    label.title = `${cp.id} · ${new Date(cp.created).toLocaleString()}`;
    head.append(label);
    // An open checkpoint may already be decided file by file or hunk by
    // hunk: its review state says so, and only undecided changes get
    // buttons.
    if (cp.review !== "open") head.append(el("span", "muted state", cp.review || cp.state));
    if (cp.state === "open" && cp.files.length) {
      head.append(el("span", "stat-add", `+${cp.added}`), el("span", "stat-del", `−${cp.removed}`),
        button("keep primary", "Keep all", () => this.decide({ checkpoint: cp.id, action: "keep" })),
        button("undo danger", "Undo", () => this.decide({ checkpoint: cp.id, action: "undo" })));
    }
    box.append(head);
    for (const f of cp.files) box.append(this.file(cp, f));
    return box;
  }

  file(cp, f) {
    const box = el("div", "file");
    box.dataset.path = f.path;
    const head = el("div", "head");
    head.append(el("span", "path", f.old_path ? `${f.old_path} → ${f.path}` : f.path), el("span", "muted", f.kind),
      el("span", "stat-add", `+${f.added}`), el("span", "stat-del", `−${f.removed}`),
      button("keep-file", "Keep", () => this.decide({ checkpoint: cp.id, action: "keep_file", path: f.path })),
      button("undo-file danger", "Undo", () => this.decide({ checkpoint: cp.id, action: "undo_file", path: f.path })));
    box.append(head);
    if (f.tainted) box.append(el("div", "notice", "Also changed by someone else since the agent wrote it."));
    if (f.whole_only) {
      box.append(el("div", "muted", f.whole_only));
      const pre = el("pre", "diff");
      pre.append(highlightDiff(f.unified));
      box.append(pre);
    }
    for (const h of f.hunks || []) {
      const hunk = el("div", "hunk");
      hunk.dataset.hunk = h.id;
      const pre = el("pre", "diff");
      pre.append(highlightDiff(h.unified));
      const buttons = el("div", "buttons");
      buttons.append(
        button("accept", "Accept", () => this.decide({ checkpoint: cp.id, action: "accept_hunk", path: f.path, hunk: h.id })),
        button("reject danger", "Reject", () => this.decide({ checkpoint: cp.id, action: "reject_hunk", path: f.path, hunk: h.id })));
      hunk.append(pre, buttons);
      box.append(hunk);
    }
    return box;
  }
}
