package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrBadPattern wraps an invalid regular expression or include glob.
var ErrBadPattern = errors.New("search: invalid pattern")

// Query is one search. Zero values of the limits mean the defaults below.
type Query struct {
	Pattern string
	Regex   bool     // RE2 syntax, matched one line at a time
	Dir     string   // slash-separated, relative to the FS root; "" or "." for all
	Include []string // doublestar globs on the relative path; a glob without '/' also matches base names
	Context int      // lines of context before and after each match
	// MaxPerFile bounds the matches kept (not counted) per file.
	MaxPerFile int
	// MaxLineLen cuts long lines when kept.
	MaxLineLen int
	// MaxFileSize skips larger files (counted in Results.SkippedLarge).
	MaxFileSize int64
	Walk        WalkOptions
	// OpenDir, when set, is how directories are opened for reading their
	// files (see DirOpener); otherwise files are opened through the FS.
	OpenDir DirOpener
	// Skip, when set, excludes files from being read (counted in
	// Results.SkippedSecret): secrets whose content needs approval.
	Skip func(path string) bool
}

// Defaults for Query limits.
const (
	DefaultMaxPerFile  = 20
	DefaultMaxLineLen  = 300
	DefaultMaxFileSize = 64 << 20
)

// Line is a kept line of a file: a match or context.
type Line struct {
	N     int    // 1-based
	Text  string // valid UTF-8, without the newline, cut at MaxLineLen
	Match bool
}

// FileMatches is one file with at least one matching line.
type FileMatches struct {
	Path    string
	Matches int    // every matching line, kept or not
	Lines   []Line // kept matches (≤ MaxPerFile) and their context, in order
}

// Results of a search. Files are sorted by path.
type Results struct {
	Files         []FileMatches
	Matches       int // matching lines in all files
	Searched      int // files searched
	SkippedBinary int // files with a NUL byte: not searched, or only before its block (see Search)
	SkippedLarge  int // files over MaxFileSize, not searched
	SkippedSecret int // files Query.Skip excluded
}

// compile returns a constructor of finders for q: literal searches use
// bytes.Index; regexps are rewritten to match within one line.
func compile(q Query) (func() finder, error) {
	if !q.Regex {
		lit := []byte(q.Pattern)
		return func() finder { return &literalFinder{lit: lit} }, nil
	}
	// The pattern as written is parsed first so that an error quotes it.
	re, err := syntax.Parse(q.Pattern, syntax.Perl)
	if err == nil {
		re, err = syntax.Parse(unicodePerlClasses(q.Pattern), syntax.Perl)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v (escape special characters with \\, or search with isRegex=false)", ErrBadPattern, err)
	}
	if err := lineOnly(re); err != nil {
		return nil, err
	}
	re = re.Simplify()
	if lit, ok := pureLiteral(re); ok {
		return func() finder { return &literalFinder{lit: lit} }, nil
	}
	rx, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPattern, err)
	}
	return func() finder { return newRegexFinder(rx, re) }, nil
}

// lineOnly rewrites re so that it can only match within one line, as
// grep and ripgrep do: '.' and character classes (including negated ones
// and \s) exclude '\n', and ^ $ \A \z match at line boundaries. Searching a
// whole buffer with the rewritten regexp then finds exactly the lines the
// original matches one line at a time.
func lineOnly(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo <= '\n' && '\n' <= hi {
				if lo < '\n' {
					out = append(out, lo, '\n'-1)
				}
				if hi > '\n' {
					out = append(out, '\n'+1, hi)
				}
				continue
			}
			out = append(out, lo, hi)
		}
		re.Rune = out
		if len(out) == 0 {
			re.Op = syntax.OpNoMatch
		}
	case syntax.OpLiteral:
		if slices.Contains(re.Rune, '\n') {
			return fmt.Errorf("%w: the pattern matches a line break, but search_workspace matches one line at a time; search for each line separately", ErrBadPattern)
		}
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op = syntax.OpEndLine
		re.Flags &^= syntax.WasDollar
	}
	for _, sub := range re.Sub {
		if err := lineOnly(sub); err != nil {
			return err
		}
	}
	return nil
}

func pureLiteral(re *syntax.Regexp) ([]byte, bool) {
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return nil, false
	}
	return []byte(string(re.Rune)), true
}

func includeFilter(globs []string) (func(p string) bool, error) {
	if len(globs) == 0 {
		return func(string) bool { return true }, nil
	}
	for _, g := range globs {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("%w: include glob %q", ErrBadPattern, g)
		}
	}
	return func(p string) bool {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, p); ok {
				return true
			}
			if !strings.Contains(g, "/") {
				if ok, _ := doublestar.Match(g, path.Base(p)); ok {
					return true
				}
			}
		}
		return false
	}, nil
}

