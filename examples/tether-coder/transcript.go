package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent/event"
)

// blockKind says what a transcript block shows.
type blockKind int

const (
	blockUser     blockKind = iota // the prompt as the user typed it
	blockText                      // model text, rendered as Markdown
	blockThinking                  // collapsed to one line with its duration
	blockGroup                     // a progress group and its tool actions
	blockInfo                      // pre-styled lines: command output, notices, files changed
)

// block is one entry of the transcript. Open blocks still receive deltas;
// a closed block never changes, so its rendering is cached per width.
type block struct {
	kind  blockKind
	text  strings.Builder
	open  bool
	depth int // 0 for the run itself, 1 for a subagent's work
	title string
	dur   time.Duration
	acts  []event.ToolAction
	live  map[string]string // call id → output so far, while it runs
	step  map[string]string // call id → the tool's latest word on how far it is ("Reading a.pdf page 2 of 3")

	cache  string
	cacheW int
	// cacheN is the text length the cache of an open text block was
	// rendered from: spinner ticks redraw without re-rendering Markdown.
	cacheN int
	stream streamed // an open text block's stable Markdown
}

// transcript turns the agent's event stream into blocks a person reads.
// Live runs and resumed sessions feed it the same events, so a session
// replayed from the store looks as it did when it ran.
type transcript struct {
	st             styles
	md             *markdown
	blocks         []*block
	groups         map[string]*block
	expandThinking bool

	todos        []event.TodoItem
	activity     string // "Writing main.go…" until the next action
	tokensUsed   int    // prompt+completion over the session's runs
	promptTokens int    // the last call's prompt: how full the context is
}

func newTranscript(st styles, md *markdown) *transcript {
	return &transcript{st: st, md: md, groups: map[string]*block{}}
}

func (t *transcript) add(b *block) *block {
	t.closeOpen()
	t.blocks = append(t.blocks, b)
	return b
}

// info appends finished, pre-styled text (a command's answer).
func (t *transcript) info(text string) {
	b := &block{kind: blockInfo}
	b.text.WriteString(strings.TrimRight(text, "\n"))
	t.add(b)
}

// closeOpen ends the streaming text or thinking block, if any.
func (t *transcript) closeOpen() {
	if n := len(t.blocks); n > 0 {
		if b := t.blocks[n-1]; b.open && (b.kind == blockText || b.kind == blockThinking) {
			b.open = false
		}
	}
}

// streaming returns the last block if it is open and of kind k.
func (t *transcript) streaming(k blockKind) *block {
	if n := len(t.blocks); n > 0 && t.blocks[n-1].open && t.blocks[n-1].kind == k {
		return t.blocks[n-1]
	}
	return nil
}

func (t *transcript) apply(e event.Event) { t.applyAt(e, 0, "") }

