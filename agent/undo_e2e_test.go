package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/tools/fstools"
)

// The end-to-end undo tests run modelCall sessions through the executor
// with the real file tools and the real shell, then compare the
// workspace byte for byte (content, permission bits, symlink targets,
// directories) with what it was before the run.

// treeEntry is one path of a workspace as the undo tests compare it.
type treeEntry struct {
	kind string // "file", "dir" or "link"
	mode fs.FileMode
	data string // file content or link target
}

func (e treeEntry) String() string {
	if e.kind == "file" && len(e.data) > 64 {
		return fmt.Sprintf("%s %v %d bytes %q…", e.kind, e.mode, len(e.data), e.data[:64])
	}
	return fmt.Sprintf("%s %v %q", e.kind, e.mode, e.data)
}

// readTree returns every path under dir except those under skip
// (slash-separated, relative to dir).
func readTree(t *testing.T, dir string, skip ...string) map[string]treeEntry {
	t.Helper()
	out := map[string]treeEntry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		for _, s := range skip {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := treeEntry{mode: fi.Mode().Perm()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.kind = "link"
			e.data, err = os.Readlink(p)
		case fi.IsDir():
			e.kind = "dir"
		default:
			e.kind = "file"
			var b []byte
			b, err = os.ReadFile(p)
			e.data = string(b)
		}
		out[rel] = e
		return err
	})
	require.NoError(t, err)
	return out
}

// requireSameTree fails with every path that differs.
func requireSameTree(t *testing.T, want, got map[string]treeEntry, when string) {
	t.Helper()
	var diffs []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: missing (want %v)", p, w))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s: got %v, want %v", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: left behind (%v)", p, g))
		}
	}
	slices.Sort(diffs)
	require.Empty(t, diffs, "workspace %s differs from before the run", when)
}

// seedFile is one path of a test workspace before the run.
type seedFile struct {
	data string
	mode fs.FileMode // 0644 when zero
	link string      // a symlink to this target instead of a file
	dir  bool        // an empty directory
}

func writeSeed(t *testing.T, dir string, files map[string]seedFile) {
	t.Helper()
	for name, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch {
		case f.dir:
			require.NoError(t, os.MkdirAll(p, 0o755))
		case f.link != "":
			require.NoError(t, os.Symlink(f.link, p))
		default:
			mode := f.mode
			if mode == 0 {
				mode = 0o644
			}
			require.NoError(t, os.WriteFile(p, []byte(f.data), mode))
			require.NoError(t, os.Chmod(p, mode)) // past the umask
		}
	}
}

// modelCall is one modelCall tool call.
type modelCall struct {
	tool string
	args map[string]any
}

func sh(command string) modelCall {
	return modelCall{"run_terminal_command", map[string]any{"command": command}}
}

// sessionScript is a native-tools script making calls one response at a
// time (so they run in order), then finishing.
func sessionScript(t *testing.T, calls []modelCall) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("{\"capabilities\":{\"tools\":true}}\n")
	for _, c := range calls {
		args, err := json.Marshal(c.args)
		require.NoError(t, err)
		fmt.Fprintf(&b, "{\"tool_calls\":[{\"name\":%q,\"arguments\":%s}]}\n", c.tool, args)
	}
	b.WriteString("{\"content\":\"Done. [TASK_COMPLETE]\"}\n")
	return b.String()
}

// undoSession is a workspace with every built-in file tool and the shell,
// whose runs are checkpointed in cps.
type undoSession struct {
	*env
	cps *checkpoint.Manager
	// text makes the model write its calls in the content, as a model
	// without native tool calling does.
	text bool
}

func newUndoSession(t *testing.T, files map[string]seedFile, store checkpoint.Store) *undoSession {
	t.Helper()
	dir := t.TempDir()
	writeSeed(t, dir, files)
	return newUndoSessionAt(t, dir, store)
}

// newUndoSessionAt opens a session on an existing workspace, as a host
// does after a restart.
func newUndoSessionAt(t *testing.T, dir string, store checkpoint.Store) *undoSession {
	t.Helper()
	e := newEnvAt(t, dir, "", nil)
	require.NoError(t, e.reg.Register(fstools.NewModifyLines(e.ws), fstools.NewPatch(e.ws), fstools.NewRename(e.ws), fstools.NewFolder(e.ws)))
	if store == nil {
		store = checkpoint.NewMemoryStore()
	}
	cps, err := checkpoint.New(e.ws, store)
	require.NoError(t, err)
	return &undoSession{env: e, cps: cps}
}

