package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestGuardRefuses checks the security boundary: every request needs the
// token and this server's Host, every API request the page secret; a POST
// needs this Origin and a JSON body; GETs change nothing. Requests with
// the valid cookie carry the page secret unless the case says otherwise.
func TestGuardRefuses(t *testing.T) {
	ts := startServer(t, `{"capabilities":{"tools":true}}`+"\n", nil)
	session := ts.newSession(t)
	cookie := &http.Cookie{Name: ts.guard.cookieName(), Value: ts.guard.token}
	prompt := `{"session":"` + session + `","text":"hi"}`
	withFile := `{"session":"` + session + `","text":"hi","attachments":[{"name":"a.txt","type":"text/plain","data":"aGkK"}]}`
	tests := []struct {
		name        string
		method      string
		path        string
		host        string // "" = the server's own
		cookie      *http.Cookie
		origin      string
		contentType string
		body        string
		secret      string // "" = the right one when the cookie is right; "-" = none
		want        int
	}{
		{name: "page without token", method: "GET", path: "/", want: http.StatusUnauthorized},
		{name: "api without token", method: "GET", path: "/api/sessions", want: http.StatusUnauthorized},
		{name: "events without token", method: "GET", path: "/api/events?session=" + session, want: http.StatusUnauthorized},
		{name: "wrong token in cookie", method: "GET", path: "/api/sessions", cookie: &http.Cookie{Name: ts.guard.cookieName(), Value: "guess"}, want: http.StatusUnauthorized},
		{name: "wrong token in URL", method: "GET", path: "/?token=guess", want: http.StatusUnauthorized},
		{name: "token in URL of a POST", method: "POST", path: "/api/prompt?token=" + ts.guard.token, origin: ts.url, contentType: "application/json", body: prompt, want: http.StatusUnauthorized},
		{name: "DNS rebinding: foreign Host", method: "GET", path: "/api/sessions", host: "evil.example:80", cookie: cookie, want: http.StatusForbidden},
		{name: "foreign Host with the port", method: "GET", path: "/api/sessions", host: "evil.example:" + ts.url[strings.LastIndex(ts.url, ":")+1:], cookie: cookie, want: http.StatusForbidden},
		{name: "foreign Origin", method: "POST", path: "/api/prompt", cookie: cookie, origin: "http://evil.example", contentType: "application/json", body: prompt, want: http.StatusForbidden},
		{name: "no Origin", method: "POST", path: "/api/prompt", cookie: cookie, contentType: "application/json", body: prompt, want: http.StatusForbidden},
		{name: "cross-site form POST", method: "POST", path: "/api/prompt", cookie: cookie, origin: "http://evil.example", contentType: "application/x-www-form-urlencoded", body: "session=" + session + "&text=hi", want: http.StatusForbidden},
		{name: "same-origin form POST", method: "POST", path: "/api/prompt", cookie: cookie, origin: ts.url, contentType: "application/x-www-form-urlencoded", body: "session=" + session + "&text=hi", want: http.StatusUnsupportedMediaType},
		{name: "text/plain POST", method: "POST", path: "/api/prompt", cookie: cookie, origin: ts.url, contentType: "text/plain", body: prompt, want: http.StatusUnsupportedMediaType},
		{name: "GET cannot prompt", method: "GET", path: "/api/prompt?session=" + session + "&text=hi", cookie: cookie, want: http.StatusNotFound},
		{name: "GET cannot undo", method: "GET", path: "/api/checkpoint", cookie: cookie, want: http.StatusNotFound},
		{name: "PUT", method: "PUT", path: "/api/prompt", cookie: cookie, origin: ts.url, contentType: "application/json", body: prompt, want: http.StatusMethodNotAllowed},
		{name: "unknown JSON field", method: "POST", path: "/api/prompt", cookie: cookie, origin: ts.url, contentType: "application/json", body: `{"session":"` + session + `","txt":"hi"}`, want: http.StatusBadRequest},
		// Cookies are not isolated by port (RFC 6265 §8.5): any server on
		// 127.0.0.1 the browser visits receives the cookie. Holding only
		// the cookie reads nothing and answers nothing.
		{name: "cookie alone: list sessions", method: "GET", path: "/api/sessions", cookie: cookie, secret: "-", want: http.StatusUnauthorized},
		{name: "cookie alone: event stream", method: "GET", path: "/api/events?session=" + session, cookie: cookie, secret: "-", want: http.StatusUnauthorized},
		{name: "cookie alone: answer an approval card", method: "POST", path: "/api/approve", cookie: cookie, secret: "-", origin: ts.url, contentType: "application/json", body: `{"id":"req_1","choice":"allow"}`, want: http.StatusUnauthorized},
		{name: "cookie alone: prompt", method: "POST", path: "/api/prompt", cookie: cookie, secret: "-", origin: ts.url, contentType: "application/json", body: prompt, want: http.StatusUnauthorized},
		// Attachments ride the same guarded JSON POST: no multipart
		// upload, no cookie-only or cross-origin one.
		{name: "attachment: cookie alone", method: "POST", path: "/api/prompt", cookie: cookie, secret: "-", origin: ts.url, contentType: "application/json", body: withFile, want: http.StatusUnauthorized},
		{name: "attachment: foreign Origin", method: "POST", path: "/api/prompt", cookie: cookie, origin: "http://evil.example", contentType: "application/json", body: withFile, want: http.StatusForbidden},
		{name: "attachment: multipart upload", method: "POST", path: "/api/prompt", cookie: cookie, origin: ts.url, contentType: "multipart/form-data; boundary=x", body: "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhi\r\n--x--\r\n", want: http.StatusUnsupportedMediaType},
		{name: "cookie and a guessed secret", method: "GET", path: "/api/sessions", cookie: cookie, secret: "guess", want: http.StatusUnauthorized},
		{name: "cookie and the token as the secret", method: "GET", path: "/api/sessions", cookie: cookie, secret: ts.guard.token, want: http.StatusUnauthorized},
		{name: "allowed: page", method: "GET", path: "/", cookie: cookie, want: http.StatusOK},
		{name: "allowed: localhost Host", method: "GET", path: "/api/sessions", host: "localhost:" + ts.url[strings.LastIndex(ts.url, ":")+1:], cookie: cookie, want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, ts.url+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			if tt.cookie != nil {
				req.AddCookie(tt.cookie)
			}
			switch {
			case tt.secret == "" && tt.cookie == cookie:
				req.Header.Set(pageSecretHeader, ts.secret)
			case tt.secret != "" && tt.secret != "-":
				req.Header.Set(pageSecretHeader, tt.secret)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp, err := http.DefaultTransport.RoundTrip(req) // no cookie jar, no redirects
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
		})
	}
	// None of the refused prompts started a turn.
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if l := ts.logs[session]; l != nil && len(l.entries) != 0 {
		t.Errorf("a refused request ran a turn: %d events", len(l.entries))
	}
}

