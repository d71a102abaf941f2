package agent

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
)

// summaryBuilder owns the end of a run: the final message (the model's
// own words, or a fallback summary call when it wrote none), the tool
// summary of the last results, and the final files-changed report with
// the checkpoint id.
type summaryBuilder struct {
	chat   func(ctx context.Context, req llm.Request) (llm.Response, error)
	req    llm.Request // model name, temperature; Messages set per call
	emit   func(event.Event)
	logger *slog.Logger
}

// summaryInput is what the loop hands over.
type summaryInput struct {
	lastText string // display text of the last response
	allText  string // display text of every response, joined
	history  []llm.Message
	results  []callResult // every result of the run, in order
	changes  changeSet    // nil when nothing was written
	canceled bool
}

type summaryOutput struct {
	final, tools string
	files        []event.FileChange
	checkpointID string
	usage        llm.Usage
}

// maxSummaryResults is how many of the last tool results the summary
// lists: enough to recall the run's end, short enough for a final message.
const maxSummaryResults = 6

const fallbackPrompt = "Summarize for the user, in two or three sentences, what you did in this task and what the outcome is. Do not call tools."

func (s *summaryBuilder) finalize(ctx context.Context, in summaryInput) summaryOutput {
	var out summaryOutput
	out.tools = toolSummary(in.results)
	out.final = strings.TrimSpace(in.lastText)
	if out.final == "" {
		out.final = strings.TrimSpace(in.allText)
	}
	if out.final == "" && len(in.results) > 0 && !in.canceled && s.chat != nil {
		req := s.req
		req.Messages = append(append([]llm.Message(nil), in.history...), userNote(fallbackPrompt))
		req.Tools = nil
		resp, err := s.chat(ctx, req)
		out.usage = resp.Usage
		if err != nil {
			s.logger.Warn("agent: fallback summary failed; using the tool summary", "err", err)
		} else {
			out.final = strings.TrimSpace(stripSignal(resp.Message.Content))
		}
	}
	if out.final == "" {
		out.final = out.tools
	}
	s.emit(event.FinalMessage{Text: out.final, Summary: out.tools})
	if in.changes != nil {
		fc := filesChanged(ctx, in.changes, s.logger)
		fc.Final = true
		out.files, out.checkpointID = fc.Files, fc.CheckpointID
		s.emit(fc)
	}
	return out
}

// toolSummary lists the last results, one line each.
func toolSummary(results []callResult) string {
	if len(results) > maxSummaryResults {
		results = results[len(results)-maxSummaryResults:]
	}
	var b strings.Builder
	for _, r := range results {
		_, final, _ := actionTitles(r.tc, r.canonical)
		title := final(event.StatusSuccess)
		fmt.Fprintf(&b, "- %s: %s", title, r.out.Status)
		if r.out.Detail != "" {
			fmt.Fprintf(&b, " (%s)", excerpt(r.out.Detail, 120))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// filesChanged reports the checkpoint's net diff: what each file looks
// like now against its pre-image, so a file written three times is one
// entry with its total +N −N.
func filesChanged(ctx context.Context, cs changeSet, logger *slog.Logger) event.FilesChanged {
	fc := event.FilesChanged{CheckpointID: cs.ID(), Files: []event.FileChange{}}
	d, err := cs.Diff(context.WithoutCancel(ctx))
	if err != nil {
		logger.Warn("agent: cannot diff the checkpoint", "checkpoint", cs.ID(), "err", err)
		return fc
	}
	for _, f := range d.Files {
		fc.Files = append(fc.Files, event.FileChange{Path: f.Path, OldPath: f.OldPath, Kind: string(f.Kind), Added: f.Added, Removed: f.Removed})
	}
	fc.Added, fc.Removed = d.Added, d.Removed
	return fc
}