// Search runs q over fsys. It reads each file whole (up to MaxFileSize),
// in parallel. A file with a NUL byte is binary: with the NUL in its first
// 64 KiB it is not searched; otherwise the lines ripgrep would have
// searched before reaching the NUL are (see textBeforeNUL).
func Search(ctx context.Context, fsys fs.FS, q Query) (Results, error) {
	if q.Pattern == "" {
		return Results{}, fmt.Errorf("%w: empty query", ErrBadPattern)
	}
	newFinder, err := compile(q)
	if err != nil {
		return Results{}, err
	}
	include, err := includeFilter(q.Include)
	if err != nil {
		return Results{}, err
	}
	if q.MaxPerFile <= 0 {
		q.MaxPerFile = DefaultMaxPerFile
	}
	if q.MaxLineLen <= 0 {
		q.MaxLineLen = DefaultMaxLineLen
	}
	if q.MaxFileSize <= 0 {
		q.MaxFileSize = DefaultMaxFileSize
	}
	dir := q.Dir
	if dir == "" {
		dir = "."
	}

	type job struct {
		path string
		dir  *dirHandle // nil: open through the FS
	}
	paths := make(chan job, 256)
	var (
		mu  sync.Mutex
		res Results
		wg  sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			var local Results
			fd := newFinder()
			for j := range paths {
				var kind fileKind
				if j.dir != nil {
					buf, kind = readAt(j.dir, path.Base(j.path), q.MaxFileSize, buf)
					j.dir.release()
				} else {
					buf, kind = readFile(fsys, j.path, q.MaxFileSize, buf)
				}
				text := buf
				switch kind {
				case kindBinary:
					local.SkippedBinary++
					continue
				case kindLarge:
					local.SkippedLarge++
					continue
				case kindUnreadable:
					continue
				}
				if z := bytes.IndexByte(buf[min(len(buf), firstBlock):], 0); z >= 0 {
					// Binary past the first block: what ripgrep searched
					// before it saw the NUL byte is searched.
					local.SkippedBinary++
					text = buf[:textBeforeNUL(buf, firstBlock+z)]
				} else {
					local.Searched++
				}
				// A UTF-8 byte order mark is not text, as in ripgrep.
				text = bytes.TrimPrefix(text, utf8BOM)
				fd.reset(text)
				fm := searchBuf(text, fd, q)
				if fm.Matches > 0 {
					fm.Path = j.path
					local.Matches += fm.Matches
					local.Files = append(local.Files, fm)
				}
			}
			mu.Lock()
			res.Files = append(res.Files, local.Files...)
			res.Matches += local.Matches
			res.Searched += local.Searched
			res.SkippedBinary += local.SkippedBinary
			res.SkippedLarge += local.SkippedLarge
			res.SkippedSecret += local.SkippedSecret
			mu.Unlock()
		})
	}

	// A single file named as Dir is searched on its own.
	var walkErr error
	var skipped int
	if st, err := fs.Stat(fsys, dir); err == nil && !st.IsDir() {
		if q.Skip != nil && q.Skip(dir) {
			skipped++
		} else {
			paths <- job{path: dir}
		}
	} else if err != nil {
		walkErr = err
	} else {
		w := walker{ctx: ctx, fsys: fsys, opt: q.Walk, fn: func(p string, d fs.DirEntry, _ int, h *dirHandle) error {
			if !d.Type().IsRegular() || !include(p) {
				return nil
			}
			if q.Skip != nil && q.Skip(p) {
				skipped++
				return nil
			}
			j := job{path: p, dir: h.acquire()}
			select {
			case paths <- j:
			case <-ctx.Done():
				j.dir.release()
				return ctx.Err()
			}
			return nil
		}}
		if q.OpenDir != nil {
			w.open = q.OpenDir
		}
		walkErr = w.walk(dir)
	}
	close(paths)
	wg.Wait()
	res.SkippedSecret += skipped
	if walkErr != nil {
		return Results{}, walkErr
	}
	slices.SortFunc(res.Files, func(a, b FileMatches) int { return strings.Compare(a.Path, b.Path) })
	return res, nil
}

var utf8BOM = []byte("\uFEFF")

type fileKind uint8

const (
	kindText fileKind = iota
	kindBinary
	kindLarge
	kindUnreadable
)

// firstBlock is the size of the first read of a file, and of ripgrep's
// first: a NUL byte in it makes the file binary, with nothing searched.
const firstBlock = 64 << 10

// readFile reads p through fsys into buf (reusing its memory) and
// classifies it.
func readFile(fsys fs.FS, p string, limit int64, buf []byte) ([]byte, fileKind) {
	f, err := fsys.Open(p)
	if err != nil {
		return buf[:0], kindUnreadable
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return buf[:0], kindUnreadable
	}
	return readAll(f.Read, st.Size(), limit, buf)
}

