package safety

import (
	"context"
	"strings"
	"testing"
)

// TestSecretInContent checks the content scan on the formats secret
// scanners publish (gitleaks' default rules; GitHub's token formats,
// "Behind GitHub's new authentication token formats") and on look-alikes
// that hold none. The tokens are built here from their prefixes so that
// no credential-shaped string is committed.
func TestSecretInContent(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		content, want string
	}{
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n", "a private key"},
		{"key: |\n  -----BEGIN RSA PRIVATE KEY-----\n", "a private key"},
		{"-----BEGIN PRIVATE KEY-----", "a private key"},
		{"aws_access_key_id = AKIA" + strings.Repeat("Z", 16), "an AWS access key"},
		{"token=ghp_" + x(36), "a GitHub token"},
		{"GITLAB=glpat-" + x(20), "a GitLab token"},
		{"slack: xoxb-" + x(12), "a Slack token"},
		{"sk_live_" + x(24), "a Stripe secret key"},
		{"OPENAI_API_KEY=sk-proj-" + x(40), "an OpenAI or Anthropic API key"},
		{"//registry.npmjs.org/:_authToken=npm_" + x(36), "an npm token"},
		{"-----BEGIN PUBLIC KEY-----", ""},
		{"ssh-ed25519 AAAAC3Nza user@host", ""},
		{"the ghp_ prefix names GitHub tokens", ""},
		{"sk_test_" + x(24), ""},
		{"package main\n\nfunc main() {}\n", ""},
		{strings.Repeat("a", SecretScanBytes) + "-----BEGIN PRIVATE KEY-----", ""},
	} {
		if got := SecretInContent([]byte(tc.content)); got != tc.want {
			t.Errorf("SecretInContent(%.40q) = %q, want %q", tc.content, got, tc.want)
		}
	}
}

// TestAssessRead checks that a file tool's read of a file named like any
// other asks when its content is a private key, and stays allowed when it
// is not.
func TestAssessRead(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	p := &Policy{Workspace: w}
	key := []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n")
	if a := p.AssessRead(context.Background(), "notes.txt", key); a.Decision != Confirm || !strings.Contains(a.Reason(), "private key") {
		t.Errorf("AssessRead(notes.txt, key) = %v: %s, want confirm naming the key", a.Decision, a.Reason())
	}
	if a := p.AssessRead(context.Background(), "notes.txt", []byte("notes")); a.Decision != Allow {
		t.Errorf("AssessRead(notes.txt, notes) = %v: %s, want allow", a.Decision, a.Reason())
	}
	p.Headless = true
	if a := p.AssessRead(context.Background(), "notes.txt", key); a.Decision != Deny {
		t.Errorf("headless AssessRead(notes.txt, key) = %v, want deny", a.Decision)
	}
}
