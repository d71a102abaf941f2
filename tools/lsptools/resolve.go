package lsptools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
)

// positionArgs is how a model names a place in code: a file and a symbol
// name, optionally near a line, or an exact line and column.
type positionArgs struct {
	Path       string `json:"path" jsonschema:"description=File containing the symbol\\, relative to the workspace root."`
	SymbolName string `json:"symbolName,omitempty" jsonschema:"description=Name of the function\\, type\\, method or variable. Preferred: the tool finds it in the file (exact match first\\, then any case)."`
	Line       int    `json:"line,omitempty" jsonschema:"minimum=1,description=1-based line. With symbolName: picks the occurrence nearest this line. Alone: the first word on that line."`
	Character  int    `json:"character,omitempty" jsonschema:"minimum=1,description=1-based column\\, counted in characters. Only used together with line."`
}

// idleWait bounds how long a call waits for a server to finish loading;
// idleQuiet is how long a server must have been quiet (no progress, no
// newly opened file) to count as ready.
const (
	idleWait  = 30 * time.Second
	idleQuiet = 250 * time.Millisecond
)

// doc is a file the server has been given.
type doc struct {
	abs    string // absolute path
	rel    string // workspace-relative, slash-separated
	text   string
	lines  []string
	client *lsp.Client
}

// open checks and reads the file a model named and syncs it to its
// language server. Errors are for the model: bad path, a secret, no
// server (wrapping lsp.ErrNoServer).
func (k *kit) open(ctx context.Context, path string) (*doc, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("path is required: the file to analyse, relative to the workspace root")
	}
	pc := k.cfg.Files.Check(path, safety.OpRead)
	switch pc.Decision {
	case safety.Deny:
		if pc.Err != nil {
			return nil, pc.Err
		}
		return nil, fmt.Errorf("%s: %s", path, pc.Reason)
	case safety.Confirm:
		return nil, fmt.Errorf("%s needs approval to read (%s); code intelligence does not read such files", path, pc.Reason)
	}
	b, err := k.cfg.Files.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%s is not a UTF-8 text file", pc.Rel)
	}
	client, err := k.cfg.Servers.ClientFor(ctx, pc.Resolved)
	if err != nil {
		return nil, err
	}
	d := &doc{abs: pc.Resolved, rel: pc.Rel, text: string(b), client: client}
	d.lines = lsp.SplitLines(d.text)
	if err := client.Sync(ctx, d.abs, d.text); err != nil {
		return nil, err
	}
	// A server still loading the project answers partially (tsserver
	// resolves a name to its import); wait for it, within reason.
	wctx, cancel := context.WithTimeout(ctx, idleWait)
	err = client.WaitIdle(wctx, idleQuiet)
	cancel()
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := k.refresh(ctx, client, d.abs); err != nil {
		return nil, err
	}
	return d, nil
}

// refresh re-syncs the other documents the server has open with the
// files as they are now, so an answer about them (references, say) does
// not rest on a version from before the agent edited them. A deleted file
// is closed.
func (k *kit) refresh(ctx context.Context, client *lsp.Client, except string) error {
	for _, p := range client.Documents() {
		if p == except {
			continue
		}
		rel := k.displayPath(p)
		if rel == p {
			continue // not ours to read
		}
		b, err := k.cfg.Files.ReadFile(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := client.CloseDocument(ctx, p); err != nil {
				return err
			}
		case err != nil || !utf8.Valid(b):
			continue // leave it as the server knows it
		default:
			if err := client.Sync(ctx, p, string(b)); err != nil {
				return err
			}
		}
	}
	return nil
}

// target is a resolved position and how to describe it.
type target struct {
	pos  lsp.Position
	name string // the symbol, or the word at the position
	line int    // 1-based, for messages
	col  int    // 1-based characters
}

func (t target) String() string {
	if t.name != "" {
		return fmt.Sprintf("%s at line %d, column %d", t.name, t.line, t.col)
	}
	return fmt.Sprintf("line %d, column %d", t.line, t.col)
}

