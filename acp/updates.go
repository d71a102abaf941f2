package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// maxToolOutput bounds the command output one tool_call_update carries:
// the tail is kept, as a terminal would show it.
const maxToolOutput = 32 << 10

// callState is what the translator knows of one tool call of the turn.
type callState struct {
	running   bool // the agent has started it (its first ToolAction came)
	announced bool // tool_call was sent
	kind      sdk.ToolKind
	title     string
	locations []sdk.ToolCallLocation
	diffs     []sdk.ToolCallContent // the exact changes, declared before the call ran
	command   string
	output    []byte
}

// translator turns a session's events into session/update notifications.
// Live events and a loaded session's stored ones go through the same
// code, so a replay shows what the turn showed.
type translator struct {
	l *live

	mu    sync.Mutex
	calls map[string]*callState
}

func newTranslator(l *live) *translator {
	return &translator{l: l, calls: map[string]*callState{}}
}

func (t *translator) send(u sdk.SessionUpdate) { t.l.s.update(t.l.id, u) }

// emit is the session's event sink. It never fails: an editor that went
// away ends the connection, which cancels the turn.
func (t *translator) emit(_ context.Context, e event.Event) error {
	switch e := e.(type) {
	case event.RunStarted:
		t.mu.Lock()
		t.calls = map[string]*callState{}
		t.mu.Unlock()
	case event.TextDelta:
		t.send(sdk.UpdateAgentMessageText(e.Text))
	case event.ThinkingDelta:
		t.send(sdk.UpdateAgentThoughtText(e.Text))
	case event.ToolAction:
		t.action(e)
	case event.ToolProgress:
		t.progress(e)
	case event.TodosUpdated:
		t.send(planUpdate(e.Items))
	case event.RunFinished:
		if e.CheckpointID != "" {
			t.l.mu.Lock()
			t.l.pushCheckpoint(e.CheckpointID)
			t.l.mu.Unlock()
		}
	}
	return nil
}

// replay shows one stored event of a loaded session: the user's prompts
// as user message chunks, the rest as they were shown live.
func (t *translator) replay(e event.Event) {
	if r, ok := e.(event.RunStarted); ok {
		_ = t.emit(context.Background(), e)
		t.send(sdk.UpdateUserMessageText(r.Prompt))
		return
	}
	_ = t.emit(context.Background(), e)
}

func planUpdate(items []event.TodoItem) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(items))
	for _, it := range items {
		st := sdk.PlanEntryStatusPending
		switch it.Status {
		case event.TodoInProgress:
			st = sdk.PlanEntryStatusInProgress
		case event.TodoDone:
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Text, Status: st, Priority: sdk.PlanEntryPriorityMedium})
	}
	return sdk.UpdatePlan(entries...)
}

func toolStatus(s event.ActionStatus) sdk.ToolCallStatus {
	switch s {
	case event.StatusPending:
		return sdk.ToolCallStatusPending
	case event.StatusRunning:
		return sdk.ToolCallStatusInProgress
	case event.StatusSuccess:
		return sdk.ToolCallStatusCompleted
	}
	return sdk.ToolCallStatusFailed // error, denied, skipped
}

func (t *translator) state(id string) *callState {
	c := t.calls[id]
	if c == nil {
		c = &callState{kind: sdk.ToolKindOther}
		t.calls[id] = c
	}
	return c
}

// abs makes a workspace-relative path absolute, as ACP wants paths.
func (t *translator) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	root := t.l.cwd
	if ws := t.l.setup.Agent.Workspace; ws != nil {
		root = ws.Root()
	}
	return filepath.Join(root, p)
}

// action reports a call's status. The tool_call announcing it is sent by
// the middleware, which knows the call's declared effects (its kind, files
// and diffs), so a "running" status waits for it; a call that never reaches
// the middleware (refused before it runs) is announced by its next status.
// Each later status is a tool_call_update; the final one carries content.
func (t *translator) action(a event.ToolAction) {
	t.mu.Lock()
	c := t.state(a.CallID)
	c.title = a.Title
	if !c.running && !c.announced && c.kind == sdk.ToolKindOther {
		c.kind = t.specKind(a.Tool)
	}
	c.running = true
	if a.Path != "" && len(c.locations) == 0 {
		loc := sdk.ToolCallLocation{Path: t.abs(a.Path)}
		if a.StartLine > 0 {
			loc.Line = sdk.Ptr(a.StartLine)
		}
		c.locations = []sdk.ToolCallLocation{loc}
	}
	if !c.announced && a.Status == event.StatusRunning {
		t.mu.Unlock()
		return
	}
	first := !c.announced
	c.announced = true
	final := a.Status != event.StatusRunning && a.Status != event.StatusPending
	var content []sdk.ToolCallContent
	if final {
		content = t.finalContent(c, a)
	}
	kind, locs := c.kind, c.locations
	t.mu.Unlock()

	st := toolStatus(a.Status)
	if first {
		t.send(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: sdk.ToolCallId(a.CallID), Title: a.Title, Kind: kind, Status: st, Locations: locs, Content: content,
		}})
		return
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(st), sdk.WithUpdateTitle(a.Title)}
	if len(locs) > 0 {
		opts = append(opts, sdk.WithUpdateLocations(locs))
	}
	if content != nil {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	if final && a.Output != "" {
		opts = append(opts, sdk.WithUpdateRawOutput(map[string]string{"output": a.Output}))
	}
	t.send(sdk.UpdateToolCall(sdk.ToolCallId(a.CallID), opts...))
}

