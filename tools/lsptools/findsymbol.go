package lsptools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/tools"
)

type findSymbolArgs struct {
	Query string `json:"query" jsonschema:"description=Symbol name or part of it\\, e.g. handleRequest or UserService."`
	Kind  string `json:"kind,omitempty" jsonschema:"description=Only symbols of this kind: function\\, method\\, class\\, struct\\, interface\\, variable\\, constant\\, field\\, …"`
	Path  string `json:"path,omitempty" jsonschema:"description=A file whose language to search (e.g. any .py file for Python). Default: every language found in the workspace."`
}

func (k *kit) findSymbol() tools.Tool {
	return tools.New(FindSymbolName,
		"Find functions, classes, types and other symbols by name across the workspace using the language server's index, "+
			"when you don't know which file a symbol is in. Smarter than text search: finds declarations, not mentions.",
		func(ctx context.Context, a findSymbolArgs) (tools.Result, error) {
			q := strings.TrimSpace(a.Query)
			if q == "" {
				return tools.Result{}, errors.New("query is required: the symbol name to look for")
			}
			samples, err := k.languageSamples(a.Path)
			if err != nil {
				return tools.Result{}, err
			}
			var all []lsp.SymbolInformation
			var servers, none []string
			for _, sample := range samples {
				d, err := k.open(ctx, sample)
				if err != nil {
					if why, ok := serverProblem(err); ok {
						none = append(none, why)
						continue
					}
					return tools.Result{}, err
				}
				syms, err := d.client.WorkspaceSymbols(ctx, q)
				if err != nil {
					return tools.Result{}, err
				}
				servers = append(servers, d.client.Name())
				all = append(all, syms...)
			}
			if len(servers) == 0 {
				msg := "no source files of a known language in the workspace"
				if len(none) > 0 {
					msg = strings.Join(none, "; ")
				}
				return tools.Text(fmt.Sprintf("No symbols: %s. Use search_workspace instead.", msg)), nil
			}
			return k.symbolsResult(q, a.Kind, all), nil
		}, tools.ReadOnly(), tools.WithTimeout(DefaultTimeout), tools.WithKind(tools.KindSearch),
		tools.WithGuidance(tools.SectionNavigation, "Use find_symbol when you know a symbol's name but not which file it is in."),
		tools.WithArgAliases("query", "symbolName", "symbol", "name"))
}

func (k *kit) symbolsResult(q, kind string, syms []lsp.SymbolInformation) tools.Result {
	if kind = strings.ToLower(strings.TrimSpace(kind)); kind != "" {
		syms = slices.DeleteFunc(syms, func(s lsp.SymbolInformation) bool { return !strings.Contains(s.Kind.String(), kind) })
	}
	// Servers match fuzzily (gopls finds "FuncID_runCleanups" for
	// "Circle"); when some names contain the query, the rest are noise.
	lq := strings.ToLower(q)
	contains := func(s lsp.SymbolInformation) bool { return strings.Contains(strings.ToLower(s.Name), lq) }
	if slices.ContainsFunc(syms, contains) {
		syms = slices.DeleteFunc(syms, func(s lsp.SymbolInformation) bool { return !contains(s) })
	}
	// Dependencies and the standard library are large: once the workspace
	// has matches, keep outside ones only when their name is the query.
	outside := func(s lsp.SymbolInformation) bool { p := locPath(s.Location.URI); return k.displayPath(p) == p }
	if slices.ContainsFunc(syms, func(s lsp.SymbolInformation) bool { return !outside(s) }) {
		syms = slices.DeleteFunc(syms, func(s lsp.SymbolInformation) bool {
			return outside(s) && !strings.EqualFold(bareName(s.Name), q) && !strings.EqualFold(lastPart(s.Name), q)
		})
	}
	rank := func(s lsp.SymbolInformation) int {
		r := 3
		n := bareName(s.Name)
		switch {
		case n == q:
			r = 0
		case strings.EqualFold(n, q):
			r = 1
		case strings.HasPrefix(strings.ToLower(n), strings.ToLower(q)):
			r = 2
		}
		if p := locPath(s.Location.URI); k.displayPath(p) == p {
			r += 4 // outside the workspace (dependencies, the standard library)
		}
		return r
	}
	slices.SortStableFunc(syms, func(a, b lsp.SymbolInformation) int { return rank(a) - rank(b) })
	meta := tools.Meta{Matches: len(syms)}
	if len(syms) == 0 {
		return tools.Result{Text: fmt.Sprintf("No symbols matching %q found. Try a shorter query, or search_workspace for text.", q), Meta: meta}
	}
	src := k.sources()
	shown := syms[:min(len(syms), k.cfg.MaxSymbols)]
	var b strings.Builder
	fmt.Fprintf(&b, "Found %s matching %q:\n", plural(len(syms), "symbol", "symbols"), q)
	files := map[string]bool{}
	for _, s := range shown {
		p := locPath(s.Location.URI)
		files[p] = true
		fmt.Fprintf(&b, "\n%s %s — %s", s.Kind, s.Name, src.where(p, s.Location.Range.Start))
		if s.ContainerName != "" {
			fmt.Fprintf(&b, " (in %s)", s.ContainerName)
		}
		b.WriteString("\n")
		if m := src.marked(p, s.Location.Range.Start); m != "" {
			b.WriteString("  " + m + "\n")
		}
	}
	if len(shown) < len(syms) {
		fmt.Fprintf(&b, "\n[%d more not shown; refine the query or pass kind]\n", len(syms)-len(shown))
		meta.Truncated, meta.OmittedItems = true, len(syms)-len(shown)
	}
	meta.Files = len(files)
	return tools.Result{Text: b.String(), Meta: meta}
}

// sampleLimit bounds the walk that finds which languages a workspace has.
const sampleLimit = 20000

// skipDirs are never walked for language samples.
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, "target": true, "dist": true, "build": true, "__pycache__": true}

// languageSamples returns one workspace file per language to query: the
// file named by hint, or the first file of each known extension found.
// Servers such as typescript-language-server answer workspace queries
// only once a file of the project is open.
func (k *kit) languageSamples(hint string) ([]string, error) {
	if hint != "" {
		return []string{hint}, nil
	}
	known := map[string]bool{".go": true, ".ts": true, ".tsx": true, ".js": true, ".py": true, ".rs": true}
	family := map[string]string{".tsx": ".ts", ".js": ".ts"} // one TypeScript server serves all three
	seen := map[string]string{}
	var order []string
	n := 0
	err := fs.WalkDir(k.cfg.Files.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable corners do not stop the search
		}
		if n++; n > sampleLimit {
			return fs.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || skipDirs[name]) {
				return fs.SkipDir
			}
			return nil
		}
		ext := strings.ToLower(path.Ext(name))
		if !known[ext] {
			return nil
		}
		fam := ext
		if f, ok := family[ext]; ok {
			fam = f
		}
		if _, ok := seen[fam]; !ok {
			seen[fam] = p
			order = append(order, p)
		}
		return nil
	})
	return order, err
}

// lastPart is the name after the last dot ("Circle.Area" → "Area").
func lastPart(n string) string {
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}
