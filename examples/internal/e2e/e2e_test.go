// Package e2e runs the agent programs as a new user would: built from a
// module of their own that requires Tether, in a project outside this
// repository, configured by the user's and the project's settings files.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bin holds the programs built by TestMain, by name.
var bin = map[string]string{}

// TestMain builds coder, web and headless from a separate module whose
// go.mod requires Tether through a replace directive, as a user who
// cloned the repository next to their own project would.
func TestMain(m *testing.M) {
	os.Exit(func() int {
		flag.Parse()
		if testing.Short() {
			fmt.Println("e2e: skipped with -short: it builds three programs from a separate module")
			return 0
		}
		dir, err := os.MkdirTemp("", "tether-e2e")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if err := build(dir); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		return m.Run()
	}())
}

func build(dir string) error {
	_, file, _, _ := runtime.Caller(0)
	repo, err := filepath.Abs(filepath.Join(filepath.Dir(file), "../../.."))
	if err != nil {
		return err
	}
	mod := filepath.Join(dir, "mymodule")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	gomod := fmt.Sprintf("module example.com/mymodule\n\ngo 1.26.0\n\nrequire github.com/tetherdev/tether v0.0.0\n\nreplace github.com/tetherdev/tether => %s\n", repo)
	// The repository's go.sum holds the sums of every module it needs,
	// so the build needs no network.
	sums, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sums, 0o644); err != nil {
		return err
	}
	for _, name := range []string{"coder", "web", "headless"} {
		out := filepath.Join(dir, "bin", "tether-"+name)
		cmd := exec.Command("go", "build", "-mod=mod", "-o", out, "github.com/tetherdev/tether/examples/"+name)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s from a separate module: %v\n%s", name, err, b)
		}
		bin[name] = out
	}
	return nil
}

// project makes a project outside the repository and a user config
// directory. The user's settings name a model that does not exist and
// allow touch; the project's name the scripted model, which asks to run
// `touch made-by-agent`. It returns the project, the environment to run
// a program in, and the file the command makes.
func project(t *testing.T) (dir string, env []string, made string) {
	t.Helper()
	dir, config, cache := t.TempDir(), t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "touch.jsonl")
	write(t, script, `{"capabilities":{"tools":true}}
{"content":"Making it.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch made-by-agent"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`)
	write(t, filepath.Join(config, "tether", "settings.json"), `{
		// the user's defaults: a model this project replaces, and a rule
		"model": "script:/nonexistent/model.jsonl",
		"permissions": {"allow": ["touch"]},
	}`)
	write(t, filepath.Join(dir, ".tether", "settings.json"), `{"model": "script:`+script+`", "sandbox": "off"}`)
	write(t, filepath.Join(dir, "README.md"), "# my project\n")
	env = append(os.Environ(), "XDG_CONFIG_HOME="+config, "XDG_CACHE_HOME="+cache, "TERM=dumb", "NO_COLOR=1")
	return dir, env, filepath.Join(dir, "made-by-agent")
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestSettingsAndFlag runs each program twice in the project: with the
// settings alone, the user's allow rule runs the command with the
// project's model; with -deny touch, the flag overrides the settings
// and the command is refused.
func TestSettingsAndFlag(t *testing.T) {
	for _, prog := range []string{"headless", "coder", "web"} {
		for _, deny := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/deny=%v", prog, deny), func(t *testing.T) {
				dir, env, made := project(t)
				var flags []string
				if deny {
					flags = []string{"-deny", "touch"}
				}
				switch prog {
				case "headless":
					runHeadless(t, dir, env, flags)
				case "coder":
					runCoder(t, dir, env, flags)
				case "web":
					runWeb(t, dir, env, flags)
				}
				if exists(made) == deny {
					t.Errorf("%s with -deny touch=%v: made-by-agent exists=%v", prog, deny, exists(made))
				}
			})
		}
	}
}

func runHeadless(t *testing.T, dir string, env, flags []string) {
	cmd := exec.Command(bin["headless"], append([]string{"-workspace", dir}, flags...)...)
	cmd.Env, cmd.Dir = env, t.TempDir() // -workspace, not the current directory, names the project
	cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"Make the file."}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("headless: %v\n%s", err, stderrOf(err))
	}
	if !bytes.Contains(out, []byte(`"type":"run_finished"`)) {
		t.Fatalf("headless did not finish a run:\n%s", out)
	}
}

func runCoder(t *testing.T, dir string, env, flags []string) {
	cmd := exec.Command(bin["coder"], append([]string{"-workspace", dir, "-db", ":memory:"}, flags...)...)
	cmd.Env, cmd.Dir = env, t.TempDir()
	cmd.Stdin = strings.NewReader("Make the file.\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("coder: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("Done.")) {
		t.Fatalf("coder did not finish the task:\n%s", out)
	}
}

func runWeb(t *testing.T, dir string, env, flags []string) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin["web"], append([]string{"-workspace", dir, "-addr", "127.0.0.1:0"}, flags...)...)
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	var start string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "open "); ok {
			start = u
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if start == "" {
		t.Fatalf("web printed no URL; stderr:\n%s", stderr.String())
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	if _, err := c.Get(start); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(start)
	base := "http://" + u.Host
	post := func(path, body string) []byte {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			t.Fatalf("POST %s: %s %s", path, res.Status, b)
		}
		return b
	}
	var sess struct{ ID string }
	if err := json.Unmarshal(post("/api/sessions", `{}`), &sess); err != nil {
		t.Fatal(err)
	}
	post("/api/prompt", fmt.Sprintf(`{"session":%q,"text":"Make the file."}`, sess.ID))
	// The turn is over when the session counts it; poll with a deadline
	// generous enough for a loaded machine.
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := c.Get(base + "/api/sessions")
		if err != nil {
			t.Fatal(err)
		}
		var list struct{ Sessions []struct{ Runs int } }
		json.NewDecoder(res.Body).Decode(&list)
		res.Body.Close()
		if len(list.Sessions) == 1 && list.Sessions[0].Runs == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not finish; stderr:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
