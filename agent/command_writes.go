package agent

import (
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// Writes no analysis names. The analysis knows what cp, mv, sed -i or a
// redirect write; an interpreter (python3 fix.py data.json, perl -pi -e …
// x.txt, ruby -i), a build tool or a script given files may rewrite any
// file it is given. So every existing regular file in the workspace that
// a command which may write (severity above none) names among its
// arguments is snapshotted too, as are the files a find would act on
// (findreach.go). A snapshot of a file the command leaves alone costs a
// stored pre-image and records nothing.

// maxNamedFiles bounds the extra pre-images one command line takes from
// its arguments; the rest are reported as not covered.
const maxNamedFiles = 64

// writeTarget is a path a command may write, with where it came from.
type writeTarget struct {
	name  string // as written, joined to the directory the command runs in
	named bool   // only named as an argument: snapshotted when it is an existing file
}

// commandWriteTargets lists the paths the command line may write: the
// analysis' write paths, then the files its writing commands name, then
// what its finds reach. resolve gives a path's absolute form when it is
// inside the workspace. It fails when a find would reach more than undo
// can cover. over lists named files past the bound.
func commandWriteTargets(a safety.CommandAnalysis, cwd string, resolve func(string) (string, bool)) (targets []writeTarget, over []string, err error) {
	dirs := commandDirs(a, cwd)
	for _, p := range a.Paths {
		if p.Op != safety.OpWrite {
			continue
		}
		dir := cwd
		if p.Command >= 0 && p.Command < len(dirs) {
			dir = dirs[p.Command]
		}
		targets = append(targets, writeTarget{name: inDir(dir, p.Path)})
	}
	piped := false
	for i := len(a.Commands) - 1; i >= 0; i-- {
		c := a.Commands[i]
		base := filepath.Base(c.Name)
		if base == "find" {
			files, err := findReach(c.Args, dirs[i], piped, resolve)
			if err != nil {
				return nil, nil, err
			}
			for _, f := range files {
				targets = append(targets, writeTarget{name: f})
			}
			continue
		}
		if base == "xargs" {
			piped = true
		}
	}
	// A wrapper may write through what it runs (sh -c '… > "$0"' x.txt
	// names x.txt as the wrapper's word): it counts as writing when any
	// command beneath it may.
	sev := make([]safety.Severity, len(a.Commands))
	for i, c := range a.Commands {
		sev[i] = c.Severity
	}
	for i := len(a.Commands) - 1; i >= 0; i-- {
		if p := a.Commands[i].Parent; p >= 0 && p < i {
			sev[p] = max(sev[p], sev[i])
		}
	}
	named := 0
	for i, c := range a.Commands {
		// A wrapper's words include the command it runs, which is listed
		// after it as well; seen in snapshot drops the repeats.
		if sev[i] == safety.SeverityNone || filepath.Base(c.Name) == "find" {
			continue
		}
		for _, arg := range c.Args {
			if _, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "-") {
				arg = v
			} else if strings.HasPrefix(arg, "-") {
				continue
			}
			if arg == "" || strings.ContainsAny(arg, "$`*?[\n") {
				continue
			}
			name := inDir(dirs[i], arg)
			if _, ok := resolve(name); !ok {
				continue
			}
			if named++; named > maxNamedFiles {
				over = append(over, arg)
				continue
			}
			targets = append(targets, writeTarget{name: name, named: true})
		}
	}
	return targets, over, nil
}

// commandDirs returns the directory each command of the line starts in:
// cwd, changed by the cd commands before it (`cd sub && python3 x.py
// data.json` writes sub/data.json).
func commandDirs(a safety.CommandAnalysis, cwd string) []string {
	dirs := make([]string, len(a.Commands))
	dir, next := cwd, 0
	for _, p := range a.Paths {
		if p.Op != safety.OpChdir || p.Command < 0 {
			continue
		}
		for ; next <= p.Command && next < len(dirs); next++ {
			dirs[next] = dir
		}
		dir = inDir(dir, p.Path)
	}
	for ; next < len(dirs); next++ {
		dirs[next] = dir
	}
	return dirs
}