// turn runs one modelCall user turn, approving everything, and fails the
// test on a tool call that did not succeed.
func (s *undoSession) turn(calls []modelCall) *Result {
	t := s.t
	t.Helper()
	s.play(calls)
	cfg := s.config()
	cfg.Approver, cfg.Checkpoints, cfg.Session = &approver{answer: allowAll}, s.cps, "undo-e2e"
	before := len(s.rec.actions())
	res, err := s.run(cfg, "Do the task")
	require.NoError(t, err)
	for _, a := range s.rec.actions()[before:] {
		require.NotContains(t, []event.ActionStatus{event.StatusError, event.StatusDenied}, a.Status, "%s %s: %s", a.Tool, a.Title, a.Detail)
	}
	return res
}

// play makes the session's model make calls, one response each.
func (s *undoSession) play(calls []modelCall) {
	text := sessionScript(s.t, calls)
	if s.text {
		text = textScript(s.t, text)
	}
	script, err := llmtest.ParseScript(strings.NewReader(text))
	require.NoError(s.t, err)
	s.model = llmtest.NewScripted(script)
}

// changedPaths lists a run's files_changed as "path" or "old -> new".
func changedPaths(res *Result) []string {
	out := []string{}
	for _, f := range res.FilesChanged {
		if f.OldPath != "" {
			out = append(out, f.OldPath+" -> "+f.Path)
		} else {
			out = append(out, f.Path)
		}
	}
	slices.Sort(out)
	return out
}

// diskChanges lists the files and links that differ between two trees.
func diskChanges(before, after map[string]treeEntry) []string {
	out := []string{}
	for p, b := range before {
		if a, ok := after[p]; b.kind != "dir" && (!ok || a != b) {
			out = append(out, p)
		}
	}
	for p, a := range after {
		if _, ok := before[p]; a.kind != "dir" && !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// reportedPaths lists every path files_changed names, both ends of a
// rename included.
func reportedPaths(res *Result) []string {
	out := []string{}
	for _, f := range res.FilesChanged {
		out = append(out, f.Path)
		if f.OldPath != "" {
			out = append(out, f.OldPath)
		}
	}
	slices.Sort(out)
	return out
}

func (s *undoSession) undo(id string, opts checkpoint.UndoOptions) (checkpoint.UndoReport, error) {
	s.t.Helper()
	require.NotEmpty(s.t, id, "the run changed files but reported no checkpoint")
	cp, err := s.cps.Open(context.Background(), id)
	require.NoError(s.t, err)
	return cp.Undo(context.Background(), opts)
}

// sorted returns a sorted copy, never nil, for comparing report lists.
func sorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

// undoCase is one session: calls in one run, what files_changed and the
// undo report must say, and the workspace after undo (equal to before
// except under skip).
type undoCase struct {
	name     string
	files    map[string]seedFile
	calls    []modelCall
	changed  []string // files_changed, as changedPaths formats them
	restored []string
	removed  []string
	skip     []string // paths undo leaves as the run made them (documented)
	setup    func(t *testing.T, dir string)

	check func(t *testing.T, s *undoSession) // on the workspace after the run, before undo
}

func runUndoCases(t *testing.T, cases []undoCase) {
	for _, tc := range cases {
		for _, text := range []bool{false, true} {
			name := tc.name + "/native"
			if text {
				name = tc.name + "/text"
			}
			t.Run(name, func(t *testing.T) { runUndoCase(t, tc, text) })
		}
	}
}

func runUndoCase(t *testing.T, tc undoCase, text bool) {
	s := newUndoSession(t, tc.files, nil)
	s.text = text
	if tc.setup != nil {
		tc.setup(t, s.dir)
	}
	before := readTree(t, s.dir, tc.skip...)
	res := s.turn(tc.calls)
	if tc.check != nil {
		tc.check(t, s)
	}
	assert.Equal(t, sorted(tc.changed), changedPaths(res), "files_changed")
	assert.Equal(t, diskChanges(before, readTree(t, s.dir, tc.skip...)), reportedPaths(res), "files_changed against the disk")
	rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, sorted(tc.restored), sorted(rep.Restored), "restored")
	assert.Equal(t, sorted(tc.removed), sorted(rep.Removed), "removed")
	assert.Empty(t, rep.Skipped, "skipped")
	requireSameTree(t, before, readTree(t, s.dir, tc.skip...), "after undo")
}
