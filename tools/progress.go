package tools

import "context"

// Progress is an intermediate report from a running call, for UIs: a
// chunk of a file read (each 100-line chunk can be shown as its own
// action), new lines of a command's output.
type Progress struct {
	Tool      string `json:"tool,omitempty"`
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	// Output holds new output lines, escapes stripped; Dropped counts
	// lines (or, with Files, files) produced since the last report that
	// were not included.
	Output  string `json:"output,omitempty"`
	Dropped int    `json:"dropped,omitempty"`
	// Done, Total and Message are a remote tool's own report (MCP
	// progress): how far it is, of how much when it knows (0: unknown),
	// and what it is doing.
	Done    float64 `json:"done,omitempty"`
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
	// Files are a search's hits per file, so a UI can draw the result
	// tree before the model reads the text.
	Files []FileCount `json:"files,omitempty"`
}

// FileCount is one file of a search and how many lines in it matched.
type FileCount struct {
	Path    string `json:"path"`
	Matches int    `json:"matches"`
}

// Reporter receives progress. It is called from the tool's goroutines and
// must return quickly; a slow reporter slows the tool.
type Reporter func(Progress)

type reporterKey struct{}

// WithReporter returns a context whose calls report progress to r.
// Progress is request-scoped data, so it travels with the call's context
// rather than through every tool's constructor.
func WithReporter(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, reporterKey{}, r)
}

// Report sends p to the context's Reporter, if any.
func Report(ctx context.Context, p Progress) {
	if r, ok := ctx.Value(reporterKey{}).(Reporter); ok && r != nil {
		r(p)
	}
}

// Reporting reports whether ctx has a Reporter, so tools can skip work
// that only progress needs.
func Reporting(ctx context.Context) bool {
	r, ok := ctx.Value(reporterKey{}).(Reporter)
	return ok && r != nil
}