// resolve turns a model's position arguments into an LSP position:
//  1. line and character both given: used directly (1-based → 0-based);
//  2. symbolName given: its occurrence in the text, exact before
//     case-insensitive, whole words before substrings, code before
//     comments; nearest to line when given, else the file's own
//     declaration of it when it has one, else the first;
//  3. only line: the first word on that line.
func (k *kit) resolve(ctx context.Context, d *doc, a positionArgs) (target, error) {
	if a.Line > len(d.lines) {
		return target{}, fmt.Errorf("line %d is past the end of %s (%d lines)", a.Line, d.rel, len(d.lines))
	}
	switch {
	case a.Line > 0 && a.Character > 0 && a.SymbolName == "":
		line := d.lines[a.Line-1]
		b := runeToByte(line, a.Character-1)
		return target{pos: lsp.Position{Line: a.Line - 1, Character: lsp.UTF16Col(line, b)}, name: wordAt(line, b), line: a.Line, col: a.Character}, nil
	case a.SymbolName != "":
		return k.resolveSymbol(ctx, d, strings.TrimSpace(a.SymbolName), a.Line)
	case a.Line > 0:
		line := d.lines[a.Line-1]
		b := len(line) - len(strings.TrimLeftFunc(line, unicode.IsSpace))
		return target{pos: lsp.Position{Line: a.Line - 1, Character: lsp.UTF16Col(line, b)}, name: wordAt(line, b), line: a.Line, col: utf8.RuneCountInString(line[:b]) + 1}, nil
	}
	return target{}, fmt.Errorf("say where: give symbolName (best), or line (and character)")
}

type occurrence struct {
	line, byteCol int
	length        int // bytes of the match in the line
	tier          int // lower is better
}

func (k *kit) resolveSymbol(ctx context.Context, d *doc, name string, near int) (target, error) {
	// "Server.Handle" or "pkg.Func": the part after the last dot is what
	// appears at the use or declaration site.
	search := name
	if i := strings.LastIndexByte(name, '.'); i >= 0 && i < len(name)-1 {
		search = name[i+1:]
	}
	if near == 0 {
		if t, ok := k.declared(ctx, d, search); ok {
			return t, nil
		}
	}
	occ := findOccurrences(d.lines, search)
	if len(occ) == 0 {
		return target{}, fmt.Errorf("symbol %q not found in %s (searched exact and case-insensitive); check the spelling with get_document_symbols, or give line and character", name, d.rel)
	}
	best := occ[0]
	for _, o := range occ[1:] {
		if o.tier != best.tier {
			if o.tier < best.tier {
				best = o
			}
			continue
		}
		if near > 0 && abs(o.line-(near-1)) < abs(best.line-(near-1)) {
			best = o
		}
	}
	line := d.lines[best.line]
	return target{pos: lsp.Position{Line: best.line, Character: lsp.UTF16Col(line, best.byteCol)}, name: line[best.byteCol : best.byteCol+best.length],
		line: best.line + 1, col: utf8.RuneCountInString(line[:best.byteCol]) + 1}, nil
}

// declared finds the symbol among the file's own declarations (document
// symbols), exact name first, then any case.
func (k *kit) declared(ctx context.Context, d *doc, name string) (target, bool) {
	syms, err := d.client.DocumentSymbols(ctx, d.abs)
	if err != nil {
		return target{}, false
	}
	var flat []lsp.DocumentSymbol
	var walk func([]lsp.DocumentSymbol)
	walk = func(ss []lsp.DocumentSymbol) {
		for _, s := range ss {
			flat = append(flat, s)
			walk(s.Children)
		}
	}
	walk(syms)
	for _, fold := range []bool{false, true} {
		for _, s := range flat {
			n := bareName(s.Name)
			if n == name || (fold && strings.EqualFold(n, name)) {
				p := s.SelectionRange.Start
				if p.Line >= len(d.lines) {
					continue
				}
				line := d.lines[p.Line]
				b := lsp.ByteCol(line, p.Character)
				// The selection range should start at the name; if the
				// server points elsewhere, find the name on that line.
				if !strings.HasPrefix(strings.ToLower(line[b:]), strings.ToLower(name)) {
					if i := strings.Index(strings.ToLower(line), strings.ToLower(name)); i >= 0 {
						b = i
						p.Character = lsp.UTF16Col(line, i)
					}
				}
				return target{pos: p, name: n, line: p.Line + 1, col: utf8.RuneCountInString(line[:b]) + 1}, true
			}
		}
	}
	return target{}, false
}

