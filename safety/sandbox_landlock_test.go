//go:build linux

package safety

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLandlockRights checks the rules the helper and Sandbox.Start write
// against the rights the kernel's Landlock documentation lists
// (Documentation/userspace-api/landlock.rst: the file-system flags, the
// "Previous limitations" each ABI lifted, the ptrace and scoping rules)
// and GTFOBins' file-write forms, in both ways of starting a confined
// command. Every way to change a file outside the workspace, read a
// hidden login, trace or signal the host must be refused; the same
// operations inside the workspace must work. Metadata changes outside
// (chmod) are a documented limit: Landlock has no right for them. So is
// reading the host's /proc files as root: Landlock's ptrace restriction
// does not hold a process with CAP_SYS_PTRACE (measured here: as root a
// confined command reads /proc/HOST/environ; as another user it cannot).
func TestLandlockRights(t *testing.T) {
	requireLandlock(t, false)
	abi, _ := landlockABI()
	host := strconv.Itoa(os.Getpid())
	refused := []struct {
		name, script string
		abi          int  // the ABI that can refuse it
		notRoot      bool // refused only without CAP_SYS_PTRACE
	}{
		{"create by redirect", `echo x > "$OUT/new"`, 1, false},
		{"append", `echo x >> "$OUT/f"`, 1, false},
		{"truncate", `truncate -s 0 "$OUT/f"`, 3, false},
		{"truncate by open", `: > "$OUT/f"`, 1, false},
		{"remove", `rm "$OUT/f"`, 1, false},
		{"make a directory", `mkdir "$OUT/d"`, 1, false},
		{"make a fifo", `mkfifo "$OUT/p"`, 1, false},
		{"make a symlink", `ln -s /etc/passwd "$OUT/l"`, 1, false},
		{"hard link in, then append", `ln "$OUT/f" h && echo x >> h`, 2, false},
		{"move out of the workspace", `echo a > a && mv a "$OUT/a"`, 2, false},
		{"move in from outside", `mv "$OUT/f" moved`, 1, false},
		{"through /proc/self/root", `echo x > "/proc/self/root$OUT/new"`, 1, false},
		{"tee", `echo x | tee "$OUT/tee"`, 1, false},
		{"cp over", `cp /etc/hostname "$OUT/f"`, 1, false},
		{"hidden login", `cat "$HOME/.ssh/id_ed25519"`, 1, false},
		{"host environment", `cat /proc/` + host + `/environ`, 1, true},
		{"signal the host", `kill -0 ` + host, 6, false},
	}
	allowed := []struct{ name, script string }{
		{"everyday work", `echo x > a && echo y >> a && : > a && mkdir -p d/e && mv a d/b && ln -s d/b l && ln d/b h && mkfifo p && truncate -s 10 d/b && rm -r d h l p`},
		{"devices and temp", `echo x > /dev/null && t=$(mktemp -p "$TMPDIR") && echo x > "$t" && rm "$t"`},
		{"read the system", `cat /etc/hostname >/dev/null && ls / >/dev/null`},
	}
	home := t.TempDir()
	ws, out, tmp := filepath.Join(home, "ws"), filepath.Join(home, "out"), filepath.Join(home, "tmp")
	for _, d := range []string{ws, out, tmp, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("KEY"), 0o600)
	reset := func() {
		os.RemoveAll(out)
		os.Mkdir(out, 0o755)
		os.WriteFile(filepath.Join(out, "f"), []byte("original\n"), 0o644)
		os.RemoveAll(ws)
		os.Mkdir(ws, 0o755)
	}
	sb := &Sandbox{Writable: []string{ws, tmp}, Unreadable: HomeLogins(home)}
	for _, way := range []string{"helper", "start"} {
		t.Run(way, func(t *testing.T) {
			run := func(script string) (int, string) {
				cmd := exec.Command("/bin/sh", "-c", script)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), "OUT="+out, "HOME="+home, "TMPDIR="+tmp)
				var b strings.Builder
				cmd.Stdout, cmd.Stderr = &b, &b
				var err error
				if way == "helper" {
					if err = sb.Wrap(cmd); err == nil {
						err = cmd.Run()
					}
				} else if err = sb.Start(cmd); err == nil {
					err = cmd.Wait()
				}
				if cmd.ProcessState == nil {
					t.Fatalf("%s: %v", script, err)
				}
				return cmd.ProcessState.ExitCode(), b.String()
			}
			held := 0
			for _, c := range refused {
				if abi < c.abi || c.notRoot && os.Geteuid() == 0 {
					continue
				}
				reset()
				code, output := run(c.script)
				orig, _ := os.ReadFile(filepath.Join(out, "f"))
				ents, _ := os.ReadDir(out)
				changed := string(orig) != "original\n" || len(ents) != 1
				leaked := strings.Contains(output, "KEY") || strings.Contains(output, "PATH=")
				if code == 0 || changed || leaked {
					t.Errorf("%s: not refused (exit %d, outside changed %v, leaked %v): %s", c.name, code, changed, leaked, output)
				} else {
					held++
				}
			}
			for _, c := range allowed {
				reset()
				if code, output := run(c.script); code != 0 {
					t.Errorf("%s failed confined (exit %d): %s", c.name, code, output)
				}
			}
			t.Logf("%s: %d refusals held", way, held)
		})
	}
}
