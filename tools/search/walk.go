package search

import (
	"bufio"
	"context"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// WalkOptions say which files a walk visits. The zero value is what
// ripgrep does by default: .gitignore, .ignore, .rgignore and
// .git/info/exclude are respected, hidden files and directories are
// skipped, symlinks are not followed.
type WalkOptions struct {
	// NoIgnore visits files the ignore files exclude.
	NoIgnore bool
	// Hidden visits dot-files and dot-directories (never .git itself).
	// Without it, a hidden entry an ignore file re-includes by name
	// ("!.env.example") is still visited.
	Hidden bool
	// MaxDepth limits recursion below the start directory; 0 is unlimited,
	// 1 lists only the start directory's entries.
	MaxDepth int
}

// ignoreFiles are read in each directory, in increasing priority.
var ignoreFiles = [...]string{".gitignore", ".ignore", ".rgignore"}

// Walk visits the entries under dir (a slash-separated path valid for
// fsys, "." for the root) in lexical order, calling fn with each entry's
// path relative to fsys and its depth below dir (1 for dir's own entries).
// Ignored and hidden entries are not visited; ignored directories are not
// entered, so, as in git, a file cannot be re-included from inside an
// excluded directory. Returning fs.SkipDir from fn for a directory skips
// it; fs.SkipAll ends the walk. Unreadable directories are skipped: a
// walk over a real workspace must not fail on one permission error.
//
// Ignore files above dir, up to the root of fsys, apply too.
func Walk(ctx context.Context, fsys fs.FS, dir string, opt WalkOptions, fn func(p string, d fs.DirEntry, depth int) error) error {
	w := walker{ctx: ctx, fsys: fsys, opt: opt, fn: func(p string, d fs.DirEntry, depth int, _ *dirHandle) error { return fn(p, d, depth) }}
	return w.walk(dir)
}

// walker is one walk. With open set (and openat available), it lists
// directories below the start one through handles: each directory is
// opened once, relative to its parent's handle, and that handle is passed
// to fn so that the directory's files can be opened relative to it too.
// The start directory itself is listed through fsys, whose view may hold
// entries (a multi-root workspace's folders) no single handle has.
type walker struct {
	ctx  context.Context
	fsys fs.FS
	opt  WalkOptions
	open DirOpener
	// fn is called for each entry; h is the handle of the entry's
	// directory, or nil. fn takes its own reference on h if it keeps it.
	fn func(p string, d fs.DirEntry, depth int, h *dirHandle) error
}

func (w *walker) walk(dir string) error {
	dir = path.Clean(dir)
	var patterns []gitignore.Pattern
	if !w.opt.NoIgnore {
		patterns = readPatterns(w.fsys, nil, ".git/info/exclude", nil, nil)
		// Ignore files of dir's ancestors apply, root first; an ancestor
		// that is itself ignored hides everything below it.
		patterns = loadIgnores(w.fsys, nil, nil, nil, patterns)
		parts := splitPath(dir)
		for i := 1; i <= len(parts); i++ {
			if gitignore.NewMatcher(patterns).Match(parts[:i], true) {
				return nil
			}
			patterns = loadIgnores(w.fsys, nil, nil, parts[:i], patterns)
		}
	}
	var h *dirHandle
	if w.open != nil && haveOpenAt {
		h = newDirHandle(w.open(dir))
	}
	entries, err := fs.ReadDir(w.fsys, dir)
	if err != nil {
		h.release()
		return nil
	}
	err = w.dir(dir, splitPath(dir), h, entries, patterns, 1)
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

// dir visits entries, the listing of dir (whose handle h, possibly nil,
// it releases when done).
func (w *walker) dir(dir string, parts []string, h *dirHandle, entries []fs.DirEntry, patterns []gitignore.Pattern, depth int) error {
	defer h.release()
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if !w.opt.NoIgnore && depth > 1 {
		patterns = loadIgnores(w.fsys, h, entries, parts, patterns)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		isDir := e.IsDir()
		child := append(parts[:len(parts):len(parts)], name)
		hidden := !w.opt.Hidden && strings.HasPrefix(name, ".")
		if ignored, set := matchSet(patterns, child, isDir); set {
			if ignored {
				continue
			}
			// A hidden entry an ignore file re-includes is visited, as in ripgrep.
			hidden = false
		}
		if hidden {
			continue
		}
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		err := w.fn(p, e, depth, h)
		if err == fs.SkipDir && isDir {
			continue
		}
		if err != nil {
			return err
		}
		if !isDir || (w.opt.MaxDepth != 0 && depth >= w.opt.MaxDepth) {
			continue
		}
		var sub *dirHandle
		switch {
		case h != nil && depth > 1:
			sub = openSubdir(h, name)
		case w.open != nil && haveOpenAt:
			sub = newDirHandle(w.open(p))
		}
		var list []fs.DirEntry
		if sub != nil {
			list, err = sub.readDir()
			if err != nil {
				sub.release()
				sub = nil
			}
		}
		if sub == nil {
			if list, err = fs.ReadDir(w.fsys, p); err != nil {
				continue // unreadable: skipped
			}
		}
		if err := w.dir(p, child, sub, list, patterns, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// matchSet reports whether the last pattern matching path (if any)
// excludes it; set is false when no pattern matches at all.
func matchSet(patterns []gitignore.Pattern, path []string, isDir bool) (ignored, set bool) {
	for i := len(patterns) - 1; i >= 0; i-- {
		switch patterns[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true, true
		case gitignore.Include:
			return false, true
		}
	}
	return false, false
}

// loadIgnores returns patterns extended with the ignore files of the
// directory parts: those among entries when the listing is known (read
// relative to h when it is not nil), otherwise any that exist. The
// parent's slice is never appended to in place, so sibling directories
// cannot see each other's patterns.
func loadIgnores(fsys fs.FS, h *dirHandle, entries []fs.DirEntry, parts []string, patterns []gitignore.Pattern) []gitignore.Pattern {
	dir := strings.Join(parts, "/")
	if dir == "" {
		dir = "."
	}
	for _, name := range ignoreFiles {
		var hh *dirHandle
		if entries != nil {
			e := findEntry(entries, name)
			if e == nil {
				continue
			}
			if e.Type().IsRegular() {
				hh = h // a symlinked one is read through fsys, which follows it inside the root
			}
		}
		patterns = readPatterns(fsys, hh, path.Join(dir, name), parts, patterns)
	}
	return patterns
}

func findEntry(entries []fs.DirEntry, name string) fs.DirEntry {
	i, ok := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
	if !ok {
		return nil
	}
	return entries[i]
}

func readPatterns(fsys fs.FS, h *dirHandle, file string, domain []string, patterns []gitignore.Pattern) []gitignore.Pattern {
	var r io.Reader
	if h != nil && haveOpenAt {
		f, err := openAt(h.f, path.Base(file))
		if err != nil {
			return patterns
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			return patterns
		}
		r = f
	} else {
		f, err := fsys.Open(file)
		if err != nil {
			return patterns
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			return patterns
		}
		r = f
	}
	out := patterns[:len(patterns):len(patterns)] // copy on append
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		// An escaped slash is a slash: "foo\/" names the directory foo.
		line = strings.ReplaceAll(line, `\/`, "/")
		out = append(out, parsePattern(line, domain))
	}
	return out
}

// parsePattern is gitignore.ParsePattern, except that "dir/**" matches
// what is inside dir but not dir itself, as in git; go-git's matcher
// lets the trailing ** match nothing.
func parsePattern(line string, domain []string) gitignore.Pattern {
	if n, ok := parseNamePattern(line, domain); ok {
		return n
	}
	p := gitignore.ParsePattern(line, domain)
	neg, body := "", line
	if strings.HasPrefix(body, "!") {
		neg, body = "!", body[1:]
	}
	dir, ok := strings.CutSuffix(strings.TrimRight(body, " "), "/**")
	dir = strings.Trim(dir, "/")
	if !ok || dir == "" || strings.Contains(dir, "**") {
		return p
	}
	return insideOnly{p, gitignore.ParsePattern(neg+"/"+dir, domain), len(domain) + strings.Count(dir, "/") + 1}
}

// insideOnly is a "dir/**" pattern that does not match dir itself: self
// is the anchored "dir", and depth the length of the paths it names.
type insideOnly struct {
	all, self gitignore.Pattern
	depth     int
}

func (p insideOnly) Match(path []string, isDir bool) gitignore.MatchResult {
	if len(path) == p.depth && p.self.Match(path, isDir) != gitignore.NoMatch {
		return gitignore.NoMatch
	}
	return p.all.Match(path, isDir)
}

// namePattern is a pattern without a slash (but a trailing one), which
// git matches against the last element of a path only. go-git's matcher
// tries every element, so a slow filepath.Match runs once per pattern,
// path element and entry, and a parent directory re-included by a later
// "!dir" wrongly re-includes a file an earlier pattern excludes by name.
// A walk never enters an excluded directory, so the last element is all
// that needs matching.
type namePattern struct {
	glob      string
	literal   bool // glob has no metacharacters: compare
	neg, dir  bool // "!" in front; "/" at the end: directories only
	domainLen int
}

// parseNamePattern reads line as a namePattern if it is one; lines with
// escapes or slashes are left to go-git.
func parseNamePattern(line string, domain []string) (namePattern, bool) {
	p := namePattern{domainLen: len(domain)}
	line = strings.TrimRight(line, " ")
	if strings.HasPrefix(line, "!") {
		p.neg, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dir, line = true, line[:len(line)-1]
	}
	if line == "" || strings.ContainsAny(line, "/\\") {
		return p, false
	}
	if _, err := path.Match(line, ""); err != nil {
		return p, false
	}
	p.glob = line
	p.literal = !strings.ContainsAny(line, "*?[")
	return p, true
}

func (p namePattern) Match(elems []string, isDir bool) gitignore.MatchResult {
	if len(elems) <= p.domainLen || (p.dir && !isDir) {
		return gitignore.NoMatch
	}
	base := elems[len(elems)-1]
	if p.literal {
		if base != p.glob {
			return gitignore.NoMatch
		}
	} else if ok, _ := path.Match(p.glob, base); !ok {
		return gitignore.NoMatch
	}
	if p.neg {
		return gitignore.Include
	}
	return gitignore.Exclude
}

func splitPath(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
