package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/internal/tailbuf"
)

// ErrTransport: the server could not be reached or does not speak a
// transport Tether knows. The message names what was tried.
var ErrTransport = errors.New("mcp: cannot connect")

// attempt is one way to reach a server.
type attempt struct {
	name string // "stdio", "streamable HTTP", "legacy HTTP+SSE", "custom"
	t    sdk.Transport
}

// attempts returns the transports to try, in order, each showing w every
// message. A URL server is tried as streamable HTTP and then as legacy
// HTTP+SSE, as the spec's backwards-compatibility rules describe.
func (c *Client) attempts(ctx context.Context, w *wire) ([]attempt, error) {
	cfg := &c.cfg
	switch {
	case cfg.Command != "":
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = cfg.Dir
		cmd.Env = serverEnv(os.Environ(), cfg.Env, cfg.InheritEnv)
		c.stderr = tailbuf.New(8 << 10)
		cmd.Stderr = c.stderr
		grace := cfg.TerminateGrace
		if grace <= 0 {
			grace = DefaultTerminateGrace
		}
		return []attempt{{"stdio", tolerant{watched{&commandTransport{cmd: cmd, grace: grace, reject: c.serverStdoutLine}, w}}}}, nil
	case cfg.URL != "":
		hc, err := c.httpClient(ctx, w)
		if err != nil {
			return nil, err
		}
		sse := attempt{"legacy HTTP+SSE", &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: hc}}
		if cfg.LegacySSE {
			return []attempt{sse}, nil
		}
		st := &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc}
		if c.oauth != nil {
			// Legacy SSE has no OAuth support: falling back would only
			// hide why authorization failed.
			st.OAuthHandler = c.oauth
			return []attempt{{"streamable HTTP", st}}, nil
		}
		return []attempt{{"streamable HTTP", st}, sse}, nil
	}
	return []attempt{{"custom", tolerant{watched{cfg.Transport, w}}}}, nil
}

// httpClient is cfg.HTTPClient with the configured headers added and the
// wire watching, and prepares OAuth when configured.
func (c *Client) httpClient(ctx context.Context, w *wire) (*http.Client, error) {
	hc := c.cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	if len(c.cfg.Header) > 0 {
		base = headerTransport{base: base, header: c.cfg.Header.Clone()}
	}
	u, err := url.Parse(c.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: server %q: URL %q: %v", ErrConfig, c.cfg.Name, c.cfg.URL, err)
	}
	want := origin(u)
	base = originTransport{base: base, server: c.cfg.Name, want: want, refused: c.refused}
	if c.cfg.OAuth != nil {
		h, err := newOAuthHandler(ctx, c.cfg.Name, c.cfg.URL, c.cfg.OAuth, hc)
		if err != nil {
			return nil, err
		}
		c.oauth = h
	}
	copied := *hc
	copied.Transport = wireTransport{base: base, w: w}
	copied.CheckRedirect = sameOriginRedirects(c.cfg.Name, want, hc.CheckRedirect)
	return &copied, nil
}

// connectError reports every transport tried, each failure once (the
// SDK's own "mcp:"-prefixed messages are not prefixed again).
type connectError struct {
	server string
	tried  []string
	errs   []error
	stderr string
}

func (e *connectError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp: cannot connect to server %q", e.server)
	for i, err := range e.errs {
		if len(e.errs) == 1 {
			b.WriteString(": ")
		} else if i == 0 {
			b.WriteString(": tried ")
		} else {
			b.WriteString("; then ")
		}
		if len(e.errs) > 1 || e.tried[i] != "custom" && e.tried[i] != "stdio" {
			b.WriteString(e.tried[i] + ": ")
		}
		b.WriteString(strings.TrimPrefix(err.Error(), "mcp: "))
	}
	if len(e.errs) > 1 {
		b.WriteString(" (check the URL: the server speaks neither streamable HTTP nor legacy HTTP+SSE there)")
	}
	b.WriteString(e.stderr)
	return b.String()
}

func (e *connectError) Unwrap() []error { return append([]error{ErrTransport}, e.errs...) }

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = slices.Clone(v)
	}
	return t.base.RoundTrip(r)
}