func (t *transcript) applyAt(e event.Event, depth int, scope string) {
	switch e := e.(type) {
	case event.RunStarted:
		if depth == 0 {
			b := t.add(&block{kind: blockUser})
			b.text.WriteString(e.Prompt)
		}
	case event.ThinkingDelta:
		if depth > 0 {
			return
		}
		b := t.streaming(blockThinking)
		if b == nil {
			b = t.add(&block{kind: blockThinking, open: true})
		}
		b.text.WriteString(e.Text)
	case event.ThinkingCollapsed:
		if depth > 0 {
			return
		}
		for i := len(t.blocks) - 1; i >= 0; i-- {
			if b := t.blocks[i]; b.kind == blockThinking {
				b.dur, b.open, b.cache = e.Duration(), false, ""
				break
			}
		}
	case event.TextDelta:
		if depth > 0 {
			return // a subagent's text is its tool result, shown in its group
		}
		b := t.streaming(blockText)
		if b == nil {
			b = t.add(&block{kind: blockText, open: true})
		}
		b.text.WriteString(e.Text)
	case event.FileWriting:
		t.activity = "Writing " + e.Path + "…"
	case event.ProgressGroupStarted:
		b := t.add(&block{kind: blockGroup, open: true, depth: depth, title: e.Title})
		t.groups[scope+e.GroupID] = b
	case event.ToolAction:
		t.activity = ""
		g := t.groups[scope+e.GroupID]
		if g == nil {
			g = t.add(&block{kind: blockGroup, open: true, depth: depth, title: e.Tool})
			t.groups[scope+e.GroupID] = g
		}
		g.cache = ""
		for i := range g.acts {
			if g.acts[i].CallID == e.CallID {
				g.acts[i] = e
				return
			}
		}
		g.acts = append(g.acts, e)
	case event.ToolProgress:
		t.progress(e, depth)
	case event.ProgressGroupFinished:
		if g := t.groups[scope+e.GroupID]; g != nil {
			g.open, g.cache = false, ""
		}
	case event.FilesChanged:
		if e.Final && depth == 0 {
			var b strings.Builder
			fmt.Fprintf(&b, "%s %s %s", t.st.bold.Render("files changed"), t.st.stat(e.Added, e.Removed),
				t.st.dim.Render("· Ctrl-R or /review to accept or reject hunks; /diff, /undo, /keep"))
			for _, f := range e.Files {
				fmt.Fprintf(&b, "\n  %s %s %s", f.Kind, f.Path, t.st.stat(f.Added, f.Removed))
			}
			t.info(b.String())
		}
	case event.Notice:
		t.info(t.st.warn.Render(fmt.Sprintf("%s! %s: %s", strings.Repeat("  ", depth), e.Kind, oneLine(e.Text, 300))))
	case event.ContextCompacted:
		t.info(t.st.dim.Render(fmt.Sprintf("context compacted: %d → %d tokens", e.TokensBefore, e.TokensAfter)))
	case event.BranchCreated:
		t.info(t.st.dim.Render("working on branch " + e.Branch))
	case event.TodosUpdated:
		if depth == 0 {
			t.todos = e.Items
		}
	case event.SubagentEvent:
		t.applyAt(e.Event, depth+1+e.Depth, scope+e.ParentCallID+"/")
	case event.RunFinished:
		if depth > 0 {
			return
		}
		t.closeOpen()
		t.activity = ""
		for _, g := range t.groups {
			g.open = false
		}
		t.tokensUsed += e.Usage.PromptTokens + e.Usage.CompletionTokens
		if e.Usage.PromptTokens > 0 {
			t.promptTokens = e.Usage.PromptTokens
		}
		msg := fmt.Sprintf("%s · %d model call(s) · %s tokens", e.StopReason, e.Iterations, compactCount(e.Usage.PromptTokens+e.Usage.CompletionTokens))
		if e.Error != "" {
			msg += " · " + oneLine(e.Error, 200)
		}
		t.info(t.st.dim.Render("── " + msg))
	}
}

// maxLive bounds the live output kept per running call: only its tail
// is shown, and the whole output arrives with the final action.
const maxLive = 8 << 10

// progress adds a running call's new output lines to the action of the
// call it names (at the same subagent depth), while it runs; a report
// without output (a chunk read, a page of a PDF) replaces the call's step.
func (t *transcript) progress(p event.ToolProgress, depth int) {
	if p.Output == "" && p.Dropped == 0 && p.Title == "" {
		return
	}
	for i := len(t.blocks) - 1; i >= 0; i-- {
		g := t.blocks[i]
		if g.kind != blockGroup || g.depth != depth {
			continue
		}
		for _, a := range g.acts {
			if a.CallID != p.CallID || a.Status != event.StatusRunning {
				continue
			}
			g.cache = ""
			if p.Output == "" && p.Dropped == 0 {
				if g.step == nil {
					g.step = map[string]string{}
				}
				g.step[a.CallID] = p.Title
				return
			}
			if g.live == nil {
				g.live = map[string]string{}
			}
			out := g.live[a.CallID]
			if p.Dropped > 0 {
				out += fmt.Sprintf("… %d lines not shown\n", p.Dropped)
			}
			if p.Output != "" {
				out += strings.TrimSuffix(p.Output, "\n") + "\n"
			}
			if len(out) > maxLive {
				out = out[len(out)-maxLive:]
			}
			g.live[a.CallID] = out
			return
		}
	}
}

