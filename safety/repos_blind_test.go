package safety

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReposBlind runs testdata/repos_blind.txt: for each layout, whether
// git run there would use a repository other than the workspace's own.
func TestReposBlind(t *testing.T) {
	f, err := os.Open("testdata/repos_blind.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type tcase struct {
		name, source, cmd, in, want string
		own                         bool
		dirs                        []string
		files                       [][2]string
	}
	var cases []*tcase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		if key == "case" {
			cases = append(cases, &tcase{name: rest})
			continue
		}
		c := cases[len(cases)-1]
		switch key {
		case "source":
			c.source = rest
		case "own":
			c.own = true
		case "dir":
			c.dirs = append(c.dirs, rest)
		case "file":
			p, text, _ := strings.Cut(rest, " ")
			c.files = append(c.files, [2]string{p, strings.ReplaceAll(text, `\n`, "\n")})
		case "cmd":
			c.cmd = rest
		case "in":
			c.in = rest
		case "want":
			c.want = rest
		default:
			t.Fatalf("unknown key %q", key)
		}
	}
	passed := 0
	for _, c := range cases {
		ok := t.Run(c.name, func(t *testing.T) {
			if c.source == "" || c.cmd == "" || c.want == "" {
				t.Fatal("case needs source, cmd and want")
			}
			w, root, outside := newTestWorkspace(t)
			if c.own {
				writeFile(t, filepath.Join(root, ".git/HEAD"), "ref: refs/heads/main\n")
				for _, d := range []string{".git/objects", ".git/refs"} {
					if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, d := range c.dirs {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, fl := range c.files {
				writeFile(t, filepath.Join(root, fl[0]), strings.ReplaceAll(fl[1], "{OUT}", outside))
			}
			p := &Policy{Workspace: w, Rules: CommandRules{AllowReadOnly: true}}
			a := p.AssessCommand(context.Background(), c.cmd, c.in)
			if got := a.Decision.String(); got != c.want {
				t.Errorf("%s: AssessCommand(%q in %q) = %s, want %s\nreasons: %s", c.source, c.cmd, c.in, got, c.want, a.Reason())
			}
		})
		if ok {
			passed++
		}
	}
	t.Logf("repository discovery blind batch: %d/%d", passed, len(cases))
}
