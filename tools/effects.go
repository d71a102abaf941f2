package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tetherdev/tether/safety"
)

// Annotations are hints about what a tool's calls do, modelled on the MCP
// ToolAnnotations. They describe every call of the tool; [Effects] says
// what one call will do.
type Annotations struct {
	// ReadOnly: the call changes nothing (no file, no process, no remote
	// state).
	ReadOnly bool `json:"read_only,omitempty"`
	// Destructive: the call may delete or overwrite data it did not
	// create. Meaningful only when not ReadOnly.
	Destructive bool `json:"destructive,omitempty"`
	// Idempotent: repeating the call with the same arguments has no
	// further effect.
	Idempotent bool `json:"idempotent,omitempty"`
	// OpenWorld: the call reaches outside the workspace (the network, a
	// remote service, another machine).
	OpenWorld bool `json:"open_world,omitempty"`
}

// Effects is what one prepared call will do, declared by its tool before it
// runs, so that what is judged, shown for approval and snapshotted is what
// the call really touches. Paths are as the tool will resolve them: relative
// to Dir (or to the workspace root when Dir is empty), or absolute.
type Effects struct {
	Annotations
	// Declared is false for a tool that declares nothing: the agent cannot
	// judge such a call and treats it as opaque and confirm-level.
	Declared bool `json:"declared"`
	// Dir is the directory the call runs in and relative paths are
	// resolved against (a shell's current directory); empty means the
	// workspace root.
	Dir string `json:"dir,omitempty"`
	// Reads are the files and directories the call reads.
	Reads []string `json:"reads,omitempty"`
	// Writes are the paths the call creates, changes, moves or removes,
	// the source and destination of a rename included.
	Writes []string `json:"writes,omitempty"`
	// Command is the shell command line the call runs, exactly.
	Command string `json:"command,omitempty"`
	// URL is the address an open-world call reaches, exactly as it will
	// be requested, when the call names one (a web page to fetch). A
	// person approving the call is shown it.
	URL string `json:"url,omitempty"`
	// Changes are the exact new contents of the files the call writes,
	// when the tool can compute them without writing. A person approving
	// the call is shown these bytes, and they are what gets written.
	Changes []FileChange `json:"changes,omitempty"`
	// CreatesOnly marks a call that makes paths without content (a
	// directory): there is nothing to snapshot or preview.
	CreatesOnly bool `json:"creates_only,omitempty"`
	// Stage marks a preview: the call stages its Changes under a token
	// for review and writes nothing (preview_write_file). An agent in
	// staging mode stages every content change; Stage says the call asked
	// for it, so the result does not call it a translated write.
	Stage bool `json:"stage,omitempty"`
	// ApplyToken marks a call that applies the change staged under this
	// token (apply_file_change); Writes names the token's file. The
	// change is judged and approved like any file edit, with the staged
	// diff.
	ApplyToken string `json:"apply_token,omitempty"`
	// Decision, when set, is the tool's own verdict on the call (an MCP
	// server's allow/deny rules); the agent's gate still has the last
	// word. The zero value means the tool has none.
	Decision safety.Decision `json:"decision,omitzero"`
	// Reasons explain Decision.
	Reasons []string `json:"reasons,omitempty"`
}

// FileChange is the exact content a call will leave in one file.
type FileChange struct {
	// Path is the file, as in Effects.Writes.
	Path string `json:"path"`
	// Before is the content the change was computed from, and Existed
	// whether the file existed then. The change must not be applied to
	// any other content.
	Before  []byte `json:"-"`
	Existed bool   `json:"existed"`
	// After is the complete new content; ignored when Remove is set.
	After []byte `json:"-"`
	// Remove marks a file the call deletes (the source of a rename).
	Remove bool `json:"remove,omitempty"`
}

// Declarer is implemented by tools that say what a call will do before it
// runs. call is the call as [Registry.Prepare] returned it. Declaring must
// not change anything. Built-in tools, MCP tools and a host's own tools all
// implement it; a tool that does not is opaque.
type Declarer interface {
	Effects(ctx context.Context, call Call) (Effects, error)
}

