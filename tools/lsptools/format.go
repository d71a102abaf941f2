package lsptools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
)

// maxLineWidth cuts long lines (minified code) in listings.
const maxLineWidth = 240

// sources reads files for context lines during one call, each at most
// once. It reads workspace files through Files (so secrets stay hidden)
// and other files only under ReadRoots.
type sources struct {
	k     *kit
	cache map[string]source
}

type source struct {
	lines []string
	note  string // why there are no lines
}

func (k *kit) sources() *sources { return &sources{k: k, cache: map[string]source{}} }

func (s *sources) get(path string) source {
	if src, ok := s.cache[path]; ok {
		return src
	}
	src := s.load(path)
	s.cache[path] = src
	return src
}

func (s *sources) load(path string) source {
	k := s.k
	if rel := k.displayPath(path); rel != path {
		pc := k.cfg.Files.Check(rel, safety.OpRead)
		if pc.Decision != safety.Allow {
			return source{note: "content not shown: " + pc.Reason}
		}
		b, err := k.cfg.Files.ReadFile(rel)
		if err != nil {
			return source{note: "content not readable: " + err.Error()}
		}
		return source{lines: lsp.SplitLines(string(b))}
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return source{note: "outside the workspace"}
	}
	for _, root := range k.roots {
		if resolved == root || strings.HasPrefix(resolved, root+string(filepath.Separator)) {
			b, err := os.ReadFile(resolved)
			if err != nil {
				return source{note: "outside the workspace; not readable"}
			}
			return source{lines: lsp.SplitLines(string(b))}
		}
	}
	return source{note: "outside the workspace"}
}

// lineText returns line i (0-based) of path, cut to maxLineWidth.
func (s *sources) lineText(path string, i int) (string, bool) {
	src := s.get(path)
	if i < 0 || i >= len(src.lines) {
		return "", false
	}
	return clip(src.lines[i]), true
}

func clip(l string) string {
	if len(l) <= maxLineWidth {
		return l
	}
	cut := maxLineWidth
	for cut > 0 && !utf8.RuneStart(l[cut]) {
		cut--
	}
	return l[:cut] + " …"
}

// where is "path:line:col" (1-based; col in characters) for a location.
func (s *sources) where(path string, p lsp.Position) string {
	col := p.Character + 1
	if l, ok := s.lineText(path, p.Line); ok {
		col = utf8.RuneCountInString(l[:lsp.ByteCol(l, p.Character)]) + 1
	}
	return fmt.Sprintf("%s:%d:%d", s.k.displayPath(path), p.Line+1, col)
}

// block formats a location as search results are: a "── path:line:col ──"
// header, then the target line marked with → between context lines.
func (s *sources) block(path string, p lsp.Position, context int) string {
	var b strings.Builder
	src := s.get(path)
	fmt.Fprintf(&b, "── %s ──\n", s.where(path, p))
	if src.lines == nil {
		fmt.Fprintf(&b, "  (%s)\n", src.note)
		return b.String()
	}
	from, to := max(p.Line-context, 0), min(p.Line+context, len(src.lines)-1)
	width := len(fmt.Sprint(to + 1))
	for i := from; i <= to; i++ {
		mark := "  "
		if i == p.Line {
			mark = "→ "
		}
		fmt.Fprintf(&b, "%s%*d: %s\n", mark, width, i+1, clip(src.lines[i]))
	}
	return b.String()
}

// marked is the single line at p with its → marker, for listings.
func (s *sources) marked(path string, p lsp.Position) string {
	l, ok := s.lineText(path, p.Line)
	if !ok {
		return ""
	}
	return fmt.Sprintf("→ %d: %s", p.Line+1, strings.TrimRight(l, " \t"))
}

// locPath returns the file path of a location, or its URI when it is not
// a file.
func locPath(uri string) string {
	if p, err := lsp.Path(uri); err == nil {
		return p
	}
	return uri
}

// sortLocations orders locations by path then position, workspace files
// first, and drops exact duplicates.
func (k *kit) sortLocations(locs []lsp.Location) []lsp.Location {
	out := slices.Clone(locs)
	inside := func(l lsp.Location) bool { p := locPath(l.URI); return k.displayPath(p) != p }
	slices.SortStableFunc(out, func(a, b lsp.Location) int {
		if ia, ib := inside(a), inside(b); ia != ib {
			if ia {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.URI, b.URI); c != 0 {
			return c
		}
		if a.Range.Start.Line != b.Range.Start.Line {
			return a.Range.Start.Line - b.Range.Start.Line
		}
		return a.Range.Start.Character - b.Range.Start.Character
	})
	return slices.CompactFunc(out, func(a, b lsp.Location) bool { return a.URI == b.URI && a.Range.Start == b.Range.Start })
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
