package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/checkpoint"
)

// TestUndoTerminal: sessions that change the workspace with shell
// commands. Undo restores every file the command names (and every file
// under a directory it names); what it cannot know of is listed in the
// skip column and documented on the package (Executor.Undo).
func TestUndoTerminal(t *testing.T) {
	script := "#!/bin/sh\necho hi\n"
	large := strings.Repeat("0123456789abcdef", 1<<18) // 4 MiB, one line
	tree := map[string]seedFile{"dir/a.txt": {data: "a\n"}, "dir/sub/b.txt": {data: "b\n"}, "dir/run.sh": {data: script, mode: 0o755}}
	cases := []undoCase{
		{name: "mkdir -p and redirect", calls: []modelCall{sh("mkdir -p a/b && echo x > a/b/c")},
			changed: []string{"a/b/c"}, removed: []string{"a/b/c"}},
		{name: "mkdir -p alone", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls: []modelCall{sh("mkdir -p build/out/deep && echo b >> a.txt")}, changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "rm -rf a directory", files: tree, calls: []modelCall{sh("rm -rf dir")},
			changed: []string{"dir/a.txt", "dir/run.sh", "dir/sub/b.txt"}, restored: []string{"dir/a.txt", "dir/run.sh", "dir/sub/b.txt"}},
		{name: "rm a file", files: map[string]seedFile{"a.txt": {data: "a\n"}, "b.txt": {data: "b\n"}}, calls: []modelCall{sh("rm a.txt")},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "rm a glob", files: map[string]seedFile{"x.log": {data: "x\n"}, "y.log": {data: "y\n"}, "keep.txt": {data: "k\n"}},
			calls: []modelCall{sh("rm *.log")}, changed: []string{"x.log", "y.log"}, restored: []string{"x.log", "y.log"}},
		// * leaves hidden files alone, as the shell does: .env is neither
		// touched nor claimed.
		{name: "rm -rf a star", files: map[string]seedFile{".env": {data: "K=v\n"}, "a.txt": {data: "a\n"}, "d/b.txt": {data: "b\n"}},
			calls: []modelCall{sh("rm -rf *")}, changed: []string{"a.txt", "d/b.txt"}, restored: []string{"a.txt", "d/b.txt"}},
		{name: "mv a file", files: map[string]seedFile{"a.txt": {data: "a\n"}}, calls: []modelCall{sh("mv a.txt b.txt")},
			changed: []string{"a.txt -> b.txt"}, restored: []string{"a.txt"}, removed: []string{"b.txt"}},
		{name: "mv a file over another", files: map[string]seedFile{"a.txt": {data: "a\n"}, "b.txt": {data: "b\n"}},
			calls: []modelCall{sh("mv -f a.txt b.txt")}, changed: []string{"a.txt", "b.txt"}, restored: []string{"a.txt", "b.txt"}},
		{name: "mv a file into a directory", files: map[string]seedFile{"a.txt": {data: "a\n"}, "sub/x.txt": {data: "x\n"}},
			calls: []modelCall{sh("mv a.txt sub/")}, changed: []string{"a.txt -> sub/a.txt"}, restored: []string{"a.txt"}, removed: []string{"sub/a.txt"}},
		{name: "mv a directory", files: tree, calls: []modelCall{sh("mv dir moved")},
			changed:  []string{"dir/a.txt -> moved/a.txt", "dir/run.sh -> moved/run.sh", "dir/sub/b.txt -> moved/sub/b.txt"},
			restored: []string{"dir/a.txt", "dir/run.sh", "dir/sub/b.txt"}, removed: []string{"moved/a.txt", "moved/run.sh", "moved/sub/b.txt"}},
		{name: "cp -r a directory", files: tree, calls: []modelCall{sh("cp -rp dir copy")},
			changed: []string{"copy/a.txt", "copy/run.sh", "copy/sub/b.txt"}, removed: []string{"copy/a.txt", "copy/run.sh", "copy/sub/b.txt"}},
		{name: "cp -r into an existing directory", files: map[string]seedFile{"src/a.txt": {data: "a\n"}, "dst/old.txt": {data: "o\n"}},
			calls: []modelCall{sh("cp -r src dst")}, changed: []string{"dst/src/a.txt"}, removed: []string{"dst/src/a.txt"}},
		{name: "sed -i", files: map[string]seedFile{"a.txt": {data: "alpha\nbeta\n"}}, calls: []modelCall{sh("sed -i 's/beta/gamma/' a.txt")},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "sed -i on a CRLF file", files: map[string]seedFile{"w.txt": {data: "alpha\r\nbeta\r\n"}}, calls: []modelCall{sh("sed -i 's/beta/gamma/' w.txt")},
			changed: []string{"w.txt"}, restored: []string{"w.txt"}},
		{name: "sed -i on a large file", files: map[string]seedFile{"big.txt": {data: large}}, calls: []modelCall{sh("sed -i 's/0123/3210/g' big.txt")},
			changed: []string{"big.txt"}, restored: []string{"big.txt"}},
		{name: "touch a new file", calls: []modelCall{sh("touch new.txt")}, changed: []string{"new.txt"}, removed: []string{"new.txt"}},
		{name: "touch an existing file", files: map[string]seedFile{"a.txt": {data: "a\n"}}, calls: []modelCall{sh("touch a.txt")}},
		{name: "chmod +x", files: map[string]seedFile{"s.sh": {data: script}}, calls: []modelCall{sh("chmod +x s.sh")},
			changed: []string{"s.sh"}, restored: []string{"s.sh"}, check: wantFile("s.sh", script, 0o755)},
		{name: "chmod -x", files: map[string]seedFile{"s.sh": {data: script, mode: 0o755}}, calls: []modelCall{sh("chmod -x s.sh")},
			changed: []string{"s.sh"}, restored: []string{"s.sh"}},
		{name: "binary written by printf", files: map[string]seedFile{"bin.dat": {data: "\x00\x01"}}, calls: []modelCall{sh(`printf '\000\377\001' > bin.dat`)},
			changed: []string{"bin.dat"}, restored: []string{"bin.dat"}},
		{name: "ln -s", files: map[string]seedFile{"a.txt": {data: "a\n"}}, calls: []modelCall{sh("ln -s a.txt link.txt")},
			changed: []string{"link.txt"}, removed: []string{"link.txt"}},
		{name: "ln -s to a directory", files: tree, calls: []modelCall{sh("ln -s dir dlink")},
			changed: []string{"dlink"}, removed: []string{"dlink"}},
		{name: "cd then write", files: map[string]seedFile{"sub/a.txt": {data: "alpha\n"}},
			calls:   []modelCall{sh("cd sub"), sh("touch new.txt && sed -i 's/alpha/beta/' a.txt")},
			changed: []string{"sub/a.txt", "sub/new.txt"}, restored: []string{"sub/a.txt"}, removed: []string{"sub/new.txt"}},
		{name: "cd inside the command", files: map[string]seedFile{"sub/a.txt": {data: "alpha\n"}},
			calls:   []modelCall{sh("cd sub && sed -i 's/alpha/beta/' a.txt")},
			changed: []string{"sub/a.txt"}, restored: []string{"sub/a.txt"}},
		{name: "mv a directory into another", files: map[string]seedFile{"dir/a.txt": {data: "a\n"}, "into/keep.txt": {data: "k\n"}},
			calls: []modelCall{sh("mv dir into/")}, changed: []string{"dir/a.txt -> into/dir/a.txt"},
			restored: []string{"dir/a.txt"}, removed: []string{"into/dir/a.txt"}},
		{name: "cp over an existing file", files: map[string]seedFile{"a.txt": {data: "a\n"}, "b.txt": {data: "b\n"}},
			calls: []modelCall{sh("cp a.txt b.txt")}, changed: []string{"b.txt"}, restored: []string{"b.txt"}},
		{name: "names with spaces and quotes", files: map[string]seedFile{"my notes.txt": {data: "n\n"}},
			calls:   []modelCall{sh(`echo x > "it's new.txt" && sed -i 's/n/m/' 'my notes.txt'`)},
			changed: []string{"it's new.txt", "my notes.txt"}, restored: []string{"my notes.txt"}, removed: []string{"it's new.txt"}},
		{name: "created and deleted in one run", calls: []modelCall{write("tmp.txt", "t\n"), sh("rm tmp.txt"), write("kept.txt", "k\n")},
			changed: []string{"kept.txt"}, removed: []string{"kept.txt"}},
		{name: "rename then recreate the old name", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls:   []modelCall{rename("a.txt", "b.txt", false), write("a.txt", "fresh\n")},
			changed: []string{"a.txt", "b.txt"}, restored: []string{"a.txt"}, removed: []string{"b.txt"}},
		// rm -rf takes a symlink and an empty directory that undo cannot put
		// back (documented); the files come back.
		{name: "rm -rf with a link and an empty directory inside", files: map[string]seedFile{"dir/a.txt": {data: "a\n"}, "dir/link": {link: "a.txt"}, "dir/empty": {dir: true}},
			calls: []modelCall{sh("rm -rf dir")}, changed: []string{"dir/a.txt"}, restored: []string{"dir/a.txt"}, skip: []string{"dir/link", "dir/empty"}},
		// A program's own writes are not named by any argument: undo does
		// not know of them, and neither files_changed nor the report lists
		// them; what the line names is still covered.
		{name: "sed -i with a backup suffix", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls:   []modelCall{sh("sed -i.bak 's/a/b/' a.txt")},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}, skip: []string{"a.txt.bak"}},
		{name: "a write no argument names", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls:   []modelCall{sh(`echo b >> a.txt && awk 'BEGIN { print "x" > "hidden.txt" }'`)},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}, skip: []string{"hidden.txt"}},
	}
	if _, err := exec.LookPath("git"); err == nil {
		// The repository is the user's: checkpoints never read or write
		// .git, so undo leaves it; the files the commands name come back.
		cases = append(cases, undoCase{name: "git init, add, commit", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls:   []modelCall{sh("git init -q && echo b > b.txt && git add . && git -c user.name=t -c user.email=t@t commit -qm init")},
			changed: []string{"b.txt"}, removed: []string{"b.txt"}, skip: []string{".git"}},
			// The user's uncommitted edit, thrown away by the agent's
			// checkout, comes back with undo.
			undoCase{name: "git checkout discards an uncommitted edit", files: map[string]seedFile{"a.txt": {data: "committed\n"}},
				setup: func(t *testing.T, dir string) {
					gitIn(t, dir, "init", "-q")
					gitIn(t, dir, "add", ".")
					gitIn(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
					require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("the user's work\n"), 0o644))
				},
				calls:   []modelCall{sh("git checkout -- a.txt")},
				changed: []string{"a.txt"}, restored: []string{"a.txt"}, skip: []string{".git"}},
			undoCase{name: "git mv", files: map[string]seedFile{"a.txt": {data: "a\n"}},
				setup: func(t *testing.T, dir string) {
					gitIn(t, dir, "init", "-q")
					gitIn(t, dir, "add", ".")
				},
				calls:   []modelCall{sh("git mv a.txt b.txt")},
				changed: []string{"a.txt -> b.txt"}, restored: []string{"a.txt"}, removed: []string{"b.txt"}, skip: []string{".git"}})
	}
	runUndoCases(t, cases)
}

