package search

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// ListArgs are list_files's arguments.
type ListArgs struct {
	Path       string `json:"path,omitempty" jsonschema:"description=Directory to list\\, relative to the workspace root. Default: the root."`
	Recursive  bool   `json:"recursive,omitempty" jsonschema:"description=List subdirectories too (respects .gitignore)."`
	Hidden     bool   `json:"hidden,omitempty" jsonschema:"description=Include dot-files and dot-directories."`
	MaxEntries int    `json:"maxEntries,omitempty" jsonschema:"description=Most entries to show (default 200\\, at most 2000).,minimum=1,maximum=2000"`
}

// maxCounted bounds the entries a recursive listing walks to count what
// it does not show.
const maxCounted = 100_000

// ListName is the tool's name.
const ListName = "list_files"

// NewList returns list_files over ws.
func NewList(ws Workspace) tools.Tool {
	return tools.New(ListName,
		"List a directory of the workspace: directories end with '/', files show their size. With recursive=true lists the whole tree below it, skipping what .gitignore excludes.",
		func(ctx context.Context, a ListArgs) (tools.Result, error) { return runList(ctx, ws, a) },
		tools.ReadOnly(),
		tools.WithEffects(func(_ context.Context, a ListArgs) (tools.Effects, error) { return tools.Reading(a.Path), nil }),
		tools.WithTitle(func(_ tools.Call, eff tools.Effects) tools.Title {
			p := tools.EffectPath(eff)
			if p == "" {
				p = "."
			}
			return tools.Verb("Listing ", "Listed ", "List ", p, tools.KindInspect)
		}),
		tools.WithArgAliases("path", "dir", "directory", "folder"),
		tools.WithArgAliases("maxEntries", "limit", "max"),
	)
}

func runList(ctx context.Context, ws Workspace, a ListArgs) (tools.Result, error) {
	dir := "."
	if a.Path != "" {
		rel, err := ws.Rel(a.Path)
		if err != nil {
			return tools.Result{}, err
		}
		dir = rel
	}
	fsys := ws.FS()
	st, err := fs.Stat(fsys, dir)
	if err != nil {
		return tools.Result{}, fmt.Errorf("cannot list %q: %w", a.Path, err)
	}
	if !st.IsDir() {
		return tools.Result{}, fmt.Errorf("%q is a file (%d bytes), not a directory; use read_file to read it", dir, st.Size())
	}
	limit := a.MaxEntries
	if limit <= 0 {
		limit = 200
	}
	limit = min(limit, 2000)
	opt := WalkOptions{Hidden: a.Hidden, MaxDepth: 1}
	if a.Recursive {
		opt.MaxDepth = 0
	}
	var b strings.Builder
	total, dirs, files := 0, 0, 0
	prefix := ""
	if dir != "." {
		prefix = dir + "/"
	}
	stopped := false
	err = Walk(ctx, fsys, dir, opt, func(p string, d fs.DirEntry, _ int) error {
		if total == maxCounted {
			stopped = true // counting a huge tree is not worth the wait
			return fs.SkipAll
		}
		total++
		name := strings.TrimPrefix(p, prefix)
		switch {
		case d.IsDir():
			dirs++
			if total <= limit {
				fmt.Fprintf(&b, "%s/\n", name)
			}
		default:
			files++
			if total > limit {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				fmt.Fprintf(&b, "%s@\n", name)
			} else if info, err := d.Info(); err == nil {
				fmt.Fprintf(&b, "%s (%s)\n", name, humanSize(info.Size()))
			} else {
				fmt.Fprintf(&b, "%s\n", name)
			}
		}
		return nil
	})
	if err != nil {
		return tools.Result{}, err
	}
	head := fmt.Sprintf("Contents of %s", dir)
	if dir == "." {
		head = "Contents of the workspace root"
	}
	if a.Recursive {
		head += " (recursive)"
	}
	text := head + ":\n" + b.String()
	meta := tools.Meta{Path: dir, Entries: total}
	if total == 0 {
		text = head + ": (empty)"
	}
	if total > limit {
		meta.Truncated, meta.OmittedItems = true, total-limit
		if stopped {
			text += fmt.Sprintf("[More than %d entries; counting stopped. List a subdirectory.]", maxCounted)
		} else {
			text += fmt.Sprintf("[%d more entries not shown; %d directories and %d files in all. List a subdirectory or raise maxEntries.]", total-limit, dirs, files)
		}
	} else {
		text = strings.TrimRight(text, "\n")
	}
	return tools.Result{Text: text, Meta: meta}, nil
}

func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
