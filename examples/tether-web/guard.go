package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
)

// The token cookie carries the access token after the first visit, so
// the token leaves the address bar (and so history, Referer headers and
// screenshots) at once. Browsers share cookies between the ports of a
// host, so its name holds the port: two servers side by side (two
// workspaces) keep their own tokens.
func (g *guard) cookieName() string { return "tether_token_" + g.port }

// contentSecurityPolicy lets the page load only its own files and talk
// only to this server: no inline script, no eval, no remote anything, no
// framing, no form posts anywhere. Model output that slips markup into the
// DOM still cannot run.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// pageSecretHeader carries the page's secret on every API request; the
// event stream, which EventSource opens without headers, carries it as the
// query parameter "secret".
const pageSecretHeader = "X-Tether-Secret"

// guard is the security boundary in front of every handler. A request
// passes only if all hold:
//   - its Host names this server by a loopback name and the right port,
//     so a DNS-rebinding page (whose Host is its own name) is refused;
//   - it carries the token, in the cookie or in the start URL;
//   - an API request (/api/…) also carries the page secret. Cookies are
//     not isolated by port (RFC 6265 §8.5): the browser sends the token
//     cookie to every server on 127.0.0.1, a dev server the agent started
//     included, and a program holding it could answer approval cards. The
//     secret reaches only the page: the token trade redirects to
//     /#secret=…, a fragment no server receives, and the page keeps it in
//     sessionStorage and sends it in the X-Tether-Secret header;
//   - a POST comes from this origin (Origin header) and is JSON, which no
//     cross-site HTML form can send without a CORS preflight we never
//     answer;
//   - anything else is a GET or HEAD, and those never change state.
type guard struct {
	token  string
	secret string          // the page secret; see pageSecretHeader
	port   string          // the listening port, naming the cookie
	hosts  map[string]bool // acceptable Host header values
	next   http.Handler
	// bodyTimeout bounds reading a request's body, with or without the
	// token, so a client trickling a body a byte at a time cannot hold a
	// connection and a goroutine as long as it likes.
	bodyTimeout time.Duration
}

func newToken() string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// allowedHosts lists the Host values that name the server at addr: the
// address itself and, for a loopback address, localhost and the other
// loopback spellings with the same port.
func allowedHosts(addr string) map[string]bool {
	hosts := map[string]bool{addr: true}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return hosts
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		for _, h := range []string{"127.0.0.1", "localhost", "::1"} {
			hosts[net.JoinHostPort(h, port)] = true
		}
	}
	return hosts
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")

	g.limitBody(w, r)
	if !g.hosts[strings.ToLower(r.Host)] {
		http.Error(w, "forbidden: Host "+r.Host+" does not name this server; open the URL it printed", http.StatusForbidden)
		return
	}
	if q := r.URL.Query().Get("token"); q != "" {
		g.trade(w, r, q)
		return
	}
	c, err := r.Cookie(g.cookieName())
	if err != nil || !g.valid(c.Value) {
		http.Error(w, "unauthorized: no valid token; open the URL the server printed at start", http.StatusUnauthorized)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") && !g.validSecret(r) {
		http.Error(w, "unauthorized: the request lacks the page secret ("+pageSecretHeader+"); the token cookie alone is not enough, since every server on this host receives it. Open the URL the server printed at start", http.StatusUnauthorized)
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		if origin := r.Header.Get("Origin"); origin != "http://"+r.Host {
			http.Error(w, "forbidden: cross-origin request (Origin "+origin+")", http.StatusForbidden)
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			http.Error(w, "unsupported media type: POST a JSON body with Content-Type application/json", http.StatusUnsupportedMediaType)
			return
		}
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed: "+r.Method, http.StatusMethodNotAllowed)
		return
	}
	g.next.ServeHTTP(w, r)
}

// trade exchanges the token of the start URL for the cookie and
// redirects to the same path without it. Only a GET can do this, so a
// page cannot log the browser in by posting a form.
func (g *guard) trade(w http.ResponseWriter, r *http.Request, token string) {
	if r.Method != http.MethodGet || !g.valid(token) {
		http.Error(w, "unauthorized: wrong token; open the URL the server printed at start", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: g.cookieName(), Value: g.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	u := *r.URL
	q := u.Query()
	q.Del("token")
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.RequestURI()+"#secret="+g.secret, http.StatusSeeOther)
}

func (g *guard) valid(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(g.token)) == 1
}

func (g *guard) validSecret(r *http.Request) bool {
	s := r.Header.Get(pageSecretHeader)
	if s == "" && r.URL.Path == "/api/events" {
		s = r.URL.Query().Get("secret")
	}
	return subtle.ConstantTimeCompare([]byte(s), []byte(g.secret)) == 1
}

// limitBody gives reading r's body until bodyTimeout from now. The read
// deadline is lifted once the body is read, since the server's watch for
// a client hanging up reads the connection after that, and a deadline
// there would end a long response (the event stream, a held POST). A
// request without a body is left alone for the same reason.
func (g *guard) limitBody(w http.ResponseWriter, r *http.Request) {
	if g.bodyTimeout <= 0 || r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(g.bodyTimeout)) != nil {
		return
	}
	r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// deadlineBody lifts the connection's read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	lift func()
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.lift()
	}
	return n, err
}