// readAll reads a file whose size was size when opened into buf, reusing
// its memory. It reads the first block alone, and stops there as binary
// if the block holds a NUL byte; otherwise it reads to the end. Reading
// stops at size bytes, as one more read would only confirm the end, so a
// file growing meanwhile is read as it was. kindText files may still hold
// a NUL byte past the first block.
func readAll(read func([]byte) (int, error), size, limit int64, buf []byte) ([]byte, fileKind) {
	if size > limit {
		return buf[:0], kindLarge
	}
	if c := int(size) + 1; cap(buf) < c {
		buf = make([]byte, 0, max(c, firstBlock))
	}
	buf = buf[:0]
	checked := false // the first block was checked for NUL bytes
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf[:0], kindLarge
			}
			buf = slices.Grow(buf, len(buf))
		}
		end := cap(buf)
		if !checked {
			end = min(end, firstBlock)
		}
		n, err := read(buf[len(buf):end])
		if n > 0 {
			buf = buf[:len(buf)+n]
		}
		if err != nil && err != io.EOF {
			return buf[:0], kindUnreadable
		}
		eof := err == io.EOF || n <= 0 || (size > 0 && int64(len(buf)) >= size)
		if !checked && (eof || len(buf) >= firstBlock) {
			checked = true
			if bytes.IndexByte(buf, 0) >= 0 {
				return buf[:0], kindBinary
			}
		}
		if eof {
			break
		}
	}
	if int64(len(buf)) > limit {
		return buf[:0], kindLarge
	}
	return buf, kindText
}

// textBeforeNUL returns how much of b ripgrep searches when walking a
// directory and the first NUL byte of b is at nul: it reads a file in
// blocks (64 KiB, tripled when one line does not fit), searches each
// block's complete lines once it has read the block, and stops silently
// at the block holding the NUL byte. The lines it had searched before
// stay searched.
func textBeforeNUL(b []byte, nul int) int {
	size := firstBlock
	start, end := 0, 0 // b[:start] was searched; the buffer holds b[start:end]
	for {
		if end-start == size {
			size *= 3
		}
		next := min(start+size, len(b))
		if nul < next || next == end {
			return start
		}
		old := end
		end = next
		if i := bytes.LastIndexByte(b[old:end], '\n'); i >= 0 {
			start = old + i + 1
		}
	}
}

// searchBuf finds every matching line of b, keeping the first MaxPerFile
// with their context.
func searchBuf(b []byte, fd finder, q Query) FileMatches {
	var fm FileMatches
	lineNo, counted := 1, 0 // lineNo is the number of the line starting at counted
	lastKept := 0           // highest line number already in fm.Lines
	for pos := 0; pos <= len(b); {
		start := fd.find(pos)
		if start < 0 {
			break
		}
		i := start
		end := bytes.IndexByte(b[i:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += i
		}
		lineNo += bytes.Count(b[counted:start], []byte{'\n'})
		counted = start
		if start == len(b) {
			break // the empty "line" after a final newline (or of an empty file) is not a line
		}
		fm.Matches++
		if fm.Matches <= q.MaxPerFile {
			lastKept = keep(&fm, b, start, lineNo, lastKept, q)
		}
		pos = end + 1
	}
	return fm
}

// keep appends the match line at start (number n) with its context,
// skipping lines already kept; it returns the new highest kept line.
func keep(fm *FileMatches, b []byte, start, n, lastKept int, q Query) int {
	// Walk back to the first context line.
	first, firstN := start, n
	for firstN > max(n-q.Context, lastKept+1) && first > 0 {
		first = bytes.LastIndexByte(b[:first-1], '\n') + 1
		firstN--
	}
	// A kept context line that turns out to be a match is upgraded.
	if len(fm.Lines) > 0 && n <= lastKept {
		for k := range fm.Lines {
			if fm.Lines[k].N == n {
				fm.Lines[k].Match = true
			}
		}
	}
	pos, ln := first, firstN
	for ln <= n+q.Context && pos <= len(b) {
		end := bytes.IndexByte(b[pos:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += pos
		}
		if pos == len(b) && ln > n {
			break // no line after the final newline
		}
		if ln > lastKept {
			fm.Lines = append(fm.Lines, Line{N: ln, Text: clip(b[pos:end], q.MaxLineLen), Match: ln == n})
			lastKept = ln
		}
		pos, ln = end+1, ln+1
	}
	return lastKept
}

func clip(line []byte, limit int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	cut := len(line) > limit
	if cut {
		line = line[:limit]
		// Do not leave half a rune at the cut.
		for k := 0; k < utf8.UTFMax-1 && len(line) > 0; k++ {
			if r, _ := utf8.DecodeLastRune(line); r != utf8.RuneError {
				break
			}
			line = line[:len(line)-1]
		}
	}
	s := strings.ToValidUTF8(string(line), "\uFFFD")
	if cut {
		s += " …"
	}
	return s
}
