package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tetherdev/tether/safety"

	"github.com/tetherdev/tether/tools"
)

// Workspace is what the search tools need of *safety.Workspace: a
// read-only confined view, and a way to turn a path a model wrote into
// a confined relative one.
type Workspace interface {
	FS() fs.FS
	Rel(path string) (string, error)
}

// SearchArgs are search_workspace's arguments.
type SearchArgs struct {
	Query        string   `json:"query" jsonschema:"description=Text to find; with isRegex=true an RE2 regular expression matched one line at a time: (?i) for any case\\, a|b for alternatives\\, .* for wildcards."`
	IsRegex      bool     `json:"isRegex,omitempty" jsonschema:"description=Treat query as a regular expression. Use it when unsure of casing ((?i)name)\\, for alternatives (foo|bar) or wildcards (get.*Name)."`
	Path         string   `json:"path,omitempty" jsonschema:"description=Directory or file to search\\, relative to the workspace root. Default: the whole workspace."`
	Include      []string `json:"include,omitempty" jsonschema:"description=Only files matching these globs\\, e.g. *.go or src/**/*.ts."`
	ContextLines *int     `json:"contextLines,omitempty" jsonschema:"description=Lines of context around each match (0-5). Default 1.,minimum=0,maximum=5"`
	MaxResults   int      `json:"maxResults,omitempty" jsonschema:"description=Most matching lines to show (default 100\\, at most 500).,minimum=1,maximum=500"`
}

// SearchName is the tool's name.
const SearchName = "search_workspace"

// NewSearch returns search_workspace over ws.
func NewSearch(ws Workspace) tools.Tool {
	return tools.New(SearchName,
		"Search file contents in the workspace (like ripgrep): literal text by default, or a regular expression with isRegex=true. "+
			"Respects .gitignore and skips hidden and binary files. Output: a '── path ──' header per file, '→ N: line' for matches and indented context lines.",
		func(ctx context.Context, a SearchArgs) (tools.Result, error) { return runSearch(ctx, ws, a) },
		tools.ReadOnly(),
		tools.WithEffects(func(_ context.Context, a SearchArgs) (tools.Effects, error) { return tools.Reading(a.Path), nil }),
		tools.WithTitle(func(c tools.Call, _ tools.Effects) tools.Title {
			return tools.Verb("Searching for ", "Searched for ", "Search for ", "“"+tools.Shorten(c.StringArg("query"), 60)+"”", tools.KindSearch)
		}),
		tools.WithGuidance(tools.SectionSearch, "search_workspace finds text in files. Set isRegex=true when you are unsure of the exact text:\n  (?i)config for any casing, parseArgs|parse_args for alternatives, func .*Handler for wildcards."),
		tools.WithGuidance(tools.SectionSearch, "Search for the most specific name you know (a function, an error message) rather than a common word."),
		tools.WithGuidance(tools.SectionSearch, "Narrow a broad search with path (a directory) or include (globs such as *.go) before reading many files."),
		tools.WithArgAliases("query", "pattern", "search", "text", "regex", "q", "term", "search_term"),
		tools.WithArgAliases("isRegex", "use_regex", "regexp"),
		tools.WithArgAliases("path", "dir", "directory", "folder", "in"),
		tools.WithArgAliases("include", "glob", "file_pattern", "files", "filePattern"),
		tools.WithArgAliases("contextLines", "context", "C"),
		tools.WithArgAliases("maxResults", "limit", "max", "max_count"),
	)
}

