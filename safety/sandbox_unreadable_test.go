//go:build linux

package safety

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxHidesLogins: what a confined command does to get at a login
// it is not given, written before the rules existed from the ways public
// write-ups print a file (GTFOBins' "file read" entries: cat, tar, find
// -exec, grep -r, cp, ln; a C compiler told to #include a key, which
// prints it in its diagnostics; /proc/self/root and ../ walks; a link
// planted in the workspace). Every one must fail, and everyday reads must
// keep working: the rest of home, its listing, the workspace, the system.
func TestSandboxHidesLogins(t *testing.T) {
	requireLandlock(t, false)
	home := t.TempDir()
	ws := filepath.Join(home, "src", "proj")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const key = "-----BEGIN OPENSSH PRIVATE KEY----- sekrit"
	must(os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	must(os.MkdirAll(filepath.Join(home, ".aws"), 0o700))
	must(os.MkdirAll(ws, 0o755))
	must(os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(key), 0o600))
	must(os.WriteFile(filepath.Join(home, ".aws", "credentials"), []byte("aws_secret_access_key = sekrit"), 0o600))
	must(os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x password sekrit"), 0o600))
	must(os.WriteFile(filepath.Join(home, "notes.txt"), []byte("plain notes"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "main.c"), []byte("int main(void){return 0;}"), 0o644))
	// A link to the keys made before the command, beside the workspace.
	must(os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys")))

	sb := testSandbox(t, ws)
	sb.Unreadable = HomeLogins(home)
	if len(sb.Unreadable) != 3 {
		t.Fatalf("HomeLogins(%s) = %v, want .ssh, .aws and .netrc", home, sb.Unreadable)
	}
	sh := func(script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "HOME="+home)
		return cmd
	}
	leaks := []struct{ name, script string }{
		{"cat", `cat "$HOME/.ssh/id_ed25519"`},
		{"redirect", `read -r line < "$HOME/.aws/credentials"; echo "$line"`},
		{"file beside", `cat "$HOME/.netrc"`},
		{"relative walk", `cat ../../.ssh/id_ed25519`},
		{"proc root", `cat "/proc/self/root$HOME/.ssh/id_ed25519"`},
		{"link made before", `cat "$HOME/keys/id_ed25519"`},
		{"link planted in the workspace", `ln -s "$HOME/.ssh/id_ed25519" k && cat k`},
		{"hard link into the workspace", `ln "$HOME/.ssh/id_ed25519" k2 && cat k2`},
		{"copy", `cp "$HOME/.ssh/id_ed25519" copy && cat copy`},
		{"tar", `tar cf - -C "$HOME" .ssh | tar xOf -`},
		{"find exec", `find "$HOME/.ssh" -type f -exec cat {} +`},
		{"grep -r", `grep -r . "$HOME/.aws"`},
		{"compiler include", `printf '#include "%s/.ssh/id_ed25519"\n' "$HOME" > leak.c && cc -E leak.c 2>&1 || cpp leak.c 2>&1`},
	}
	for _, l := range leaks {
		code, out := runOut(t, sb, sh(l.script))
		if strings.Contains(out, "sekrit") {
			t.Errorf("%s: a confined command read a login (exit %d): %q", l.name, code, out)
		}
	}
	everyday := []struct{ name, script, want string }{
		{"the rest of home", `cat "$HOME/notes.txt"`, "plain notes"},
		{"home listed", `ls -a "$HOME"`, ".ssh"},
		{"key names listed", `ls "$HOME/.ssh"`, "id_ed25519"},
		{"workspace read", `cat main.c`, "int main"},
		{"workspace written and read back", `echo fresh > new.txt && cat new.txt`, "fresh"},
		{"system", `cat /etc/hostname >/dev/null && ls /usr/bin | head -1 >/dev/null && echo ok`, "ok"},
	}
	for _, e := range everyday {
		code, out := runOut(t, sb, sh(e.script))
		if code != 0 || !strings.Contains(out, e.want) {
			t.Errorf("%s: exit %d, output %q; want %q", e.name, code, out, e.want)
		}
	}
	// Without the rules the same commands do read the logins: the test can fail.
	if _, out := runOut(t, nil, sh(`cat "$HOME/.ssh/id_ed25519"`)); !strings.Contains(out, "sekrit") {
		t.Fatalf("unconfined read failed: %q", out)
	}
}

// TestUnreadableInsideWritableStays: hiding a file inside a writable
// directory would hide what the command writes there later, so such
// paths are left to the Policy; a relative path is an error.
func TestUnreadableInsideWritableStays(t *testing.T) {
	ws := t.TempDir()
	env := filepath.Join(ws, ".env")
	if err := os.WriteFile(env, []byte("K=v"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := unreadableFor([]string{env, filepath.Join(ws, "missing")}, []string{ws})
	if err != nil || len(got) != 0 {
		t.Fatalf("unreadableFor = %v, %v; want nothing hidden", got, err)
	}
	if _, err := unreadableFor([]string{".ssh"}, []string{ws}); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Fatalf("relative path: %v", err)
	}
}

// runOut is run with stdout and stderr together.
func runOut(t *testing.T, sb *Sandbox, cmd *exec.Cmd) (int, string) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout = &out
	code, errOut := run(t, sb, cmd)
	return code, out.String() + errOut
}
