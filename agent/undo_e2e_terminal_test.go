package agent

import (
	"os/exec"
	"strings"
	"testing"
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
		{name: "rm -rf a directory", files: tree, calls: []modelCall{sh("rm -rf dir")},
			changed: []string{"dir/a.txt", "dir/run.sh", "dir/sub/b.txt"}, restored: []string{"dir/a.txt", "dir/run.sh", "dir/sub/b.txt"}},
		{name: "rm a file", files: map[string]seedFile{"a.txt": {data: "a\n"}, "b.txt": {data: "b\n"}}, calls: []modelCall{sh("rm a.txt")},
			changed: []string{"a.txt"}, restored: []string{"a.txt"}},
		{name: "rm a glob", files: map[string]seedFile{"x.log": {data: "x\n"}, "y.log": {data: "y\n"}, "keep.txt": {data: "k\n"}},
			calls: []modelCall{sh("rm *.log")}, changed: []string{"x.log", "y.log"}, restored: []string{"x.log", "y.log"}},
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
		{name: "cd then write", files: map[string]seedFile{"sub/a.txt": {data: "alpha\n"}},
			calls:   []modelCall{sh("cd sub"), sh("touch new.txt && sed -i 's/alpha/beta/' a.txt")},
			changed: []string{"sub/a.txt", "sub/new.txt"}, restored: []string{"sub/a.txt"}, removed: []string{"sub/new.txt"}},
		{name: "cd inside the command", files: map[string]seedFile{"sub/a.txt": {data: "alpha\n"}},
			calls:   []modelCall{sh("cd sub && sed -i 's/alpha/beta/' a.txt")},
			changed: []string{"sub/a.txt"}, restored: []string{"sub/a.txt"}},
	}
	if _, err := exec.LookPath("git"); err == nil {
		// The repository is the user's: checkpoints never read or write
		// .git, so undo leaves it; the files the commands name come back.
		cases = append(cases, undoCase{name: "git init, add, commit", files: map[string]seedFile{"a.txt": {data: "a\n"}},
			calls:   []modelCall{sh("git init -q && echo b > b.txt && git add . && git -c user.name=t -c user.email=t@t commit -qm init")},
			changed: []string{"b.txt"}, removed: []string{"b.txt"}, skip: []string{".git"}})
	}
	runUndoCases(t, cases)
}