func runSearch(ctx context.Context, ws Workspace, a SearchArgs) (tools.Result, error) {
	if a.Query == "" {
		return tools.Result{}, errors.New(`"query" is empty: give the text or pattern to search for`)
	}
	dir := "."
	if a.Path != "" {
		rel, err := ws.Rel(a.Path)
		if err != nil {
			return tools.Result{}, err
		}
		dir = rel
	}
	ctxLines := 1
	if a.ContextLines != nil {
		ctxLines = min(max(*a.ContextLines, 0), 5)
	}
	limit := a.MaxResults
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 500)
	q := Query{Pattern: a.Query, Regex: a.IsRegex, Dir: dir, Include: splitGlobs(a.Include), Context: ctxLines}
	if o, ok := ws.(interface {
		Open(string) (*os.File, error)
	}); ok {
		q.OpenDir = o.Open
	}
	if s, ok := ws.(interface{ Sensitivity() *safety.Sensitivity }); ok {
		// The agent asks before read_file opens a secret; search has no
		// path to ask about, so it leaves secrets out.
		sens := s.Sensitivity()
		q.Skip = func(p string) bool { return sens.NeedsApproval(p, safety.OpRead) }
	}
	res, err := Search(ctx, ws.FS(), q)
	if errors.Is(err, fs.ErrNotExist) {
		return tools.Result{}, fmt.Errorf("%q does not exist in the workspace; use list_files to see what does", a.Path)
	}
	if err != nil {
		return tools.Result{}, err
	}
	reportFiles(ctx, res)
	text, shown, shownFiles := Format(res, limit)
	secrets := ""
	if res.SkippedSecret > 0 {
		secrets = fmt.Sprintf("\n[%s that may hold secrets (.env, keys, credentials) not searched; read one with read_file if you need it, which asks the user.]", plural(res.SkippedSecret, "file"))
	}
	meta := tools.Meta{Path: dir, Matches: res.Matches, Files: len(res.Files)}
	if res.Matches == 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "No matches for %q in %s (%s searched", a.Query, where(dir), plural(res.Searched, "file"))
		if res.SkippedBinary > 0 {
			fmt.Fprintf(&b, ", %d binary skipped", res.SkippedBinary)
		}
		b.WriteString(").")
		if !a.IsRegex && strings.ContainsAny(a.Query, `|*+?()[]\^$`) {
			b.WriteString(" The query contains regex syntax; set isRegex=true to use it as a regular expression.")
		} else if !a.IsRegex {
			b.WriteString(" The search is case-sensitive; try isRegex=true with (?i) for any case.")
		}
		return tools.Result{Text: b.String() + secrets, Meta: meta}, nil
	}
	if shown < res.Matches {
		meta.Truncated = true
		meta.OmittedItems = res.Matches - shown
		text += fmt.Sprintf("\n\n[Showing %d of %s in %d of %s. Narrow the search with path or include, or raise maxResults.]",
			shown, pluralES(res.Matches, "match"), shownFiles, plural(len(res.Files), "file"))
	} else {
		text += fmt.Sprintf("\n\n[%s in %s]", pluralES(res.Matches, "match"), plural(len(res.Files), "file"))
	}
	return tools.Result{Text: text + secrets, Meta: meta}, nil
}

// splitGlobs accepts "*.go,*.ts" and "*.go *.ts" as two globs, as models
// write them; a glob with braces keeps its commas ({a,b} is one glob).
func splitGlobs(in []string) []string {
	var out []string
	for _, g := range in {
		if strings.ContainsAny(g, "{}") {
			out = append(out, strings.TrimSpace(g))
			continue
		}
		out = append(out, strings.FieldsFunc(g, func(r rune) bool { return r == ',' || r == ' ' })...)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// pluralES is plural for a noun whose plural ends in "es".
func pluralES(n int, word string) string {
	return fmt.Sprintf("%d %s", n, nounES(n, word))
}

func nounES(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "es"
}

func where(dir string) string {
	if dir == "." {
		return "the workspace"
	}
	return dir
}

// Format renders results grouped by file, the matching line marked by an
// arrow and its context indented, showing at most limit
// matching lines; it returns the text and how many matches and files it
// shows.
//
//	── src/a.go ──
//	  10: context line before
//	→ 11: matching line
//	  12: context line after
func Format(res Results, limit int) (string, int, int) {
	var b strings.Builder
	shown, files := 0, 0
	for _, f := range res.Files {
		if shown >= limit {
			break
		}
		if files > 0 {
			b.WriteString("\n")
		}
		files++
		fmt.Fprintf(&b, "── %s ──\n", f.Path)
		keptMatches := 0
		for i, l := range f.Lines {
			if l.Match {
				if shown >= limit {
					break
				}
				shown++
				keptMatches++
				fmt.Fprintf(&b, "→ %d: %s\n", l.N, l.Text)
				continue
			}
			// Context after the last shown match only.
			if keptMatches == 0 || shown < limit || precededByShown(f.Lines, i) {
				fmt.Fprintf(&b, "  %d: %s\n", l.N, l.Text)
			}
		}
		if more := f.Matches - keptMatches; more > 0 {
			fmt.Fprintf(&b, "[+%d more %s in this file]\n", more, nounES(more, "match"))
		}
	}
	return strings.TrimRight(b.String(), "\n"), shown, files
}

// precededByShown reports whether the context line at i directly follows
// (through context lines) a match that was shown.
func precededByShown(lines []Line, i int) bool {
	for j := i - 1; j >= 0 && lines[j].N == lines[i].N-(i-j); j-- {
		if lines[j].Match {
			return true
		}
	}
	return false
}

// maxReportedFiles bounds the per-file counts one progress report carries.
const maxReportedFiles = 200

// reportFiles tells a listening UI which files matched and how often.
func reportFiles(ctx context.Context, res Results) {
	if !tools.Reporting(ctx) || len(res.Files) == 0 {
		return
	}
	n := min(len(res.Files), maxReportedFiles)
	files := make([]tools.FileCount, n)
	for i, f := range res.Files[:n] {
		files[i] = tools.FileCount{Path: f.Path, Matches: f.Matches}
	}
	tools.Report(ctx, tools.Progress{Tool: SearchName, Files: files, Dropped: len(res.Files) - n})
}
