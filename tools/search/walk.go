package search

import (
	"bufio"
	"context"
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// WalkOptions say which files a walk visits. The zero value is what
// ripgrep does by default: .gitignore, .ignore and .git/info/exclude are
// respected, hidden files and directories are skipped, symlinks are not
// followed.
type WalkOptions struct {
	// NoIgnore visits files the ignore files exclude.
	NoIgnore bool
	// Hidden visits dot-files and dot-directories (never .git itself).
	Hidden bool
	// MaxDepth limits recursion below the start directory; 0 is unlimited,
	// 1 lists only the start directory's entries.
	MaxDepth int

	// leave, when set, is called after every entry of a directory was
	// visited (Search uses it to release directory handles).
	leave func(dir string)
}

// ignoreFiles are read in each directory, in increasing priority.
var ignoreFiles = [...]string{".gitignore", ".ignore"}

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
	dir = path.Clean(dir)
	var patterns []gitignore.Pattern
	if !opt.NoIgnore {
		patterns = readPatterns(fsys, ".git/info/exclude", nil, nil)
		// Ignore files of dir's ancestors apply, root first; an ancestor
		// that is itself ignored hides everything below it.
		patterns = loadIgnores(fsys, nil, patterns)
		parts := splitPath(dir)
		for i := 1; i <= len(parts); i++ {
			if gitignore.NewMatcher(patterns).Match(parts[:i], true) {
				return nil
			}
			patterns = loadIgnores(fsys, parts[:i], patterns)
		}
	}
	err := walkDir(ctx, fsys, dir, splitPath(dir), patterns, opt, 1, fn)
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, fsys fs.FS, dir string, parts []string, patterns []gitignore.Pattern, opt WalkOptions, depth int, fn func(string, fs.DirEntry, int) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	if opt.leave != nil {
		defer opt.leave(dir)
	}
	var m gitignore.Matcher
	if len(patterns) > 0 {
		m = gitignore.NewMatcher(patterns)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || (!opt.Hidden && strings.HasPrefix(name, ".")) {
			continue
		}
		isDir := e.IsDir()
		child := append(parts[:len(parts):len(parts)], name)
		if m != nil && m.Match(child, isDir) {
			continue
		}
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		err := fn(p, e, depth)
		if err == fs.SkipDir && isDir {
			continue
		}
		if err != nil {
			return err
		}
		if isDir && (opt.MaxDepth == 0 || depth < opt.MaxDepth) {
			sub := patterns
			if !opt.NoIgnore {
				sub = loadIgnores(fsys, child, patterns)
			}
			if err := walkDir(ctx, fsys, p, child, sub, opt, depth+1, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadIgnores returns patterns extended with the ignore files of the
// directory parts. The parent's slice is never appended to in place, so
// sibling directories cannot see each other's patterns.
func loadIgnores(fsys fs.FS, parts []string, patterns []gitignore.Pattern) []gitignore.Pattern {
	dir := strings.Join(parts, "/")
	if dir == "" {
		dir = "."
	}
	for _, name := range ignoreFiles {
		patterns = readPatterns(fsys, path.Join(dir, name), parts, patterns)
	}
	return patterns
}

func readPatterns(fsys fs.FS, file string, domain []string, patterns []gitignore.Pattern) []gitignore.Pattern {
	f, err := fsys.Open(file)
	if err != nil {
		return patterns
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return patterns
	}
	out := patterns[:len(patterns):len(patterns)] // copy on append
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, domain))
	}
	return out
}

func splitPath(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