// render draws the whole transcript at width; frame is the spinner frame
// for running actions.
func (t *transcript) render(width int, frame string) string {
	parts := make([]string, 0, len(t.blocks))
	for _, b := range t.blocks {
		if !b.open && b.cache != "" && b.cacheW == width {
			parts = append(parts, b.cache)
			continue
		}
		out := t.renderBlock(b, width, frame)
		if !b.open {
			b.cache, b.cacheW = out, width
		}
		parts = append(parts, out)
	}
	return strings.Join(parts, "\n\n")
}

func (t *transcript) renderBlock(b *block, width int, frame string) string {
	st := t.st
	switch b.kind {
	case blockUser:
		return st.user.Render("› ") + strings.ReplaceAll(b.text.String(), "\n", "\n  ")
	case blockText:
		if b.open && b.cacheN == b.text.Len() && b.cacheW == width && b.cache != "" {
			return b.cache
		}
		if !b.open {
			return t.md.render(b.text.String(), width)
		}
		out := t.md.renderStreaming(&b.stream, b.text.String(), width)
		b.cache, b.cacheW, b.cacheN = out, width, b.text.Len()
		return out
	case blockThinking:
		head := "▸ thinking…"
		if !b.open {
			head = fmt.Sprintf("▸ thought for %s", b.dur.Round(100*time.Millisecond))
			if b.dur < 50*time.Millisecond {
				head = "▸ thought for a moment" // not "0s": it did think
			}
		}
		if !t.expandThinking {
			return st.dim.Render(head + "  (ctrl+t expands)")
		}
		return st.dim.Render("▾" + head[len("▸"):] + "\n" + strings.TrimSpace(b.text.String()))
	case blockGroup:
		return t.renderGroup(b, frame)
	}
	return b.text.String()
}

func (t *transcript) renderGroup(g *block, frame string) string {
	st := t.st
	pad := strings.Repeat("  ", g.depth)
	mark := st.bold.Render("▸ " + g.title)
	if g.depth > 0 {
		mark = st.accent.Render("↳ subagent: ") + st.bold.Render(g.title)
	}
	lines := []string{pad + mark}
	for _, a := range g.acts {
		detail := oneLine(a.Detail, 160)
		var line string
		switch a.Status {
		case event.StatusRunning:
			line = st.accent.Render(frame) + " " + a.Title
			if step := g.step[a.CallID]; step != "" {
				line += " " + st.dim.Render("· "+oneLine(step, 120))
			}
		case event.StatusPending:
			line = st.warn.Render("? "+a.Title) + st.dim.Render(" (waiting for your approval)")
		case event.StatusSuccess:
			line = st.ok.Render("✓") + " " + a.Title + " " + st.dim.Render(detail)
		case event.StatusDenied:
			line = st.bad.Render("✗ "+a.Title) + " " + st.bad.Render(detail)
		case event.StatusError:
			line = st.bad.Render("✗") + " " + a.Title + " " + st.warn.Render(detail)
		default:
			line = st.dim.Render("– " + a.Title + " " + detail)
		}
		lines = append(lines, pad+"  "+strings.TrimRight(line, " "))
		out := a.Output
		if a.Status == event.StatusRunning {
			out = g.live[a.CallID]
		}
		if a.Tool == "run_terminal_command" && a.Status != event.StatusDenied && a.Status != event.StatusPending {
			for _, l := range lastLines(out, 4) {
				lines = append(lines, pad+"    "+st.dim.Render("│ "+oneLine(l, 200)))
			}
		}
	}
	return strings.Join(lines, "\n")
}

// renderTodos is the plan panel pinned above the input.
func (t *transcript) renderTodos() string {
	if len(t.todos) == 0 {
		return ""
	}
	st := t.st
	done := 0
	lines := make([]string, 0, len(t.todos)+1)
	for _, it := range t.todos {
		switch it.Status {
		case event.TodoDone:
			done++
			lines = append(lines, st.ok.Render("  ✓ ")+st.dim.Render(it.Text))
		case event.TodoInProgress:
			lines = append(lines, st.accent.Render("  ▸ "+it.Text))
		default:
			lines = append(lines, "  ☐ "+it.Text)
		}
	}
	head := st.bold.Render(fmt.Sprintf("plan %d/%d", done, len(t.todos)))
	return head + "\n" + strings.Join(lines, "\n")
}

func compactCount(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}
