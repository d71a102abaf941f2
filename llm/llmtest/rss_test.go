package llmtest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
)

// endlessServer streams unit after head forever (until the client goes).
func endlessServer(contentType, head, unit string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/show") || strings.HasSuffix(r.URL.Path, "/models") || strings.HasSuffix(r.URL.Path, "/props") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, head)
		block := []byte(strings.Repeat(unit, max(1, (64<<10)/len(unit))))
		for {
			if _, err := w.Write(block); err != nil {
				return
			}
		}
	}))
}

// TestPeakRSS runs, in a child process each, a client of a server that
// streams content forever (NDJSON and SSE) and one that never ends an
// SSE event, with the default limits, and reports the child's peak
// resident memory. Without limits the same clients grew past 1 GiB in
// seconds; with them the peak stays within a small multiple of the 8 MiB
// bound.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from /proc/self/status (VmHWM)")
	}
	if os.Getenv("LLMTEST_RSS_CHILD") != "" {
		t.Skip("child")
	}
	for _, wire := range []string{"ndjson", "sse", "sse_unterminated"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSChild$", "-test.v")
		cmd.Env = append(os.Environ(), "LLMTEST_RSS_CHILD="+wire)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", wire, err, out)
		}
		var hwm int
		for _, line := range strings.Split(string(out), "\n") {
			if _, err := fmt.Sscanf(strings.TrimSpace(line), "peak_rss_kib=%d", &hwm); err == nil {
				break
			}
		}
		if hwm == 0 {
			t.Fatalf("%s: no figure in\n%s", wire, out)
		}
		t.Logf("%s: peak RSS %.1f MiB", wire, float64(hwm)/1024)
		if hwm > 256<<10 {
			t.Errorf("%s: peak RSS %d KiB: the stream is not bounded", wire, hwm)
		}
	}
}

func TestPeakRSSChild(t *testing.T) {
	wire := os.Getenv("LLMTEST_RSS_CHILD")
	if wire == "" {
		t.Skip("run by TestPeakRSS")
	}
	pad := strings.Repeat("x", 4096)
	var (
		srv *httptest.Server
		m   llm.Model
		err error
	)
	switch wire {
	case "ndjson":
		srv = endlessServer("application/x-ndjson", "", `{"model":"m","message":{"role":"assistant","content":"`+pad+`"},"done":false}`+"\n")
		m, err = ollama.New(ollama.Config{Host: srv.URL, Model: "m"})
	case "sse":
		srv = endlessServer("text/event-stream", "", `data: {"id":"c","choices":[{"index":0,"delta":{"content":"`+pad+`"}}]}`+"\n\n")
		m, err = openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
	case "sse_unterminated":
		srv = endlessServer("text/event-stream", "", `data: {"id":"c","choices":[{"index":0,"delta":{"content":"`+pad+`"}}]}`+"\n")
		m, err = openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = llm.Collect(m.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	if !errors.Is(err, llm.ErrResponseLimit) {
		t.Fatalf("err = %v, want a response limit", err)
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fmt.Printf("peak_rss_kib=%s\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
}
