//go:build linux

package safety

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// readRules grants reading and executing everything except hidden (clean
// absolute paths, links resolved). Landlock only grants, so the rules
// cover the complement: every directory on the way from / to a hidden
// path may be listed (a grant there reaches below it, so it cannot include
// reading files), and every other entry of those directories is granted
// whole. A hidden path's own names can therefore still be listed; its
// content cannot be read. A link among those entries is granted as its
// target, unless the target is hidden, holds something hidden, or lies
// inside it. Entries made in those directories after the command starts
// are unreadable to it.
func readRules(hidden []string) []landlock.Rule {
	if len(hidden) == 0 {
		return []landlock.Rule{landlock.RODirs("/")}
	}
	// touches reports whether p is a hidden path, lies inside one, or
	// holds one: granting p would then open something hidden.
	touches := func(p string) bool {
		return slices.ContainsFunc(hidden, func(h string) bool { return within(h, p) || within(p, h) })
	}
	var listOnly, dirs, files []string
	seen := map[string]bool{}
	for _, h := range hidden {
		for dir := filepath.Dir(h); !seen[dir]; dir = filepath.Dir(dir) {
			seen[dir] = true
			listOnly = append(listOnly, dir)
			if dir == "/" {
				break
			}
		}
	}
	for _, dir := range listOnly {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // unreadable to the user too: nothing to grant
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if touches(p) {
				continue // on the way to a hidden path, or hidden: below
			}
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				t, err := filepath.EvalSymlinks(p)
				if err != nil || touches(t) {
					continue
				}
				fi, err := os.Stat(t)
				if err != nil {
					continue
				}
				p, isDir = t, fi.IsDir()
			}
			if isDir {
				dirs = append(dirs, p)
			} else {
				files = append(files, p)
			}
		}
	}
	return []landlock.Rule{
		landlock.PathAccess(llsys.AccessFSReadDir, listOnly...),
		landlock.RODirs(dirs...).IgnoreIfMissing(),
		landlock.ROFiles(files...).IgnoreIfMissing(),
	}
}