// TestUndoSaysWhatItCannotCover: a file the checkpoint cannot hold (too
// large here) is still changed by the command, the result tells the
// model it is not covered by undo, and undo neither lists nor touches it.
func TestUndoSaysWhatItCannotCover(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	s := newUndoSession(t, map[string]seedFile{"big.bin": {data: big}, "a.txt": {data: "a\n"}}, nil)
	var err error
	s.cps, err = checkpoint.New(s.ws, checkpoint.NewMemoryStore(), checkpoint.WithMaxFileSize(1<<20))
	require.NoError(t, err)
	res := s.turn([]modelCall{sh("echo y >> big.bin && echo b >> a.txt")})
	assert.Contains(t, lastResult(s.model.Requests()[1]), "[not covered by undo: big.bin (too large to snapshot)]")
	assert.Equal(t, []string{"a.txt"}, changedPaths(res))
	rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt"}, rep.Restored)
	assert.Equal(t, "a\n", s.read("a.txt"))
	assert.Equal(t, big+"y\n", s.read("big.bin"), "left as the command made it, as the result said")
}

// TestUndoOfAFolderGrownTooLarge: a command copies a folder to one with
// more files than a checkpoint snapshots; the copy is not claimed by undo
// (no bogus conflict, nothing deleted) and the result says so.
func TestUndoOfAFolderGrownTooLarge(t *testing.T) {
	files := map[string]seedFile{"a.txt": {data: "a\n"}}
	for _, n := range []string{"1", "2", "3", "4"} {
		files["src/"+n+".txt"] = seedFile{data: n + "\n"}
	}
	s := newUndoSession(t, files, nil)
	var err error
	s.cps, err = checkpoint.New(s.ws, checkpoint.NewMemoryStore(), checkpoint.WithMaxTreeFiles(3))
	require.NoError(t, err)
	res := s.turn([]modelCall{sh("cp -r src copy && echo b >> a.txt")})
	assert.Contains(t, lastResult(s.model.Requests()[1]), "[not covered by undo: copy (too large to snapshot)]")
	assert.Equal(t, []string{"a.txt"}, changedPaths(res))
	rep, err := s.undo(res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt"}, rep.Restored)
	assert.Empty(t, rep.Removed)
	assert.Equal(t, "4\n", s.read("copy/4.txt"), "left as the command made it, as the result said")
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}
