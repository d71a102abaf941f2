package fstools

import (
	"context"
	"fmt"

	"github.com/tetherdev/tether/tools"
)

// SizeArgs are get_file_size's arguments.
type SizeArgs struct {
	Path string `json:"path" jsonschema:"description=File to measure\\, relative to the workspace root."`
}

// SizeName is get_file_size's name.
const SizeName = "get_file_size"

// NewSize returns get_file_size: lines and bytes, counted by streaming.
func NewSize(ws Workspace) tools.Tool {
	return tools.New(SizeName,
		"Get a file's size in lines and bytes without reading it, to decide how to read a large file.",
		func(ctx context.Context, a SizeArgs) (tools.Result, error) {
			r, err := rel(ws, a.Path)
			if err != nil {
				return tools.Result{}, err
			}
			f, err := ws.Open(r)
			if err != nil {
				return tools.Result{}, notFound(a.Path, err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				return tools.Result{}, err
			}
			if st.IsDir() {
				return tools.Result{}, fmt.Errorf("%q is a directory; use list_files", a.Path)
			}
			n, err := countLines(ctxReader{ctx, f})
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{
				Text: fmt.Sprintf("%s: %s, %s (%d bytes).", r, plural(n, "line"), humanBytes(st.Size()), st.Size()),
				Meta: tools.Meta{Path: r, TotalLines: n, Bytes: st.Size()},
			}, nil
		},
		tools.ReadOnly(),
		tools.WithEffects(func(_ context.Context, a SizeArgs) (tools.Effects, error) { return tools.Reading(a.Path), nil }),
	)
}

// ctxReader stops a long read when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   interface{ Read([]byte) (int, error) }
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