// finalContent is what a finished call shows: the diffs of an edit that
// ran, a command's output, or the result text.
func (t *translator) finalContent(c *callState, a event.ToolAction) []sdk.ToolCallContent {
	if a.Status == event.StatusSuccess && len(c.diffs) > 0 {
		return c.diffs
	}
	text := a.Output
	if c.command != "" && len(c.output) > 0 && a.Output == "" {
		text = string(c.output)
	}
	if a.Detail != "" && a.Status != event.StatusSuccess {
		text = a.Detail + "\n\n" + text
	}
	if text == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(fence(text)))}
}

// fence puts text in a code block so the editor shows it verbatim.
func fence(s string) string {
	f := "```"
	for bytes.Contains([]byte(s), []byte(f)) {
		f += "`"
	}
	return f + "\n" + s + "\n" + f
}

// progress streams a running command's output.
func (t *translator) progress(p event.ToolProgress) {
	if p.Output == "" {
		return
	}
	t.mu.Lock()
	c := t.state(p.CallID)
	if !c.announced {
		t.mu.Unlock()
		return
	}
	c.output = append(c.output, p.Output...)
	if len(c.output) > maxToolOutput {
		cut := len(c.output) - maxToolOutput
		for cut < len(c.output) && !utf8.RuneStart(c.output[cut]) {
			cut++
		}
		c.output = append([]byte(nil), c.output[cut:]...)
	}
	text := string(c.output)
	t.mu.Unlock()
	t.send(sdk.UpdateToolCall(sdk.ToolCallId(p.CallID),
		sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
		sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(fence(text)))})))
}

// specKind is a tool's kind from what its spec says of every call, used
// until the call's own effects are declared.
func (t *translator) specKind(name string) sdk.ToolKind {
	reg := t.l.setup.Agent.Tools
	if reg == nil {
		return sdk.ToolKindOther
	}
	tool, _, err := reg.Lookup(name)
	if err != nil {
		return sdk.ToolKindOther
	}
	s := tool.Describe()
	switch {
	case s.OpenWorld:
		return sdk.ToolKindFetch
	case s.ReadOnly:
		return sdk.ToolKindRead
	}
	return sdk.ToolKindOther
}

// middleware sees each call with the effects its tool declared, before the
// agent judges it, and tells the editor what the call is: its kind, the
// files it touches and, for an edit, the exact change.
func (t *translator) middleware(next agent.ToolHandler) agent.ToolHandler {
	return agent.ToolHandlerFunc(func(ctx context.Context, tc *agent.ToolCall) agent.ToolOutcome {
		e := tc.Effects
		kind := effectsKind(e, tc.Args)
		var locs []sdk.ToolCallLocation
		for _, p := range append(append([]string(nil), e.Writes...), e.Reads...) {
			locs = append(locs, sdk.ToolCallLocation{Path: t.absIn(e.Dir, p)})
		}
		var diffs []sdk.ToolCallContent
		for _, ch := range e.Changes {
			if ch.Remove {
				continue
			}
			d := sdk.ToolCallContentDiff{Type: "diff", Path: t.absIn(e.Dir, ch.Path), NewText: string(ch.After)}
			if ch.Existed {
				d.OldText = sdk.Ptr(string(ch.Before))
			}
			diffs = append(diffs, sdk.ToolCallContent{Diff: &d})
		}
		t.mu.Lock()
		c := t.state(tc.ID)
		c.kind, c.diffs, c.command = kind, diffs, e.Command
		if len(locs) > 0 {
			c.locations = locs
		}
		first := !c.announced
		c.announced = true
		title := c.title
		if title == "" {
			title = tc.Tool
		}
		t.mu.Unlock()
		if first {
			t.send(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
				ToolCallId: sdk.ToolCallId(tc.ID), Title: title, Kind: kind, Status: sdk.ToolCallStatusInProgress,
				Locations: locs, Content: diffs, RawInput: json.RawMessage(tc.Args),
			}})
		} else {
			opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateKind(kind), sdk.WithUpdateRawInput(json.RawMessage(tc.Args))}
			if len(locs) > 0 {
				opts = append(opts, sdk.WithUpdateLocations(locs))
			}
			if len(diffs) > 0 {
				opts = append(opts, sdk.WithUpdateContent(diffs))
			}
			t.send(sdk.UpdateToolCall(sdk.ToolCallId(tc.ID), opts...))
		}
		return next.HandleTool(ctx, tc)
	})
}

func (t *translator) absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if dir != "" {
		return t.abs(filepath.Join(dir, p))
	}
	return t.abs(p)
}

// effectsKind is ACP's kind of a call, from the effects its tool declared.
func effectsKind(e tools.Effects, args json.RawMessage) sdk.ToolKind {
	removes := 0
	for _, c := range e.Changes {
		if c.Remove {
			removes++
		}
	}
	switch {
	case e.Command != "":
		return sdk.ToolKindExecute
	case e.URL != "" || (e.OpenWorld && e.ReadOnly):
		return sdk.ToolKindFetch
	case len(e.Writes) > 0 || len(e.Changes) > 0:
		switch {
		case removes > 0 && removes < len(e.Changes), len(e.Writes) == 2 && len(e.Changes) == 0 && !e.CreatesOnly:
			return sdk.ToolKindMove
		case removes > 0 && removes == len(e.Changes):
			return sdk.ToolKindDelete
		}
		return sdk.ToolKindEdit
	case e.ReadOnly && len(e.Reads) == 0 && !e.OpenWorld:
		// Reads nothing, runs nothing, changes nothing: the model
		// thinking aloud (a plan, a note).
		return sdk.ToolKindThink
	case e.ReadOnly:
		if searchArgs(args) {
			return sdk.ToolKindSearch
		}
		return sdk.ToolKindRead
	}
	return sdk.ToolKindOther
}

// searchArgs reports arguments that look for something (a pattern, a
// query) rather than name what to read.
func searchArgs(args json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	for _, k := range []string{"pattern", "query", "regex", "glob", "symbol"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}