// TestStartURLTradesTokenForCookie checks that the token leaves the
// address bar: the start URL sets an HttpOnly, SameSite=Strict cookie and
// redirects to the same page without it, handing the page its secret.
func TestStartURLTradesTokenForCookie(t *testing.T) {
	ts := startServer(t, `{"capabilities":{"tools":true}}`+"\n", nil)
	req, _ := http.NewRequest("GET", ts.startURL(), nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := "/#secret=" + ts.guard.secret; resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
		t.Fatalf("status %d, Location %q; want 303 to %s (the page secret in a fragment no server sees)", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	c := resp.Cookies()
	if len(c) != 1 || c[0].Name != ts.guard.cookieName() || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookies %+v: want one HttpOnly SameSite=Strict token cookie", c)
	}
	if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("Referrer-Policy %q", got)
	}
}

func TestAllowedHosts(t *testing.T) {
	tests := []struct {
		addr string
		host string
		want bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "localhost:8080", true},
		{"127.0.0.1:8080", "[::1]:8080", true},
		{"127.0.0.1:8080", "localhost:8081", false},
		{"127.0.0.1:8080", "localhost", false},
		{"127.0.0.1:8080", "127.0.0.1.evil.example:8080", false},
		{"192.168.1.5:8080", "192.168.1.5:8080", true},
		{"192.168.1.5:8080", "localhost:8080", false},
	}
	for _, tt := range tests {
		if got := allowedHosts(tt.addr)[tt.host]; got != tt.want {
			t.Errorf("allowedHosts(%q)[%q] = %v, want %v", tt.addr, tt.host, got, tt.want)
		}
	}
}