// bareName strips what servers add to names: gopls calls methods
// "(*Server).Handle" or "(Server).Handle".
func bareName(n string) string {
	if i := strings.LastIndexByte(n, '.'); i >= 0 && strings.HasPrefix(n, "(") {
		return n[i+1:]
	}
	return n
}

// findOccurrences lists every occurrence of name, ranked: exact whole
// word (0), exact substring (2), any-case whole word (4), any-case
// substring (6); one more when the occurrence sits in a line comment.
// Offsets are in the original text: case folding may change byte
// lengths ("İ"), so matches are compared rune by rune, never by offsets
// into a lowered copy.
func findOccurrences(lines []string, name string) []occurrence {
	if name == "" {
		return nil
	}
	nameRunes := utf8.RuneCountInString(name)
	// Only a rune in the case-fold orbit of name's first rune can start a
	// match: checking it first skips most positions cheaply.
	first, _ := utf8.DecodeRuneInString(name)
	orbit := []rune{first}
	for r := unicode.SimpleFold(first); r != first; r = unicode.SimpleFold(r) {
		orbit = append(orbit, r)
	}
	var out []occurrence
	for i, line := range lines {
		for j := 0; j < len(line); {
			r, size := utf8.DecodeRuneInString(line[j:])
			if !slices.Contains(orbit, r) {
				j += size
				continue
			}
			n := prefixLen(line[j:], nameRunes)
			cand := line[j : j+n]
			tier := -1
			switch {
			case cand == name:
				tier = 0
			case strings.EqualFold(cand, name):
				tier = 4
			}
			if tier >= 0 {
				if !wholeWord(line, j, n) {
					tier += 2
				}
				if inComment(line, j) {
					tier++
				}
				out = append(out, occurrence{line: i, byteCol: j, length: n, tier: tier})
			}
			j += size
		}
	}
	slices.SortStableFunc(out, func(a, b occurrence) int { return a.tier - b.tier })
	return out
}

// prefixLen is the byte length of the first n runes of s (all of s when
// it is shorter).
func prefixLen(s string, n int) int {
	i := 0
	for b := range s {
		if i == n {
			return b
		}
		i++
	}
	return len(s)
}

func wholeWord(line string, at, n int) bool {
	before, _ := utf8.DecodeLastRuneInString(line[:at])
	after, _ := utf8.DecodeRuneInString(line[at+n:])
	return !isIdent(before) && !isIdent(after)
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// inComment guesses whether byte at of line is in a line comment.
func inComment(line string, at int) bool {
	pre := line[:at]
	t := strings.TrimSpace(pre)
	return strings.Contains(pre, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*")
}

// wordAt returns the identifier around byte b of line.
func wordAt(line string, b int) string {
	if b > len(line) {
		return ""
	}
	start, end := b, b
	for start > 0 {
		r, n := utf8.DecodeLastRuneInString(line[:start])
		if !isIdent(r) {
			break
		}
		start -= n
	}
	for end < len(line) {
		r, n := utf8.DecodeRuneInString(line[end:])
		if !isIdent(r) {
			break
		}
		end += n
	}
	return line[start:end]
}

// runeToByte converts a 0-based character column to a byte offset,
// clamped to the line.
func runeToByte(line string, col int) int {
	i := 0
	for b := range line {
		if i == col {
			return b
		}
		i++
	}
	return len(line)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// displayPath shows a location's file: workspace-relative inside the
// workspace, absolute outside.
func (k *kit) displayPath(path string) string {
	root := k.cfg.Files.Root()
	if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return path
}
