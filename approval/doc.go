// Package approval puts a human in the loop: approvers, a manager for
// asynchronous answers with timeouts, policies, and two-phase file edits.
//
// # Requests, answers and the Gate
//
// Every action an agent wants to take that the safety package did not simply
// allow becomes a Request: its Kind (a command, a file edit or something
// else), the exact bytes of the command or path, the tool name, the safety
// decision with its severity and reasons, and for edits a diff preview.
// An Approver answers it with a Response: allow once, allow for the session
// (scoped to Request.Rule, the exact rule shown to the user), or deny with an
// optional message for the model. Func adapts a function to Approver.
//
// A Gate puts the pieces together and is what an executor calls:
//
//	gate := &approval.Gate{Policy: approval.Interactive(), Approver: ui}
//	ok, err := gate.Authorize(ctx, req)
//	if err != nil {
//		var d *approval.DeniedError
//		errors.As(err, &d)
//		return d.ForModel() // tool result for the model
//	}
//	run(ok.Command()) // the approved bytes, not req.Command
//
// Authorize applies, in order: the safety decision (Deny always wins;
// critical actions are always asked), the session grants, the Policy, and
// finally the Approver. It logs every outcome through log/slog with who
// decided and why, and returns an Approved holding its own copy of the
// request: what was approved is what runs, even if the caller's Request or
// the Approver's copy is changed afterwards.
//
// # Policies
//
// Interactive asks about every confirm-level request. AutoApprove is an
// editor's "auto-approve" switch: everything but critical runs without
// asking. Headless is for gateways with no person: confirm-level actions are
// denied, except applying a staged change whose token the Stager validates,
// because that token is itself a reviewed approval. ByKind routes commands
// and file edits to different policies (a host may offer one switch for
// each); PolicyFunc adapts your own. Grants hold
// "allow for session" rules; they match byte for byte (a grant for `npm test`
// does not cover `npm test; rm -rf x`), never cover critical actions, and
// layer through Grants.Parent (project-wide under per-session).
//
// # Asynchronous UIs
//
// A Manager is an Approver for hosts whose UI answers later, from another
// goroutine or process. Wait (Approve) registers the request, calls Notify
// with an EventRequested, and blocks until Resolve(id, resp), the timeout
// (DefaultTimeout, five minutes: long enough to read a diff, short enough
// that an abandoned run does not hang) or ctx ends it. A timeout or
// cancellation is a deny with that reason. The first answer wins; later ones
// get ErrStale; an id never seen gets ErrUnknownRequest. Pending lists what
// is waiting, for a UI that attaches late. A Manager starts no goroutines.
//
// For command-line hosts, Terminal is an Approver that prints FormatPrompt
// and reads y / a / n (or "n: message") from a reader, returning on ctx
// cancellation and never letting type-ahead answer a question it predates.
//
// # Showing requests safely
//
// Request.Display returns every field escaped: control characters (ANSI
// escapes, CR), bidirectional overrides, zero-width and other invisible
// characters, non-ASCII spaces and invalid UTF-8 are shown as \x1b, \r,
// \u202e and so on, so a command cannot look like something else in an
// approval dialog. Display.Escaped says that something was escaped.
//
// # Two-phase file mutation
//
// A Stager implements a preview → apply flow over Files (which
// *safety.Workspace satisfies). PreviewWrite and PreviewEdit compute the new
// content, a unified diff and +N −N stats without touching the file, and
// return a Preview with a token. Apply(token) writes exactly the previewed
// bytes through Files.WriteFile (atomic). A token is single-use, expires
// (StagerConfig.TTL, with an injectable clock) and is bound to the resolved
// path, the file's identity (device and inode), its mode and the SHA-256 of
// its content at preview time, or to its absence: if any of these changed,
// Apply refuses with a *ChangedError (errors.Is ErrFileChanged) and writes
// nothing. Apply alone only writes paths the workspace allows outright; a
// sensitive path (Preview.Decision Confirm) needs ApplyApproved with an
// Approved from a Gate, and ApplyApproved refuses an approval that was judged
// with a laxer decision than the workspace's or names another path.
//
// The tools a model sees map onto it directly: preview_write_file →
// PreviewWrite, preview_edit_file → PreviewEdit, each returning
// Preview.Result(false); apply_file_change → Lookup(token), then
// Gate.Authorize(ctx, preview.Request("apply_file_change")), then
// ApplyApproved. In staging mode, where legacy write_file
// and edit_file stage instead of writing, the tools call PreviewWrite and
// PreviewEdit and return Preview.Result(true) (legacyTranslated: true):
// nothing is written until the model applies the token.
package approval
