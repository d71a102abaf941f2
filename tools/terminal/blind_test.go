//go:build linux

package terminal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/terminal"
)

// blindCase is one case of testdata/blind_containment.txt.
type blindCase struct {
	name, source string
	needs        []string
	pending      string // why the case needs a cgroup when no helper runs
	needsCgroup  string // why the case needs a cgroup when no sandbox runs
	limit        string // why the case is skipped when no helper runs at all
	host, pass   []string
	files        [][2]string
	calls        []blindCall
	expect       [][2]string
}

type blindCall struct {
	cmd     string
	timeout bool
}

func readBlind(t *testing.T, name string) []blindCase {
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	defer f.Close()
	var out []blindCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		if key == "case" {
			out = append(out, blindCase{name: rest})
			continue
		}
		require.NotEmpty(t, out, "line %d: %q before the first case", n, line)
		c := &out[len(out)-1]
		switch key {
		case "source":
			c.source = rest
		case "pending":
			c.pending = rest
		case "needscgroup":
			c.needsCgroup = rest
		case "limit":
			c.limit = rest
		case "needs":
			c.needs = append(c.needs, rest)
		case "host":
			c.host = append(c.host, rest)
		case "pass":
			c.pass = append(c.pass, rest)
		case "file":
			p, text, _ := strings.Cut(rest, " ")
			c.files = append(c.files, [2]string{p, strings.ReplaceAll(text, `\n`, "\n")})
		case "run", "timeout":
			c.calls = append(c.calls, blindCall{cmd: rest, timeout: key == "timeout"})
		case "expect":
			k, v, _ := strings.Cut(rest, " ")
			c.expect = append(c.expect, [2]string{k, v})
		default:
			t.Fatalf("line %d: unknown key %q", n, key)
		}
	}
	require.NoError(t, sc.Err())
	for _, c := range out {
		require.NotEmpty(t, c.source, "case %s cites no source", c.name)
		require.NotEmpty(t, c.expect, "case %s expects nothing", c.name)
	}
	return out
}

// TestBlindContainment runs the blind batch through run_terminal_command,
// without the sandbox and with it, and reports the score.
func TestBlindContainment(t *testing.T) { runBlindFile(t, "blind_containment.txt") }

// TestBlindGuardAttacks runs the blind cases that attack the guard
// itself: kill the helper, leave the cgroup, fork while being killed.
func TestBlindGuardAttacks(t *testing.T) { runBlindFile(t, "blind_guard.txt") }

// cgroupSkip skips t when the machine gives no cgroup of a command's own.
// Under CI it fails instead only when the machine looked able to give one
// and then could not: a system without delegated cgroups is not a failure.
func cgroupSkip(t *testing.T, why string) {
	t.Helper()
	if scoreWithoutCgroup() {
		return
	}
	err := safety.CgroupAvailable()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" && !errors.Is(err, safety.ErrSandboxUnavailable) {
		t.Fatalf("%s, and this machine's cgroups failed unexpectedly: %v", why, err)
	}
	t.Skipf("%s: %v", why, err)
}

// scoreWithoutCgroup runs every case without the cgroup guard, skipping
// none for the lack of it: the score the batch had before the cgroup was
// used (TETHER_BLIND_NO_CGROUP=1).
func scoreWithoutCgroup() bool { return os.Getenv("TETHER_BLIND_NO_CGROUP") == "1" }

func runBlindFile(t *testing.T, file string) {
	cases := readBlind(t, file)
	// plain: no helper; domain: the kill-domain helper; sandbox:
	// Landlock; both: the helper confined; confined: the kill domain a
	// host gets with Config.Domain and a sandbox, which in a cgroup of
	// the command's own starts it with no helper.
	for _, mode := range []string{"plain", "domain", "sandbox", "both", "confined"} {
		t.Run(mode, func(t *testing.T) {
			passed, ran := 0, 0
			for i, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					for _, p := range c.needs {
						if _, err := exec.LookPath(p); err != nil {
							if os.Getenv("CI") == "true" {
								t.Fatalf("needs %s: apt-get install -y %s", p, p)
							}
							t.Skipf("needs %s: apt-get install -y %s", p, p)
						}
					}
					if c.limit != "" && mode == "plain" {
						t.Skipf("limit: %s", c.limit)
					}
					if c.pending != "" && mode == "plain" {
						cgroupSkip(t, c.pending)
					}
					if c.needsCgroup != "" && (mode == "plain" || mode == "domain") {
						cgroupSkip(t, c.needsCgroup)
					}
					ran++
					defer func() {
						if !t.Failed() {
							passed++
						}
					}()
					runBlind(t, c, i, mode)
				})
			}
			t.Logf("%s (%s): %d/%d cases passed", file, mode, passed, ran)
		})
	}
}

func runBlind(t *testing.T, c blindCase, i int, mode string) {
	root := t.TempDir()
	for _, kv := range c.host {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	for _, f := range c.files {
		p := filepath.Join(root, f[0])
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(f[1]), 0o644))
	}
	cfg := terminal.Config{Root: root, PassEnv: c.pass, NoCgroup: scoreWithoutCgroup()}
	var sb *safety.Sandbox
	if mode == "sandbox" || mode == "both" || mode == "confined" {
		sb = &safety.Sandbox{Writable: []string{root, os.TempDir()}}
		if err := sb.Available(); err != nil {
			t.Skipf("no sandbox on this kernel: %v", err)
		}
	}
	switch mode {
	case "sandbox":
		cfg.Sandbox = sb.Wrap
	case "domain", "both":
		cfg.Contain = (&safety.KillDomain{Sandbox: sb}).Wrap
	case "confined":
		cfg.Domain = &safety.KillDomain{Sandbox: sb}
	}
	sh, err := terminal.New(cfg)
	require.NoError(t, err)
	tool := sh.Tool()
	secs := fmt.Sprintf("%d.%d", 4300+i, time.Now().UnixNano()%1e6)
	var texts []string
	for _, call := range c.calls {
		args := map[string]any{"command": strings.ReplaceAll(call.cmd, "{S}", secs)}
		if call.timeout {
			args["timeout"] = 2
		} else {
			args["timeout"] = 30
		}
		raw, _ := json.Marshal(args)
		res, err := tool.Execute(context.Background(), tools.Call{Name: terminal.Name, Arguments: raw})
		require.NoError(t, err)
		if call.timeout {
			assert.True(t, res.Meta.TimedOut, "the call was expected to time out:\n%s", res.Text)
		}
		texts = append(texts, res.Text)
	}
	for _, e := range c.expect {
		switch e[0] {
		case "absent":
			_, err := os.Stat(filepath.Join(root, e[1]))
			assert.True(t, os.IsNotExist(err), "%s: %s exists; outputs:\n%s", c.source, e[1], strings.Join(texts, "\n---\n"))
		case "has":
			assert.Contains(t, strings.Join(texts, "\n"), e[1], c.source)
		case "lacks":
			for _, tx := range texts {
				assert.NotContains(t, tx, e[1], c.source)
			}
		case "cwd":
			assert.Equal(t, filepath.Join(sh.Root(), e[1]), sh.Cwd(), c.source)
		case "gone":
			assert.Empty(t, sleeping(secs), "%s: a process outlived its command", c.source)
		default:
			t.Fatalf("unknown expectation %q", e[0])
		}
	}
}

// sleeping lists the live processes `sleep secs`, read from /proc.
func sleeping(secs string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + de.Name() + "/cmdline")
		if err != nil || string(b) != "sleep\x00"+secs+"\x00" {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + de.Name() + "/stat"); strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, pid)
	}
	return out
}
