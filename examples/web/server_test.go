package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testServer is the web server on a loopback port with a scripted model.
type testServer struct {
	*server
	url    string       // http://127.0.0.1:PORT
	client *http.Client // holds the token cookie after login
	dir    string       // the workspace
}

// startServer serves a workspace holding files with the model script
// (JSON lines, capabilities line included); configure adjusts the flags.
func startServer(t *testing.T, script string, files map[string]string, configure ...func(*options)) *testServer {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scriptFile := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(scriptFile, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	o := options{workspace: dir, model: "script:" + scriptFile, approvalTimeout: time.Minute}
	for _, c := range configure {
		c(&o)
	}
	srv, err := newServer(ctx, o, ln.Addr().String(), logger)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	hs.Listener.Close()
	hs.Listener = ln
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	hs.Start()
	t.Cleanup(func() {
		cancel()
		srv.stopRuns()
		hs.CloseClientConnections()
		hs.Close()
		srv.close()
	})
	jar, _ := cookiejar.New(nil)
	ts := &testServer{server: srv, url: hs.URL, client: &http.Client{Jar: jar}, dir: dir}
	resp, err := ts.client.Get(srv.startURL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" {
		t.Fatalf("login: %s at %s, want 200 at a URL without the token", resp.Status, resp.Request.URL)
	}
	return ts
}

// post sends a same-origin JSON POST, as the page does.
func (ts *testServer) post(t *testing.T, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, ts.url+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", ts.url)
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (ts *testServer) newSession(t *testing.T) string {
	t.Helper()
	code, body := ts.post(t, "/api/sessions", map[string]string{"title": "test"})
	if code != http.StatusCreated {
		t.Fatalf("create session: %d %v", code, body)
	}
	return body["id"].(string)
}

// events reads a session's event stream, calling each for every event
// until it returns true (done) or the deadline passes.
func (ts *testServer) events(t *testing.T, session string, each func(ev map[string]any) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+"/api/events?session="+session, nil)
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("events: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		if each(ev) {
			return
		}
	}
	t.Fatalf("event stream ended before the expected event: %v", sc.Err())
}

// runTurn sends a prompt, waits for the turn to finish and returns the
// checkpoint it made ("" if none).
func (ts *testServer) runTurn(t *testing.T, session, text string) string {
	t.Helper()
	if code, body := ts.post(t, "/api/prompt", map[string]string{"session": session, "text": text}); code != http.StatusAccepted {
		t.Fatalf("prompt %q: %d %v", text, code, body)
	}
	var cp string
	ts.events(t, session, func(ev map[string]any) bool {
		if ev["type"] == "run_finished" {
			cp, _ = ev["checkpoint_id"].(string)
			return true
		}
		return false
	})
	return cp
}
