package webtools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func TestReadWebpageDeclaresEffects(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		url      string
		decision safety.Decision // zero: no verdict, a person is asked
		reason   string          // in Reasons, or in the error when errText is set
		errText  string
	}{
		{"no rules: no verdict", Config{}, "https://example.com/a", 0, "", ""},
		{"allow list covers the host", Config{AllowDomains: []string{"go.dev"}}, "https://pkg.go.dev/net/http", safety.Allow, "pkg.go.dev is on the host's allow list", ""},
		{"off the allow list", Config{AllowDomains: []string{"go.dev"}}, "https://evil.test/", safety.Deny, "not on the host's allow list", ""},
		{"every domain approved", Config{ApproveAllDomains: true}, "https://example.com/a", safety.Allow, "every public domain", ""},
		{"deny wins over approving every domain", Config{ApproveAllDomains: true, DenyDomains: []string{"evil.test"}}, "https://evil.test/", safety.Deny, "deny list", ""},
		{"deny list", Config{DenyDomains: []string{"evil.test"}}, "https://a.evil.test/", safety.Deny, "deny list", ""},
		{"deny wins over allow", Config{AllowDomains: []string{"good.test"}, DenyDomains: []string{"bad.good.test"}}, "https://bad.good.test/", safety.Deny, "deny list", ""},
		{"not http", Config{}, "file:///etc/passwd", safety.Deny, "only http and https", ""},
		{"no scheme", Config{}, "example.com", 0, "", "no scheme"},
		{"empty", Config{}, " ", 0, "", `"url" is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reg tools.Registry
			if err := reg.Register(NewRead(newFetcher(t, tt.cfg))); err != nil {
				t.Fatal(err)
			}
			args, _ := json.Marshal(map[string]string{"url": tt.url})
			call, err := reg.Prepare(tools.Call{Name: ReadName, Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			e, err := reg.Effects(context.Background(), call)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want one saying %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !e.Declared || !e.ReadOnly || !e.OpenWorld || e.URL != tt.url || len(e.Reads) != 0 {
				t.Errorf("effects = %+v; want a declared open-world read of %s", e, tt.url)
			}
			if e.Decision != tt.decision || !strings.Contains(strings.Join(e.Reasons, "; "), tt.reason) {
				t.Errorf("decision %v %q; want %v mentioning %q", e.Decision, e.Reasons, tt.decision, tt.reason)
			}
		})
	}
}
