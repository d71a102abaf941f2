package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetherdev/tether/tools"
)

// TestBlindOtherOrigin: the configured headers (Authorization included)
// and the session's messages go to the configured URL's origin only.
// Cases written from public reports, before the fix:
//   - curl CVE-2018-1000007: credentials leaked on a redirect to another
//     host. Here to another host name, and to another port of the same
//     host (an origin includes the port; RFC 6454 §4).
//   - the MCP Python SDK's SSE client validates that the legacy endpoint
//     event names the connection's origin; an endpoint event naming
//     another origin must not receive the session.
//   - a same-origin redirect (RFC 9110 §15.4.8, 307) keeps working.
func TestBlindOtherOrigin(t *testing.T) {
	var elsewhere atomic.Int32 // requests the other origin received
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if a := r.Header.Get("Authorization"); a != "" {
			leaked.Store(a)
		}
		http.Error(w, "not the configured server", http.StatusTeapot)
	}))
	defer other.Close()
	otherPort := other.URL[strings.LastIndex(other.URL, ":")+1:]

	ws := workspace(t, map[string]string{"a.txt": "over http\n"})
	h := Handler(builtinServer(t, ws, ServeOptions{}))
	configured := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-other-host":
			http.Redirect(w, r, "http://localhost:"+otherPort+"/mcp", http.StatusTemporaryRedirect)
		case "/to-other-port":
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
		case "/sse-elsewhere":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s/message?sessionId=x\n\n", other.URL)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			h.ServeHTTP(w, r)
		}
	}))
	defer configured.Close()

	cases := []struct {
		name, path string
		legacy     bool
		refused    bool
	}{
		{"redirect to another host", "/to-other-host", false, true},
		{"redirect to another port of the host", "/to-other-port", false, true},
		{"legacy SSE endpoint event naming another origin", "/sse-elsewhere", true, true},
		{"same-origin redirect", "/moved", false, false},
	}
	right := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			before := elsewhere.Load()
			c, err := Connect(ctx, ServerConfig{Name: "web", URL: configured.URL + tc.path, LegacySSE: tc.legacy,
				Header: http.Header{"Authorization": {"Bearer s3cret"}}, Rules: Rules{Allow: []string{"read_file"}}})
			if err == nil {
				defer c.Close()
				var reg tools.Registry
				if _, err = c.Register(ctx, &reg); err == nil {
					if res := reg.Execute(ctx, tools.Call{Name: "web__read_file", Arguments: []byte(`{"path":"a.txt"}`)}); res.IsError {
						err = errors.New(res.Text)
					}
				}
			}
			switch {
			case tc.refused && (err == nil || !errors.Is(err, ErrOtherOrigin) && !strings.Contains(err.Error(), ErrOtherOrigin.Error())):
				t.Errorf("err = %v; want ErrOtherOrigin", err)
			case tc.refused && elsewhere.Load() != before:
				t.Errorf("the other origin received %d requests", elsewhere.Load()-before)
			case !tc.refused && err != nil:
				t.Errorf("same-origin: %v", err)
			default:
				right++
			}
		})
	}
	if a := leaked.Load(); a != nil {
		t.Errorf("the other origin received Authorization %q", a)
	}
	t.Logf("blind other-origin cases: %d/%d right", right, len(cases))
}
