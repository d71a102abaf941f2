package agent

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools/webtools"
)

// TestFetchSkill: the envelope's fetch skill reads a page through
// read_webpage's policy and approval: in a read-only mode a domain the
// host allows is read unasked and any other is refused; in agent mode a
// page off the allow list is asked about, with its URL.
func TestFetchSkill(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Docs</title></head><body><nav>MENU</nav><p>Use <code>go test</code>.</p></body></html>")
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	allowed := netip.MustParseAddrPort(srv.Listener.Addr().String())
	fetcher := func(domains ...string) *webtools.Fetcher {
		f, err := webtools.NewFetcher(webtools.Config{AllowAddr: func(ap netip.AddrPort) bool { return ap == allowed },
			Resolver: loopbackResolver{}, AllowDomains: domains})
		require.NoError(t, err)
		return f
	}

	e := newEnv(t, `{"tool_calls":[{"name":"fetch","arguments":{"url":"http://docs.test:`+port+`/"}},{"name":"fetch","arguments":{"url":"http://other.test:`+port+`/"}}]}
{"content":"Done. [TASK_COMPLETE]"}`, nil)
	cfg := e.config()
	cfg.Skills = []Skill{FetchSkill(webtools.NewRead(fetcher("docs.test")))}
	cfg.Mode = ModeExplore
	res, err := e.run(cfg, "How are tests run?")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	acts := e.rec.actions()
	require.Equal(t, "skill__fetch", acts[0].Tool)
	require.Equal(t, event.StatusSuccess, acts[0].Status, acts[0].Output)
	require.Contains(t, acts[0].Output, "Title: Docs")
	require.Contains(t, acts[0].Output, "Use `go test`.")
	require.NotContains(t, acts[0].Output, "MENU")
	require.Equal(t, event.StatusDenied, acts[1].Status)
	require.Contains(t, acts[1].Output, "not on the host's allow list")

	e2 := newEnv(t, `{"tool_calls":[{"name":"fetch","arguments":{"url":"`+srv.URL+`"}}]}
{"content":"Done. [TASK_COMPLETE]"}`, nil)
	cfg2 := e2.config()
	ap := &approver{answer: allowAll}
	cfg2.Approver = ap
	cfg2.Skills = []Skill{FetchSkill(webtools.NewRead(fetcher()))}
	_, err = e2.run(cfg2, "How are tests run?")
	require.NoError(t, err)
	require.Len(t, ap.asked, 1)
	require.Equal(t, srv.URL, ap.asked[0].Subject())
	acts2 := e2.rec.actions()
	require.Equal(t, event.StatusSuccess, acts2[len(acts2)-1].Status, acts2[len(acts2)-1].Output)
}

// TestVirtualTerminalSkill: commands go through the run's persistent
// shell, so the directory carries over, and through its approval.
func TestVirtualTerminalSkill(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"virtual_terminal","arguments":{"command":"cd sub"}}]}
{"tool_calls":[{"name":"virtual_terminal","arguments":{"cmd":"cat note.txt"}},{"name":"virtual_terminal","arguments":{}}]}
{"content":"Done. [TASK_COMPLETE]"}`, map[string]string{"sub/note.txt": "in-sub"})
	cfg := e.config()
	ap := &approver{answer: allowAll}
	cfg.Approver = ap
	cfg.Skills = []Skill{VirtualTerminalSkill()}
	_, err := e.run(cfg, "look in sub")
	require.NoError(t, err)
	acts := e.rec.actions()
	require.Equal(t, "skill__virtual_terminal", acts[0].Tool)
	require.Equal(t, event.StatusSuccess, acts[1].Status, acts[1].Output)
	require.Contains(t, acts[1].Output, "in-sub", "the cd of the first call carried over")
	require.Equal(t, event.StatusError, acts[2].Status)
	require.Contains(t, acts[2].Output, `"command" is empty`)
	require.NotEmpty(t, ap.asked, "commands were judged like run_terminal_command")

	// In a read-only mode there is no shell.
	e2 := newEnv(t, `{"tool_calls":[{"name":"virtual_terminal","arguments":{"command":"touch x"}}]}
{"content":"Done. [TASK_COMPLETE]"}`, nil)
	cfg2 := e2.config()
	cfg2.Skills = []Skill{VirtualTerminalSkill()}
	cfg2.Mode = ModePlan
	_, err = e2.run(cfg2, "plan")
	require.NoError(t, err)
	_, statErr := os.Stat(filepath.Join(e2.dir, "x"))
	require.True(t, os.IsNotExist(statErr))
	acts2 := e2.rec.actions()
	require.Len(t, acts2, 1)
	require.NotEqual(t, event.StatusSuccess, acts2[0].Status)
}
