package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tetherdev/tether/llm"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func instant(context.Context, time.Duration) error { return nil }

// A body without GetBody (a plain io.Reader) is buffered once and resent
// identically on every attempt.
func TestRetryResendsUnreplayableBody(t *testing.T) {
	var n atomic.Int32
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	var logs bytes.Buffer
	hc := &http.Client{Transport: &Transport{Base: srv.Client().Transport, Retry: llm.RetryPolicy{Sleep: instant},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, io.MultiReader(strings.NewReader("payload")))
	ctx, rec := Track(context.Background())
	resp, err := hc.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" || rec.Attempts() != 3 {
		t.Fatalf("body %q after %d attempts", b, rec.Attempts())
	}
	for _, got := range bodies {
		if got != "payload" {
			t.Errorf("attempt sent %q", got)
		}
	}
	if c := strings.Count(logs.String(), "retrying request"); c != 2 {
		t.Errorf("logged %d retries, want 2:\n%s", c, logs.String())
	}
}

// After the first byte, a broken body is the caller's error: no retry.
func TestNoRetryAfterFirstByte(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &Transport{Base: srv.Client().Transport, Retry: llm.RetryPolicy{Sleep: instant}}}
	ctx, rec := Track(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "partial" || err == nil || rec.ReadErr() == nil || n.Load() != 1 {
		t.Fatalf("body %q err %v readErr %v requests %d", b, err, rec.ReadErr(), n.Load())
	}
}

func TestStallDuringBody(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	hc := &http.Client{Transport: &Transport{Base: srv.Client().Transport, StallTimeout: 200 * time.Millisecond}}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	_, err = io.ReadAll(resp.Body)
	var st *StallError
	if !errors.As(err, &st) || !errors.Is(err, llm.ErrStalled) || st.Timeout != 200*time.Millisecond {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 20*time.Second { // generous: a loaded CI machine
		t.Fatal("stall detection took far longer than the timeout")
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		status int
		msg    string
		want   error
	}{
		{401, "", llm.ErrUnauthorized},
		{403, "forbidden", llm.ErrUnauthorized},
		{404, `model "qwen3:8b" not found, try pulling it first`, llm.ErrModelNotFound},
		{404, "404 page not found", nil},
		{400, "registry.ollama.ai/library/gemma:2b does not support tools", llm.ErrNoToolSupport},
		{500, "tools param requires --jinja flag", llm.ErrNoToolSupport},
		{400, "This model's maximum context length is 8192 tokens", llm.ErrContextTooLong},
		{400, "the request exceeds the available context size, try increasing it", llm.ErrContextTooLong},
		{400, "context_length_exceeded", llm.ErrContextTooLong},
		{429, "slow down", llm.ErrRateLimited},
		{500, "boom", nil},
	}
	for _, tt := range tests {
		if got := Classify(tt.status, tt.msg); got != tt.want {
			t.Errorf("Classify(%d, %q) = %v, want %v", tt.status, tt.msg, got, tt.want)
		}
	}
}
