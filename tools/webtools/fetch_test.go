package webtools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/tools"
)

const articleHTML = `<!doctype html><html><head><title>  Tether
 Guide </title><style>body{color:red}</style><script>var secret="SCRIPT-TEXT";</script></head>
<body><nav><a href="/home">NAV-LINK</a></nav>
<header><div role="navigation">MENU-TEXT</div></header>
<main><h1>Getting started</h1><p>Read the <a href="/docs/intro">intro</a> first.</p>
<ul><li>one</li><li>two</li></ul><div hidden>HIDDEN-TEXT</div></main>
<footer>FOOTER-TEXT</footer><script>alert("SCRIPT-2")</script></body></html>`

// publicOnly allows exactly the given servers' addresses, standing in for
// public hosts: every other loopback address stays refused.
func publicOnly(servers ...*httptest.Server) func(netip.AddrPort) bool {
	allowed := map[netip.AddrPort]bool{}
	for _, s := range servers {
		allowed[netip.MustParseAddrPort(s.Listener.Addr().String())] = true
	}
	return func(ap netip.AddrPort) bool { return allowed[ap] }
}

func newFetcher(t *testing.T, cfg Config) *Fetcher {
	t.Helper()
	f, err := NewFetcher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFetchContentKinds(t *testing.T) {
	pdf, err := os.ReadFile("../pdftools/testdata/twocol.pdf")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	var gotUA string
	var mu sync.Mutex
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotUA = r.UserAgent()
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"tether","tags":["go","agent"]}`)
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain <b>not html</b>\nsecond line")
	})
	mux.HandleFunc("/paper.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	})
	mux.HandleFunc("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "<html><head><title>Sniffed</title></head><body><p>hello</p></body></html>")
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := newFetcher(t, Config{AllowAddr: publicOnly(srv)})

	tests := []struct {
		path, kind, title string
		want, notWant     []string
		err               error
	}{
		{path: "/article", kind: KindHTML, title: "Tether Guide",
			want:    []string{"# Getting started", "[intro](" + srv.URL + "/docs/intro)", "- one", "- two"},
			notWant: []string{"SCRIPT", "NAV-LINK", "MENU-TEXT", "FOOTER-TEXT", "HIDDEN-TEXT", "color:red"}},
		{path: "/data.json", kind: KindJSON, want: []string{"{\n  \"name\": \"tether\",\n  \"tags\": [\n    \"go\","}},
		{path: "/notes.txt", kind: KindText, want: []string{"plain <b>not html</b>\nsecond line"}},
		{path: "/paper.pdf", kind: KindPDF, want: []string{"--- Page 1 of 3 ---", "Left00: alpha bravo"}},
		{path: "/sniffed", kind: KindHTML, title: "Sniffed", want: []string{"hello"}},
		{path: "/image.png", err: ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := f.Fetch(context.Background(), srv.URL+tt.path)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Kind != tt.kind || p.Title != tt.title || p.FinalURL != srv.URL+tt.path {
				t.Errorf("kind %q title %q final %q; want %q %q %q", p.Kind, p.Title, p.FinalURL, tt.kind, tt.title, srv.URL+tt.path)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Text, w) {
					t.Errorf("missing %q in\n%s", w, p.Text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(p.Text, w) {
					t.Errorf("clutter %q kept in\n%s", w, p.Text)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if gotUA != DefaultUserAgent {
		t.Errorf("user agent = %q", gotUA)
	}
}

// fakeResolver answers from a table, as a hostile DNS server would.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestFetchRefusesNonPublic(t *testing.T) {
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "INTERNAL SECRET")
	}))
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, inner.URL+"/", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/to-name":
			http.Redirect(w, r, "http://rebind.test:"+inner.URL[strings.LastIndex(inner.URL, ":")+1:]+"/", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}
	}))
	defer outer.Close()
	res := fakeResolver{
		"rebind.test":   {netip.MustParseAddr("127.0.0.1")},
		"intranet.test": {netip.MustParseAddr("10.1.2.3")},
		"mapped.test":   {netip.MustParseAddr("::ffff:192.168.0.1")},
		"cgnat.test":    {netip.MustParseAddr("100.100.100.200")},
		"v6local.test":  {netip.MustParseAddr("fd00:ec2::254")},
	}
	f := newFetcher(t, Config{AllowAddr: publicOnly(outer), Resolver: res})
	tests := []struct{ url, want string }{
		{outer.URL + "/to-loopback", "loopback"},
		{outer.URL + "/to-metadata", "link-local"},
		{outer.URL + "/to-name", "rebind.test resolves to 127.0.0.1"},
		{outer.URL + "/to-file", `scheme "file"`},
		{inner.URL, "loopback"},
		{"http://intranet.test/", "resolves to 10.1.2.3, a non-public address (private)"},
		{"http://mapped.test/", "private"},
		{"http://cgnat.test/", "carrier-grade NAT"},
		{"http://v6local.test/", "private"},
		{"http://[::1]:1/", "loopback"},
		{"http://0.0.0.0:1/", "unspecified"},
		{"ftp://example.com/", "only http and https"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			p, err := f.Fetch(context.Background(), tt.url)
			if err == nil {
				t.Fatalf("fetched %q, want refusal", p.Text)
			}
			if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want ErrBlocked mentioning %q", err, tt.want)
			}
		})
	}
}

func TestGuardControlRechecks(t *testing.T) {
	g := &guard{}
	ctl := g.control("rebind.test")
	if err := ctl("tcp4", "127.0.0.1:80", nil); !errors.Is(err, ErrBlocked) {
		t.Errorf("control let loopback through: %v", err)
	}
	if err := ctl("tcp4", "93.184.216.34:443", nil); err != nil {
		t.Errorf("control refused a public address: %v", err)
	}
}

func TestFetchDomainRules(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "http://evil.test/", http.StatusFound)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	res := fakeResolver{"docs.good.test": {netip.MustParseAddr("127.0.0.1")}, "evil.test": {netip.MustParseAddr("127.0.0.1")}}
	cfg := Config{AllowAddr: publicOnly(srv), Resolver: res, AllowDomains: []string{"good.test"}, DenyDomains: []string{"bad.good.test"}}
	f := newFetcher(t, cfg)
	if _, err := f.Fetch(context.Background(), "http://docs.good.test:"+port+"/"); err != nil {
		t.Errorf("allowed subdomain refused: %v", err)
	}
	for _, u := range []string{"http://evil.test:" + port + "/", "http://bad.good.test/", "http://docs.good.test:" + port + "/away", "http://notgood.test/"} {
		if _, err := f.Fetch(context.Background(), u); !errors.Is(err, ErrBlocked) {
			t.Errorf("%s: err = %v, want ErrBlocked", u, err)
		}
	}
	if _, err := NewFetcher(Config{AllowDomains: []string{"https://x.com/"}}); err == nil {
		t.Error("a URL as a domain rule was accepted")
	}
}

func TestFetchLimits(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 2048)))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "gone", http.StatusGone)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := newFetcher(t, Config{AllowAddr: publicOnly(srv), MaxBytes: 1024, Timeout: 200 * time.Millisecond, MaxRedirects: 3})
	tests := []struct {
		path string
		is   error
		want string
	}{
		{"/big", ErrTooLarge, "larger than 1024 bytes"},
		{"/slow", nil, "within 200ms"},
		{"/loop", nil, "after 3 redirects"},
		{"/gone", nil, "410 Gone"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), srv.URL+tt.path)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReadWebpageTool(t *testing.T) {
	var page strings.Builder
	page.WriteString("<html><head><title>Long</title></head><body>")
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&page, "<p>para %d</p>", i)
	}
	page.WriteString("</body></html>")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/long", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page.String())
	}))
	defer srv.Close()
	tool := NewRead(newFetcher(t, Config{AllowAddr: publicOnly(srv)}))
	spec := tool.Describe()
	if !spec.ReadOnly || !spec.OpenWorld {
		t.Fatalf("read_webpage must declare read-only and open-world: %+v", spec)
	}
	var progress []tools.Progress
	ctx := tools.WithReporter(context.Background(), func(p tools.Progress) { progress = append(progress, p) })
	args, _ := json.Marshal(map[string]any{"link": srv.URL + "/old", "start_line": 101, "end_line": 350})
	res, err := tool.Execute(ctx, tools.Call{Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Title: Long", "URL: " + srv.URL + "/long", "(redirected from " + srv.URL + "/old)", "lines 101-350 of 599", "para 51", "call read_webpage with the same url and start_line=351"} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("missing %q in\n%s", w, res.Text[:min(len(res.Text), 400)])
		}
	}
	wantChunks := []tools.LineRange{{Start: 101, End: 200}, {Start: 201, End: 300}, {Start: 301, End: 350}}
	if fmt.Sprint(res.Meta.Chunks) != fmt.Sprint(wantChunks) || len(progress) != 3 || progress[2].StartLine != 301 || progress[2].EndLine != 350 {
		t.Errorf("chunks %v, progress %+v; want %v", res.Meta.Chunks, progress, wantChunks)
	}
	if _, err := tool.Execute(ctx, tools.Call{Arguments: json.RawMessage(`{"url":"` + srv.URL + `/long","start_line":9999}`)}); err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("past the end: %v", err)
	}
	if _, err := tool.Execute(ctx, tools.Call{Arguments: json.RawMessage(`{"url":"example.com"}`)}); err == nil || !strings.Contains(err.Error(), "https://example.com") {
		t.Errorf("no scheme: %v", err)
	}
}
