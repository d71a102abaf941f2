package main

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"mime"
	"net"
	"net/http"
	"strings"
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

// guard is the security boundary in front of every handler. A request
// passes only if all hold:
//   - its Host names this server by a loopback name and the right port,
//     so a DNS-rebinding page (whose Host is its own name) is refused;
//   - it carries the token, in the cookie or in the start URL;
//   - a POST comes from this origin (Origin header) and is JSON, which no
//     cross-site HTML form can send without a CORS preflight we never
//     answer;
//   - anything else is a GET or HEAD, and those never change state.
type guard struct {
	token string
	port  string          // the listening port, naming the cookie
	hosts map[string]bool // acceptable Host header values
	next  http.Handler
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
	http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
}

func (g *guard) valid(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(g.token)) == 1
}
