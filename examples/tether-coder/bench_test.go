package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tetherdev/tether/agent/event"
)

// longSession is a transcript of n tasks, each a prompt, a Markdown
// answer and a group of two tool actions.
func longSession(n int) *transcript {
	tr := newTranscript(newStyles(), &markdown{})
	for i := range n {
		tr.apply(event.RunStarted{Prompt: fmt.Sprintf("task %d", i)})
		tr.apply(event.TextDelta{Text: "Looking at **main.go** and `util.go`:\n\n- one\n- two\n"})
		g := fmt.Sprintf("g%d", i)
		tr.apply(event.ProgressGroupStarted{GroupID: g, Title: "Reading files"})
		tr.apply(event.ToolAction{GroupID: g, CallID: g + "a", Status: event.StatusSuccess, Title: "Read main.go"})
		tr.apply(event.ToolAction{GroupID: g, CallID: g + "b", Status: event.StatusSuccess, Title: "Read util.go"})
		tr.apply(event.ProgressGroupFinished{GroupID: g, Status: event.StatusSuccess})
		tr.apply(event.RunFinished{StopReason: event.StopCompleted, Iterations: 2})
	}
	return tr
}

// BenchmarkRedraw is one frame of a 100-task session while the model
// streams a 2 KB answer of 30 paragraphs: every closed block comes from
// the cache and the open one is rendered again because a delta arrived,
// either whole or only its last paragraph (what the coder does).
func BenchmarkRedraw(b *testing.B) {
	answer := strings.Repeat("Some *streamed* text with `code` in it, a sentence long.\n\n", 30) + "The paragraph being written"
	for _, mode := range []string{"whole", "last-paragraph"} {
		b.Run(mode, func(b *testing.B) {
			tr := longSession(100)
			tr.apply(event.RunStarted{Prompt: "stream"})
			tr.apply(event.TextDelta{Text: answer})
			open := tr.blocks[len(tr.blocks)-1]
			tr.render(100, "*")
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				open.text.Reset()
				open.text.WriteString(answer[:len(answer)-i%2]) // a new length: not cached
				if mode == "whole" {
					open.stream = streamed{} // forget the stable prefix
				}
				tr.render(100, "*")
			}
		})
	}
}

// BenchmarkResize renders the same session at a new width: every block
// is rendered again.
func BenchmarkResize(b *testing.B) {
	tr := longSession(100)
	b.ReportAllocs()
	w := 80
	for b.Loop() {
		w = 80 + (w+1)%40
		tr.render(w, "*")
	}
}
