package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/checkpoint"
)

func write(path, content string) modelCall {
	return modelCall{"write_file", map[string]any{"path": path, "content": content}}
}

func editCall(path, old, new string) modelCall {
	return modelCall{"edit_file", map[string]any{"path": path, "old_text": old, "new_text": new}}
}

func rename(from, to string, overwrite bool) modelCall {
	return modelCall{"rename_file", map[string]any{"path": from, "new_path": to, "overwrite": overwrite}}
}

// wantFile checks a file's content and permission bits after the run.
func wantFile(name, content string, mode os.FileMode) func(t *testing.T, s *undoSession) {
	return func(t *testing.T, s *undoSession) {
		fi, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.Equal(t, content, s.read(name))
		assert.Equal(t, mode, fi.Mode().Perm(), "mode of %s", name)
	}
}

// TestUndoFileTools: each session changes the workspace with the built-in
// file tools; undo brings back every byte, permission bit and directory.
func TestUndoFileTools(t *testing.T) {
	binary := "\x00\x01\x02\xff\xfe PNG\r\n\x1a\n" + strings.Repeat("\x00", 300)
	large := strings.Repeat("line of a large file, about sixty bytes long, for undo....\n", 60_000) // ~3.5 MB
	script := "#!/bin/sh\necho hello\n"
	runUndoCases(t, []undoCase{
		{name: "create", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls: []modelCall{write("new.txt", "new\n")}, changed: []string{"new.txt"}, removed: []string{"new.txt"}},
		{name: "create in new directories", calls: []modelCall{write("a/b/c/new.txt", "new\n")},
			changed: []string{"a/b/c/new.txt"}, removed: []string{"a/b/c/new.txt"}},
		{name: "overwrite", files: map[string]seedFile{"a.txt": {data: "old\n"}},
			calls: []modelCall{write("a.txt", "new\n")}, changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "overwrite twice", files: map[string]seedFile{"a.txt": {data: "old\n"}},
			calls: []modelCall{write("a.txt", "one\n"), write("a.txt", "two\n")}, changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "create then edit", calls: []modelCall{write("n.go", "package n\n"), editCall("n.go", "package n", "package m")},
			changed: []string{"n.go"}, removed: []string{"n.go"}},
		{name: "edit", files: map[string]seedFile{"a.txt": {data: "alpha\nbeta\n"}},
			calls: []modelCall{editCall("a.txt", "beta", "gamma")}, changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "edit CRLF file", files: map[string]seedFile{"w.txt": {data: "one\r\ntwo\r\nthree\r\n"}},
			calls: []modelCall{editCall("w.txt", "two", "deux")}, changed: []string{"w.txt"}, restored: []string{"w.txt"},
			check: wantFile("w.txt", "one\r\ndeux\r\nthree\r\n", 0o644)},
		{name: "edit file without final newline", files: map[string]seedFile{"n.txt": {data: "one\ntwo"}},
			calls: []modelCall{editCall("n.txt", "two", "three")}, changed: []string{"n.txt"}, restored: []string{"n.txt"},
			check: wantFile("n.txt", "one\nthree", 0o644)},
		{name: "modify_lines delete", files: map[string]seedFile{"a.txt": {data: "1\n2\n3\n"}},
			calls:   []modelCall{{"modify_lines", map[string]any{"path": "a.txt", "operation": "delete", "start_line": 2}}},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "patch", files: map[string]seedFile{"a.txt": {data: "1\n2\n3\n"}},
			calls:   []modelCall{{"patch_file", map[string]any{"path": "a.txt", "diff": "@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n"}}},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "empty file made non-empty", files: map[string]seedFile{"e.txt": {}},
			calls: []modelCall{write("e.txt", "now\n")}, changed: []string{"e.txt"}, restored: []string{"e.txt"}},
		{name: "file emptied", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls: []modelCall{write("a.txt", "")}, changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "empty file created", calls: []modelCall{write("e.txt", "")}, changed: []string{"e.txt"}, removed: []string{"e.txt"}},
		{name: "executable keeps its mode", files: map[string]seedFile{"run.sh": {data: script, mode: 0o755}},
			calls: []modelCall{editCall("run.sh", "hello", "bye")}, changed: []string{"run.sh"}, restored: []string{"run.sh"},
			check: wantFile("run.sh", "#!/bin/sh\necho bye\n", 0o755)},
		{name: "unicode names", files: map[string]seedFile{"données/été.txt": {data: "chaud\n"}},
			calls: []modelCall{editCall("données/été.txt", "chaud", "très chaud"), write("文件/新しい.md", "# 新\n"),
				rename("données/été.txt", "données/hiver ❄.txt", false)},
			// edited, then moved: a removed file and a new one, not a rename
			changed:  []string{"données/hiver ❄.txt", "données/été.txt", "文件/新しい.md"},
			restored: []string{"données/été.txt"}, removed: []string{"données/hiver ❄.txt", "文件/新しい.md"}},
		{name: "rename", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls: []modelCall{rename("a.txt", "b.txt", false)}, changed: []string{"a.txt -> b.txt"},
			restored: []string{"a.txt"}, removed: []string{"b.txt"}},
		{name: "rename into a new directory", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls: []modelCall{rename("a.txt", "x/y/a.txt", false)}, changed: []string{"a.txt -> x/y/a.txt"},
			restored: []string{"a.txt"}, removed: []string{"x/y/a.txt"}},
		{name: "rename over an existing file", files: map[string]seedFile{"a.txt": {data: "a\n"}, "b.txt": {data: "b\n"}},
			calls: []modelCall{rename("a.txt", "b.txt", true)}, changed: []string{"a.txt", "b.txt"},
			restored: []string{"a.txt", "b.txt"}},
		{name: "rename executable", files: map[string]seedFile{"run.sh": {data: script, mode: 0o755}},
			calls: []modelCall{rename("run.sh", "bin/run.sh", false)}, changed: []string{"run.sh -> bin/run.sh"},
			restored: []string{"run.sh"}, removed: []string{"bin/run.sh"}, check: wantFile("bin/run.sh", script, 0o755)},
		{name: "rename binary", files: map[string]seedFile{"img.png": {data: binary}},
			calls: []modelCall{rename("img.png", "assets/img.png", false)}, changed: []string{"img.png -> assets/img.png"},
			restored: []string{"img.png"}, removed: []string{"assets/img.png"}},
		{name: "rename a directory", files: map[string]seedFile{"src/a.go": {data: "package a\n"}, "src/sub/b.go": {data: "package b\n"}},
			calls:    []modelCall{rename("src", "lib", false)},
			changed:  []string{"src/a.go -> lib/a.go", "src/sub/b.go -> lib/sub/b.go"},
			restored: []string{"src/a.go", "src/sub/b.go"}, removed: []string{"lib/a.go", "lib/sub/b.go"}},
		{name: "large file appended", files: map[string]seedFile{"big.log": {data: large}},
			calls: []modelCall{sh("echo tail >> big.log")}, changed: []string{"big.log"}, restored: []string{"big.log"}},
		{name: "create_folder then file", calls: []modelCall{{"create_folder", map[string]any{"path": "pkg/util"}}, write("pkg/util/u.go", "package util\n")},
			changed: []string{"pkg/util/u.go"}, removed: []string{"pkg/util/u.go"}},
	})
}

// TestRenameOfAHugeDirectory: a folder with more files than a checkpoint
// snapshots is still renamed, as before directories were covered, and
// the result says that undo will not bring it back.
func TestRenameOfAHugeDirectory(t *testing.T) {
	files := map[string]seedFile{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files["big/"+n+".txt"] = seedFile{data: n + "\n"}
	}
	s := newUndoSession(t, files, nil)
	var err error
	s.cps, err = checkpoint.New(s.ws, checkpoint.NewMemoryStore(), checkpoint.WithMaxTreeFiles(3))
	require.NoError(t, err)
	res := s.turn([]modelCall{rename("big", "moved", false)})
	assert.Contains(t, lastResult(s.model.Requests()[1]), "[not covered by undo: big (too many files to snapshot)]")
	after := readTree(t, s.dir)
	assert.Equal(t, "a\n", s.read("moved/a.txt"))
	// Undo must not take the moved files for new ones and delete them.
	if res.CheckpointID != "" {
		rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
		require.NoError(t, err)
		assert.Empty(t, rep.Removed)
		assert.Empty(t, rep.Restored)
	}
	requireSameTree(t, after, readTree(t, s.dir), "after undo")
}
