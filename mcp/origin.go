package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// ErrOtherOrigin: a request of a URL server's session was to go to another
// origin than the configured URL's, and was refused.
var ErrOtherOrigin = errors.New("mcp: request to another origin refused")

// A URL server's session talks to the configured URL's origin (scheme,
// host and port) and nowhere else. Its configured headers, Authorization
// included, are meant for that server: a redirect to another origin, or a
// legacy HTTP+SSE endpoint event naming one, must not carry them there,
// nor send the session's messages there without them. Both are refused;
// OAuth's own requests to an authorization server are not part of the
// session and are unaffected.

// origin is u's scheme and host, lower-cased, with the scheme's default
// port made explicit, so that equal origins compare equal.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// originTransport refuses every request whose URL is not on want, and
// keeps the first refusal in refused.
type originTransport struct {
	base    http.RoundTripper
	server  string
	want    string // origin(configured URL)
	refused *refusal
}

// refusal is the first request an origin guard refused. Whoever made the
// request may report its failure otherwise (the SDK ends a legacy SSE
// session and its initialize call sees the session closing); Connect
// reports this cause instead.
type refusal struct {
	mu  sync.Mutex
	err error
}

func (r *refusal) set(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	return err
}

// take returns the refusal kept since the last take, and forgets it.
func (r *refusal) take() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.err
	r.err = nil
	return err
}

func (t originTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if got := origin(r.URL); got != t.want {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, t.refused.set(fmt.Errorf("%w: server %q is configured at %s, and a request of its session was to go to %s (a redirect, or an SSE endpoint event naming another origin); its headers and messages stay with the configured origin", ErrOtherOrigin, t.server, t.want, got))
	}
	return t.base.RoundTrip(r)
}

// sameOriginRedirects is a CheckRedirect that refuses a redirect to
// another origin, then asks the host's own check (next), if any, or keeps
// net/http's limit of 10.
func sameOriginRedirects(server, want string, next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(r *http.Request, via []*http.Request) error {
		if got := origin(r.URL); got != want {
			return fmt.Errorf("%w: server %q at %s redirected to %s; its headers and messages stay with the configured origin", ErrOtherOrigin, server, want, got)
		}
		if next != nil {
			return next(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}
