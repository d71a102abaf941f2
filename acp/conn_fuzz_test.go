package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// FuzzReceive feeds arbitrary lines to the connection: it must never
// panic, answer at most once per line, and whatever it writes must be one
// JSON-RPC 2.0 message per line.
func FuzzReceive(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
		`[]`, `[1,2]`, `"x"`, `{`, `{"id":{"a":1}}`, `{"jsonrpc":"2.0","id":null,"method":"m"}`,
		"\xff\xfe", `{"jsonrpc":"2.0","id":1e400,"method":"m"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var out bytes.Buffer
		dispatched := 0
		c := newConn(&out, slog.New(slog.DiscardHandler), func(in inbound) {
			dispatched++
			if in.Method == "" {
				t.Fatalf("dispatched a message without a method: %+v", in)
			}
		})
		c.maxLine = 1 << 10
		if err := c.serve(bytes.NewBufferString(line)); err != nil && err != io.EOF {
			t.Fatalf("serve: %v", err)
		}
		lines := bytes.Split(bytes.TrimRight(out.Bytes(), "\n"), []byte("\n"))
		if out.Len() == 0 {
			lines = nil
		}
		// A line holding newlines is several messages; each gets at most
		// one answer, and a dispatched one gets none from the connection.
		msgs := bytes.Count([]byte(line), []byte("\n")) + 1
		if len(lines)+dispatched > msgs {
			t.Fatalf("%d answers and %d dispatches for %d lines", len(lines), dispatched, msgs)
		}
		for _, l := range lines {
			// The id is echoed as the client wrote it (JSON-RPC requires
			// the same value), so numbers are kept as written: 1e700 is
			// valid JSON though no float64 holds it.
			var m map[string]any
			d := json.NewDecoder(bytes.NewReader(l))
			d.UseNumber()
			if err := d.Decode(&m); err != nil || d.More() {
				t.Fatalf("wrote a line that is not one JSON value (%v): %q", err, l)
			}
			if m["jsonrpc"] != "2.0" || m["error"] == nil {
				t.Fatalf("wrote %q, want a JSON-RPC error", l)
			}
		}
	})
}

// BenchmarkUpdate measures one session/update notification, encoded and
// written, as a turn streams them.
func BenchmarkUpdate(b *testing.B) {
	c := newConn(io.Discard, slog.New(slog.DiscardHandler), func(inbound) {})
	s := &Server{conn: c, logger: slog.New(slog.DiscardHandler)}
	u := sdk.UpdateAgentMessageText("a chunk of the model's answer, as the stream delivers it")
	b.ReportAllocs()
	for b.Loop() {
		s.update("ses_0123456789abcdef", u)
	}
}

// BenchmarkReceive measures reading and classifying one prompt request.
func BenchmarkReceive(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"ses_0123456789abcdef","prompt":[{"type":"text","text":"Fix the failing test in parser_test.go and run it"}]}}`)
	c := newConn(io.Discard, slog.New(slog.DiscardHandler), func(inbound) {})
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		c.receive(line, false)
	}
}
