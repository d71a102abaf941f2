package safety

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A file with several hard links is one file under several names. When
// some of its names lie outside the workspace, reading it by its name in
// the workspace reads a file the workspace does not own: `ln
// ~/.aws/credentials notes.txt`, made by an earlier command, lets `cat
// notes.txt` print the credentials. The names outside cannot be listed,
// but they can be counted: the link count less the names found in the
// workspace.

// packageStores are directories package managers fill with hard links to
// their own stores (pnpm's node_modules, uv's and pip's site-packages):
// files there are package contents, whatever else links to them.
var packageStores = []string{"node_modules", "site-packages"}

// linkedOutside adds a confirmation when pc, a read of a file with more
// hard links than names in the workspace, may read a file from outside.
func (p *Policy) linkedOutside(s *signals, pc PathCheck, op Op, who string) {
	if op != OpRead || !pc.HardLinked || pc.Secret || pc.Decision == Deny {
		return
	}
	for _, c := range strings.Split(pc.Rel, "/") {
		if slices.Contains(packageStores, c) {
			return
		}
	}
	fi, err := os.Stat(pc.Resolved)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	n, err := p.namesInWorkspace(fi)
	switch {
	case err != nil:
		s.add(Confirm, fmt.Sprintf("%sreads %s, which has other names (hard links) that could not all be found: %v", who, pc.Rel, err))
	case uint64(n) < linkCount(fi):
		s.add(Confirm, fmt.Sprintf("%sreads %s, which has %d other name(s) outside the workspace (hard links): it may be a file the workspace does not own", who, pc.Rel, linkCount(fi)-uint64(n)))
	}
}

// namesInWorkspace counts the regular files of the workspace that are
// the file fi describes, within SecretScanLimit entries.
func (p *Policy) namesInWorkspace(fi fs.FileInfo) (int, error) {
	limit := p.SecretScanLimit
	if limit <= 0 {
		limit = defaultSecretScanLimit
	}
	errLimit := fmt.Errorf("more than %d entries to search", limit)
	root := p.Workspace.root
	seen, n := 0, 0
	err := fs.WalkDir(p.Workspace.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > limit {
			return errLimit
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if other, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name))); err == nil && os.SameFile(fi, other) {
			n++
		}
		return nil
	})
	if errors.Is(err, errLimit) {
		return n, err
	}
	return n, nil
}
