package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tetherdev/tether/llm"
)

// TestWireLogAttempts: each attempt of a retried request is its own pair
// of lines, the request body is logged on every attempt, a secret query
// parameter and header are redacted, and a cut response says so.
func TestWireLogAttempts(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, strings.Repeat("x", maxWireBody+10))
	}))
	defer srv.Close()
	var wire bytes.Buffer
	hc := &http.Client{Transport: &Transport{Base: srv.Client().Transport, Retry: llm.RetryPolicy{Sleep: instant},
		Wire: NewWireLog(&wire), Header: http.Header{"Authorization": {"Bearer tok-123456789"}}}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/chat?key=tok-123456789&x=1", strings.NewReader(`{"a":1}`))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	if strings.Contains(wire.String(), "tok-123456789") {
		t.Fatalf("secret in the wire log:\n%.500s", wire.String())
	}
	type line struct {
		ID        string          `json:"id"`
		Event     string          `json:"event"`
		URL       string          `json:"url"`
		Status    int             `json:"status"`
		Body      json.RawMessage `json:"body"`
		BodyBytes int             `json:"body_bytes"`
		Truncated bool            `json:"truncated"`
	}
	var lines []line
	sc := bufio.NewScanner(&wire)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4 (two attempts)", len(lines))
	}
	if lines[0].ID != lines[1].ID || lines[2].ID != lines[3].ID || lines[0].ID == lines[2].ID {
		t.Errorf("ids: %s %s %s %s", lines[0].ID, lines[1].ID, lines[2].ID, lines[3].ID)
	}
	for _, i := range []int{0, 2} {
		if string(lines[i].Body) != `{"a":1}` || !strings.Contains(lines[i].URL, "key=%5BREDACTED%5D") {
			t.Errorf("request line %d: body %s url %s", i, lines[i].Body, lines[i].URL)
		}
	}
	if lines[1].Status != 503 || lines[3].Status != 200 || !lines[3].Truncated || lines[3].BodyBytes != maxWireBody+10 {
		t.Errorf("responses: %+v / %+v", lines[1], lines[3].Status)
	}
}
