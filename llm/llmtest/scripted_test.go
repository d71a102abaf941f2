package llmtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
)

func TestScriptedModelStreamsInSmallChunks(t *testing.T) {
	m, err := llmtest.Replay("testdata/hello.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var thinkingChunks, calls int
	var last llm.Chunk
	for c, err := range m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "make hello.txt"}}}) {
		if err != nil {
			t.Fatal(err)
		}
		if len([]rune(c.Thinking)) > 9 || len([]rune(c.Content)) > 9 {
			t.Errorf("chunk too large: %+v", c)
		}
		if c.Thinking != "" {
			thinkingChunks++
		}
		calls += len(c.ToolCalls)
		last = c
	}
	if thinkingChunks < 5 || calls != 1 || !last.Done || last.StopReason != llm.StopToolCalls {
		t.Fatalf("thinking chunks %d, calls %d, last %+v", thinkingChunks, calls, last)
	}
	r, err := llm.Collect(m.Chat(t.Context(), llm.Request{}))
	if err != nil || r.Message.Content != "Created hello.txt. [TASK_COMPLETE]" || r.StopReason != llm.StopEnd {
		t.Fatalf("second turn: %+v %v", r, err)
	}
	if m.Remaining() != 0 || len(m.Requests()) != 2 || m.Requests()[0].Messages[0].Content != "make hello.txt" {
		t.Fatalf("remaining %d, requests %+v", m.Remaining(), m.Requests())
	}
	_, err = llm.Collect(m.Chat(t.Context(), llm.Request{}))
	if !errors.Is(err, llmtest.ErrScriptExhausted) || !strings.Contains(err.Error(), "request 3") || !strings.Contains(err.Error(), "2 response(s)") {
		t.Fatalf("exhausted: %v", err)
	}
}

func TestScriptedModelChunkingIsLossless(t *testing.T) {
	text := "héllo <tool_call>{\"name\":\"x\"}</tool_call> wörld [TASK_COMPLETE]"
	for _, sizes := range [][]int{{1}, {2, 3}, {1 << 30}, nil} {
		m := llmtest.NewScripted(llmtest.Script{Turns: []llmtest.Turn{{Content: text, Thinking: text}}})
		m.SetChunkSizes(sizes...)
		r, err := llm.Collect(m.Chat(t.Context(), llm.Request{}))
		if err != nil || r.Message.Content != text || r.Message.Thinking != text {
			t.Fatalf("sizes %v: %+v %v", sizes, r, err)
		}
	}
}

func TestScriptedModelCapabilities(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Script{Turns: []llmtest.Turn{{Thinking: "x"}}})
	if c, _ := m.Capabilities(t.Context()); !c.Tools || !c.Thinking {
		t.Errorf("default capabilities %+v", c)
	}
	m = llmtest.NewScripted(llmtest.Script{Capabilities: &llm.Capabilities{ContextLength: 2048}})
	if c, _ := llm.CapabilitiesOf(t.Context(), m); c.Tools || c.ContextLength != 2048 {
		t.Errorf("script capabilities %+v", c)
	}
}

func TestScriptedModelCancel(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Script{Turns: []llmtest.Turn{{Content: strings.Repeat("x", 100)}}})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	var gotErr error
	for _, err := range m.Chat(ctx, llm.Request{}) {
		if err != nil {
			gotErr = err
			break
		}
		if n++; n == 2 {
			cancel()
		}
	}
	if !errors.Is(gotErr, context.Canceled) || n != 2 {
		t.Fatalf("after cancel: %d chunks, err %v", n, gotErr)
	}
}

func TestRecorderReplaysASession(t *testing.T) {
	// Record a real-protocol session (the fake Ollama server), then replay
	// the recording with the scripted model: same responses.
	script, err := llmtest.ReadScriptFile("testdata/hello.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewFakeOllama(script)
	defer srv.Close()
	backend, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	r := llmtest.NewRecorder(backend, &rec)
	var live []llm.Response
	for range 2 {
		resp, err := llm.Collect(r.Chat(t.Context(), llm.Request{}))
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, resp)
	}
	// A failing call records nothing.
	if _, err := llm.Collect(r.Chat(t.Context(), llm.Request{})); err == nil {
		t.Fatal("third call should fail: the fake's script is exhausted")
	}
	if lines := strings.Count(rec.String(), "\n"); lines != 3 {
		t.Fatalf("recording has %d lines, want capabilities + 2 turns:\n%s", lines, rec.String())
	}
	replayed, err := llmtest.ParseScript(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if c := replayed.Capabilities; c == nil || !c.Tools || !c.Thinking || c.ContextLength != 32768 {
		t.Errorf("recorded capabilities %+v", c)
	}
	m := llmtest.NewScripted(replayed)
	for i, want := range live {
		got, err := llm.Collect(m.Chat(t.Context(), llm.Request{}))
		if err != nil {
			t.Fatal(err)
		}
		if got.Message.Content != want.Message.Content || got.Message.Thinking != want.Message.Thinking ||
			len(got.Message.ToolCalls) != len(want.Message.ToolCalls) {
			t.Fatalf("turn %d: replay %+v, live %+v", i, got.Message, want.Message)
		}
		for j := range want.Message.ToolCalls {
			var a, b any
			json.Unmarshal(got.Message.ToolCalls[j].Arguments, &a)
			json.Unmarshal(want.Message.ToolCalls[j].Arguments, &b)
			if !jsonEq(a, b) {
				t.Errorf("turn %d call %d arguments differ", i, j)
			}
		}
	}
}

func jsonEq(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRecorderWriteFailureIsNotSilent(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Script{Turns: []llmtest.Turn{{Content: "hi"}}})
	r := llmtest.NewRecorder(m, failWriter{})
	_, err := llm.Collect(r.Chat(t.Context(), llm.Request{}))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestRecorderCapabilitiesFirst(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Script{Capabilities: &llm.Capabilities{Tools: false, Thinking: true}, Turns: []llmtest.Turn{{Content: "a"}}})
	var buf bytes.Buffer
	r := llmtest.NewRecorder(m, &buf)
	c, err := r.Capabilities(t.Context())
	if err != nil || !c.Thinking || c.Tools {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := llm.Collect(r.Chat(t.Context(), llm.Request{})); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Capabilities(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := `{"capabilities":{"tools":false,"thinking":true,"vision":false}}` + "\n" + `{"content":"a"}` + "\n"
	if buf.String() != want {
		t.Fatalf("recording:\n%s\nwant:\n%s", buf.String(), want)
	}
}