// Effects returns what a prepared call (see Prepare) will do. A tool that
// declares nothing gets Effects with Declared false and the read-only and
// open-world flags of its Spec (a read-only one is taken to read its
// "path" argument). A Spec's flags describe every call, so a declaring
// tool whose Spec is open-world declares open-world calls whatever it
// says; an
// error from the tool's declaration means the call cannot
// run as given (a missing file to edit, text that does not match) and says
// so in words for the model.
func (r *Registry) Effects(ctx context.Context, call Call) (Effects, error) {
	r.mu.RLock()
	e := r.entries[call.Name]
	r.mu.RUnlock()
	if e == nil {
		return Effects{}, &UnknownToolError{Name: call.Name, Available: r.Names()}
	}
	t := e.tool
	if rn, ok := t.(renamed); ok {
		t = rn.Tool
	}
	d, ok := t.(Declarer)
	if !ok {
		eff := Effects{Annotations: Annotations{ReadOnly: e.spec.ReadOnly, OpenWorld: e.spec.OpenWorld}}
		if e.spec.ReadOnly {
			// A read-only tool that declares nothing is taken to read the
			// file its "path" parameter names (every path alias has been
			// normalised to it), so that reading .env through it is judged
			// like reading it with read_file.
			var a struct {
				Path string `json:"path"`
			}
			if json.Unmarshal(call.Arguments, &a) == nil && a.Path != "" {
				eff.Reads = []string{a.Path}
			}
		}
		return eff, nil
	}
	eff, err := d.Effects(ctx, call)
	if err != nil {
		return Effects{}, err
	}
	eff.Declared = true
	eff.OpenWorld = eff.OpenWorld || e.spec.OpenWorld
	if e.spec.ReadOnly && !eff.ReadOnly {
		return Effects{}, fmt.Errorf("tool %s is registered read-only but declares a call that is not", call.Name)
	}
	return eff, nil
}

// approvedKey carries the effects a gate approved for the call running
// under a context.
type approvedKey struct{}

// WithApproved marks ctx as carrying a call whose effects eff the agent's
// gate has approved. A tool that enforces a decision of its own (an MCP
// tool with a confirmer) does not ask a second time, and a file tool
// writes only the approved Changes: if what it would write now differs
// (the file changed since the preview) it refuses, writing nothing.
func WithApproved(ctx context.Context, eff Effects) context.Context {
	return context.WithValue(ctx, approvedKey{}, &eff)
}

// Approved returns the effects WithApproved put in ctx.
func Approved(ctx context.Context) (Effects, bool) {
	v, _ := ctx.Value(approvedKey{}).(*Effects)
	if v == nil {
		return Effects{}, false
	}
	return *v, true
}

// ErrChangedSinceApproval: what a file tool would write now is not what was
// approved, because the file changed since the preview. Nothing was written.
var ErrChangedSinceApproval = errors.New("the file changed since the change was approved")

// CheckApproved verifies, for a tool about to write after to path (computed
// from before), that an approved call under ctx approved exactly that; for
// a removal only before is compared. It returns nil when ctx carries no
// approval (the tool runs on its own).
func CheckApproved(ctx context.Context, path string, before, after []byte, existed bool) error {
	eff, ok := Approved(ctx)
	if !ok {
		return nil
	}
	for _, c := range eff.Changes {
		if c.Path != path {
			continue
		}
		if c.Existed != existed || !bytes.Equal(c.Before, before) || (!c.Remove && !bytes.Equal(c.After, after)) {
			return fmt.Errorf("%w: %s; nothing was written; read it again and redo the change", ErrChangedSinceApproval, path)
		}
		return nil
	}
	return fmt.Errorf("%w: %s was not part of the approved change; nothing was written", ErrChangedSinceApproval, path)
}

// Reading declares a read-only call that reads paths; empty paths (a
// default, such as the workspace root) are left out.
func Reading(paths ...string) Effects {
	e := Effects{Annotations: Annotations{ReadOnly: true, Idempotent: true}}
	for _, p := range paths {
		if p != "" {
			e.Reads = append(e.Reads, p)
		}
	}
	return e
}
