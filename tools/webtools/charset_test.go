package webtools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestFetchDecodesCharset: a page not in UTF-8 is decoded by the charset
// it declares (header, <meta>, or the windows-1252 default for HTML
// that declares none), so the model reads "café", not replacement
// characters.
func TestFetchDecodesCharset(t *testing.T) {
	latin1 := func(s string) string { // as ISO-8859-1 (€ as windows-1252) bytes
		return strings.NewReplacer("é", "\xe9", "ü", "\xfc", "ß", "\xdf", "€", "\x80").Replace(s)
	}
	tests := []struct {
		name, contentType, body string
		want                    []string
		err                     string
	}{
		{"meta charset", "text/html", latin1(`<html><head><meta charset="iso-8859-1"><title>Café</title></head><body><p>Grüße aus dem Café</p></body></html>`),
			[]string{"Title: Café", "Grüße aus dem Café"}, ""},
		{"http-equiv", "text/html", latin1(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"><title>Menü</title></head><body>Menü</body></html>`),
			[]string{"Title: Menü"}, ""},
		{"header charset wins", "text/html; charset=iso-8859-1", latin1(`<html><head><meta charset="utf-8"><title>Café</title></head><body>x</body></html>`),
			[]string{"Title: Café"}, ""},
		{"no declaration, not UTF-8", "text/html", latin1(`<html><head><title>Preis 5 €</title></head><body>x</body></html>`),
			[]string{"Title: Preis 5 €"}, ""},
		{"UTF-8 untouched", "text/html", `<html><head><title>Café ☕</title></head><body>x</body></html>`,
			[]string{"Title: Café ☕"}, ""},
		{"plain text with charset", "text/plain; charset=latin1", latin1("Grüße"), []string{"Grüße"}, ""},
		{"unknown charset", "text/plain; charset=klingon-8", "x", nil, `charset "klingon-8"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			f := newFetcher(t, Config{AllowAddr: publicOnly(srv)})
			res, err := f.read(context.Background(), ReadArgs{URL: srv.URL})
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrUnsupported naming %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("missing %q in\n%s", w, res.Text)
				}
			}
			if strings.ContainsRune(res.Text, '\uFFFD') {
				t.Errorf("replacement characters in\n%s", res.Text)
			}
		})
	}
}
