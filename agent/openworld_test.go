package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/tools/webtools"
)

// loopbackResolver resolves every name to 127.0.0.1, where the test's
// page server listens.
type loopbackResolver struct{}

func (loopbackResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// pageServer serves one HTML page and counts how often it was fetched.
func pageServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Docs</title></head><body><p>PAGE-TEXT</p></body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// TestOpenWorldReadNeedsApproval: read_webpage is read-only but reaches
// the internet, so it is confirm-level unless the host's domain allow
// list covers the page: a person is asked with the URL as the subject,
// headless denies without fetching, a read-only mode (which cannot ask)
// refuses, and an allowed domain is read unasked.
func TestOpenWorldReadNeedsApproval(t *testing.T) {
	srv, hits := pageServer(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	onlySrv := func(ap netip.AddrPort) bool { return ap.String() == srv.Listener.Addr().String() }
	tests := []struct {
		name    string
		url     string
		domains []string
		setup   func(cfg *Config, ap *approver)
		asked   bool // a person was asked, with the URL as the subject
		fetched bool
		status  event.ActionStatus
	}{
		{"asked and approved", srv.URL + "/a", nil, func(cfg *Config, ap *approver) { ap.answer = allowAll }, true, true, event.StatusSuccess},
		{"asked and refused", srv.URL + "/a", nil, func(cfg *Config, ap *approver) { ap.answer = denyAll }, true, false, event.StatusDenied},
		{"headless denies", srv.URL + "/a", nil, func(cfg *Config, ap *approver) { cfg.Approver, cfg.Policy = nil, approval.Headless(nil) }, false, false, event.StatusDenied},
		{"read-only mode refuses", srv.URL + "/a", nil, func(cfg *Config, ap *approver) { ap.answer, cfg.Mode = allowAll, ModeExplore }, false, false, event.StatusDenied},
		{"domain not on the allow list is never reached", "http://other.test:" + port + "/a", []string{"docs.test"}, func(cfg *Config, ap *approver) { ap.answer = allowAll }, false, false, event.StatusDenied},
		{"allowed domain runs unasked", "http://docs.test:" + port + "/a", []string{"docs.test"}, func(cfg *Config, ap *approver) { ap.answer = denyAll }, false, true, event.StatusSuccess},
		{"allowed domain, headless", "http://docs.test:" + port + "/a", []string{"docs.test"}, func(cfg *Config, ap *approver) { cfg.Approver, cfg.Policy = nil, approval.Headless(nil) }, false, true, event.StatusSuccess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBothModes(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_webpage","arguments":{"url":"`+tt.url+`"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`, nil, func(t *testing.T, e *env) {
				f, err := webtools.NewFetcher(webtools.Config{AllowAddr: onlySrv, Resolver: loopbackResolver{}, AllowDomains: tt.domains})
				require.NoError(t, err)
				require.NoError(t, e.reg.Register(webtools.NewRead(f)))
				before := hits.Load()
				ap := &approver{}
				cfg := e.config()
				cfg.Approver = ap
				tt.setup(&cfg, ap)
				_, err = e.run(cfg, "Read the docs")
				require.NoError(t, err)

				if tt.asked {
					require.Len(t, ap.asked, 1)
					assert.Equal(t, approval.KindOther, ap.asked[0].Kind)
					assert.Equal(t, tt.url, ap.asked[0].Subject(), "the person sees the exact URL")
					req := eventsOf[event.ApprovalRequested](e.rec)
					require.Len(t, req, 1)
					assert.Equal(t, tt.url, req[0].Display.Subject)
				} else {
					assert.Empty(t, ap.asked)
				}
				assert.Equal(t, tt.fetched, hits.Load() > before, "fetched")
				acts := e.rec.actions()
				require.NotEmpty(t, acts)
				last := acts[len(acts)-1]
				assert.Equal(t, tt.status, last.Status, last.Output)
				if tt.fetched {
					assert.Contains(t, lastResult(e.model.Requests()[1]), "PAGE-TEXT")
				} else {
					assert.NotContains(t, lastResult(e.model.Requests()[1]), "PAGE-TEXT")
				}
			})
		})
	}
}
