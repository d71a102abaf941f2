package approval

import (
	"fmt"
	"time"
)

// StagedResult is what a preview tool (preview_write_file, preview_edit_file)
// or a legacy write_file/edit_file in staging mode returns to the model, in
// a shape small models handle well: the token to pass to apply_file_change
// and the diff preview.
type StagedResult struct {
	Token            string    `json:"token"`
	Path             string    `json:"path"`
	DiffPreview      string    `json:"diffPreview"`
	Added            int       `json:"added"`
	Removed          int       `json:"removed"`
	Created          bool      `json:"created,omitempty"`
	ExpiresAt        time.Time `json:"expiresAt"`
	LegacyTranslated bool      `json:"legacyTranslated,omitempty"` // a write_file/edit_file call was staged instead of written
}

// Result turns p into the tool result for the model. legacy marks a
// write_file or edit_file call that was staged instead of written.
//
// Staging mode for the legacy tools: a host that wants every write reviewed
// wires write_file to Stager.PreviewWrite and edit_file to
// Stager.PreviewEdit, returns p.Result(true) as the tool result, and exposes
// an apply_file_change tool that builds p.Request("apply_file_change") from
// Stager.Lookup(token), passes it to Gate.Authorize and then calls
// Stager.ApplyApproved with the Approved it gets back.
func (p Preview) Result(legacy bool) StagedResult {
	return StagedResult{
		Token: p.Token, Path: p.Rel, DiffPreview: p.Diff,
		Added: p.Stats.Added, Removed: p.Stats.Removed, Created: p.Created,
		ExpiresAt: p.Expires, LegacyTranslated: legacy,
	}
}

// Text is the result as prose for models that read tool output as text.
func (r StagedResult) Text() string {
	verb := "Staged a change to"
	if r.Created {
		verb = "Staged the creation of"
	}
	s := fmt.Sprintf("%s %s (+%d −%d). Nothing has been written yet.", verb, r.Path, r.Added, r.Removed)
	if r.LegacyTranslated {
		s += " This write was staged instead of applied."
	}
	s += fmt.Sprintf(" To write it, call apply_file_change with {\"token\": %q} before %s.\n", r.Token, r.ExpiresAt.UTC().Format(time.RFC3339))
	if r.DiffPreview != "" {
		s += "\n" + r.DiffPreview
	}
	return s
}

// Metadata is r as the structured content a tool result carries beside
// its prose: "token", "diffPreview", "path", "added", "removed",
// "expiresAt", and "created" and "legacyTranslated" when true — the
// fields the two-phase protocol tells a model to read.
func (r StagedResult) Metadata() map[string]any {
	m := map[string]any{
		"token": r.Token, "path": r.Path, "diffPreview": r.DiffPreview,
		"added": r.Added, "removed": r.Removed,
		"expiresAt": r.ExpiresAt.UTC().Format(time.RFC3339),
	}
	if r.Created {
		m["created"] = true
	}
	if r.LegacyTranslated {
		m["legacyTranslated"] = true
	}
	return m
}
