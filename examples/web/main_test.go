package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"help teaches", []string{"-h"}, 0, "go run ./examples/web -workspace DIR -model MODEL"},
		{"model required", []string{"-workspace", "."}, 2, "-model is required"},
		{"stray argument", []string{"-model", "script:x", "serve"}, 2, `unexpected argument "serve"`},
		{"bad timeout", []string{"-model", "script:x", "-approval-timeout", "0s"}, 2, "want a positive duration"},
		{"missing script", []string{"-model", "script:/nonexistent/s.jsonl", "-workspace", t.TempDir()}, 1, "s.jsonl"},
		{"bad address", []string{"-model", "script:x", "-addr", "256.0.0.1:0"}, 1, "256.0.0.1"},
		{"no port", []string{"-model", "script:x", "-addr", "127.0.0.1"}, 2, "want HOST:PORT"},
		{"every interface", []string{"-model", "script:x", "-addr", "0.0.0.0:8080"}, 2, "listens on every interface"},
		{"every interface, no host", []string{"-model", "script:x", "-addr", ":8080"}, 2, "listens on every interface"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tt.args, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.inStderr, stderr.String())
			}
		})
	}
}

// TestRunServesUntilCancelled starts the command as a user would, opens
// the URL it prints and stops it.
func TestRunServesUntilCancelled(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-workspace", t.TempDir(), "-model", "script:" + script}, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url string
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
			url = u
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "?token=") {
		t.Fatalf("printed URL %q: want a loopback URL with a token", url)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `<script type="module" src="app.js">`) {
		t.Fatalf("page: %s\n%s", resp.Status, page)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after cancel, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}
