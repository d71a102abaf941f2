package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
)

// Undo's blind batch: commands that change files the analysis does not
// name, written from the forms find(1)'s manual and the issue reports of
// other agents' checkpoint features give (files deleted by find, in-place
// edits by interpreters and scripts, a file swapped for a link), with the
// expected outcome first: after the turn, undo brings the tree back byte
// for byte and leaves files outside the command's reach alone.
func TestUndoBlindCommandsWithoutAWriteModel(t *testing.T) {
	seed := map[string]seedFile{
		"notes.txt":        {data: "notes\n"},
		"other.txt":        {data: "someone's notes\n"},
		"edit.sh":          {data: "echo rewritten > \"$1\"\n"},
		"a.log":            {data: "log a\n"},
		"sub/b.log":        {data: "log b\n"},
		"sub/keep.txt":     {data: "keep\n"},
		"x.tmp":            {data: "tmp x\n"},
		"deep/y.tmp":       {data: "tmp y\n"},
		"src/one.go":       {data: "package old\n"},
		"src/two.go":       {data: "package old\n"},
		"build/out/o.bin":  {data: "object\n"},
		"build/report.txt": {data: "report\n"},
	}
	cases := []struct {
		name    string
		command string
		changed []string // files the command is expected to change (undo restores them)
	}{
		{"script given a file", "sh edit.sh notes.txt", []string{"notes.txt"}},
		{"interpreter with inline code", `sh -c 'echo gone > "$0"' notes.txt`, []string{"notes.txt"}},
		{"find -delete by name", "find . -name '*.log' -delete", []string{"a.log", "sub/b.log"}},
		{"find piped to xargs rm", "find . -name '*.tmp' | xargs rm", []string{"x.tmp", "deep/y.tmp"}},
		{"find -exec sed in place", "find src -type f -name '*.go' -exec sed -i s/old/new/ {} +", []string{"src/one.go", "src/two.go"}},
		{"find -exec rm -rf a directory", "find . -maxdepth 1 -type d -name build -exec rm -rf {} +", []string{"build/out/o.bin", "build/report.txt"}},
		{"find with -o and negation", `find . \( -name '*.log' -o -name '*.tmp' \) ! -path './sub/*' -delete`, []string{"a.log", "x.tmp", "deep/y.tmp"}},
		{"file swapped for a link", "rm notes.txt && ln -s other.txt notes.txt", []string{"notes.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newUndoSession(t, seed, nil)
			before := s.tree()
			res := s.turn([]modelCall{sh(tc.command)})
			after := s.tree()
			for _, p := range tc.changed {
				assert.NotEqual(t, before[p], after[p], "%s: the command did not change %s; the case is wrong", tc.command, p)
			}
			rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
			require.NoError(t, err, "report %+v", rep)
			assert.Equal(t, before, s.tree(), "undo did not restore the tree")
			fi, err := os.Lstat(filepath.Join(s.ws.Root(), "notes.txt"))
			require.NoError(t, err)
			assert.True(t, fi.Mode().IsRegular(), "notes.txt is not a regular file after undo")
		})
	}
}

// tree reads every regular file and link of the workspace (outside .git).
func (s *undoSession) tree() map[string]string {
	out := map[string]string{}
	root := s.ws.Root()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[filepath.ToSlash(rel)] = "link→" + target
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

// refusingStore fails every commit, as a store on a full disk does.
type refusingStore struct{ checkpoint.Store }

func (refusingStore) Commit(context.Context, string, checkpoint.Batch) error {
	return errors.New("database or disk is full")
}

// With no room for a pre-image, a command that writes a file does not
// run: nothing may change a file out of undo's reach.
func TestCommandRefusedWhenItsPreImageCannotBeSaved(t *testing.T) {
	s := newUndoSession(t, map[string]seedFile{"a.txt": {data: "a\n"}}, refusingStore{checkpoint.NewMemoryStore()})
	s.play([]modelCall{sh("echo b >> a.txt")})
	cfg := s.config()
	cfg.Approver, cfg.Checkpoints, cfg.Session = &approver{answer: allowAll}, s.cps, "full"
	_, err := s.run(cfg, "Do the task")
	require.NoError(t, err)
	acts := s.rec.actions()
	require.NotEmpty(t, acts)
	assert.Equal(t, event.StatusError, acts[len(acts)-1].Status)
	assert.Contains(t, lastResult(s.model.Requests()[1]), "undo could not")
	assert.Equal(t, "a\n", s.read("a.txt"), "the command ran without a pre-image")
}

func TestFindLookAhead(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.go", "b.txt", "sub/c.go", "sub/deeper/d.go", ".git/HEAD"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	resolve := func(name string) (string, bool) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return name, strings.HasPrefix(name, dir)
	}
	rel := func(abs []string) []string {
		var out []string
		for _, a := range abs {
			r, _ := filepath.Rel(dir, a)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for _, tc := range []struct {
		args  string
		piped bool
		want  []string
	}{
		{". -name *.go -delete", false, []string{"a.go", "sub/c.go", "sub/deeper/d.go"}},
		{". -maxdepth 1 -name *.go -delete", false, []string{"a.go"}},
		{". -mindepth 2 -type f -delete", false, []string{"sub/c.go", "sub/deeper/d.go"}},
		{". -name *.go", false, nil}, // prints only
		{". -name *.go", true, []string{"a.go", "sub/c.go", "sub/deeper/d.go"}},                     // | xargs
		{". -newer b.txt -delete", false, []string{"a.go", "b.txt", "sub/c.go", "sub/deeper/d.go"}}, // undecided: may match
		{". -path ./sub/* -prune -o -name *.go -exec rm {} ;", false, []string{"a.go"}},
		{". -name sub -type d -exec rm -rf {} +", false, []string{"sub/c.go", "sub/deeper/d.go"}},
		{". -frobnicate -delete", false, []string{"a.go", "b.txt", "sub/c.go", "sub/deeper/d.go"}}, // unreadable: everything
		{"sub -name *.go -false -delete", false, nil},
	} {
		got, err := findReach(strings.Fields(tc.args), dir, tc.piped, resolve)
		require.NoError(t, err, tc.args)
		assert.ElementsMatch(t, tc.want, rel(got), tc.args)
	}
}

func FuzzParseFind(f *testing.F) {
	for _, s := range []string{". -name x -delete", "( -o ) !", ". -exec rm {} ; -o -print", "-L . -maxdepth 2 , -false"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := parseFind(strings.Fields(s))
		e := findEntry{shown: "./a", name: "a"}
		p.reaches(e, true)
		p.reaches(e, false)
	})
}
