package fstools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// read_file limits.
const (
	ChunkLines      = 100  // lines per chunk; each chunk is one UI action, so long reads show progress
	DefaultMaxLines = 500  // lines returned when no end_line is given
	MaxLines        = 2000 // most lines one call returns
	MaxLineBytes    = 2000 // longer lines are cut, with a marker
	maxOutputBytes  = 256 << 10
	sampleBytes     = 8 << 10 // sniffed for binary and encoding
	countLimit      = 256 << 20
)

// ReadArgs are read_file's arguments.
type ReadArgs struct {
	Path      string `json:"path" jsonschema:"description=File to read\\, relative to the workspace root."`
	StartLine int    `json:"start_line,omitempty" jsonschema:"description=First line to read (1-based). Default 1.,minimum=1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"description=Last line to read (inclusive). Default: 500 lines from start_line.,minimum=1"`
}

// ReadName is read_file's name.
const ReadName = "read_file"

// NewRead returns read_file.
func NewRead(ws Workspace) tools.Tool {
	return tools.New(ReadName,
		"Read a text file of the workspace, with line numbers. Reads up to 500 lines per call in 100-line chunks; use start_line and end_line for other parts of long files. Binary and non-UTF-8 files are described instead of shown.",
		func(ctx context.Context, a ReadArgs) (tools.Result, error) { return read(ctx, ws, a) },
		tools.ReadOnly(),
		tools.WithEffects(func(_ context.Context, a ReadArgs) (tools.Effects, error) { return tools.Reading(a.Path), nil }),
		tools.WithPathTitle("Reading ", "Read ", "Read ", tools.KindRead),
		tools.WithArgAliases("start_line", "line", "from", "offset", "start", "startLine", "from_line"),
		tools.WithArgAliases("end_line", "to", "end", "endLine", "to_line"),
	)
}

func read(ctx context.Context, ws Workspace, a ReadArgs) (tools.Result, error) {
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
		return tools.Result{}, fmt.Errorf("%q is a directory; use list_files to see its contents", a.Path)
	}
	meta := tools.Meta{Path: r, Bytes: st.Size()}
	if st.Size() == 0 {
		return tools.Result{Text: fmt.Sprintf("%s is empty (0 bytes).", r), Meta: meta}, nil
	}

	br := bufio.NewReaderSize(f, 64<<10)
	sample, _ := br.Peek(sampleBytes)
	if kind := classify(sample); kind != "" {
		text := fmt.Sprintf("%s is %s (%s); its content is not shown.", r, kind, humanBytes(st.Size()))
		if strings.HasPrefix(kind, "not UTF-8") || strings.HasPrefix(kind, "UTF-16") {
			text += " To read it, convert it with run_terminal_command, e.g. iconv -f latin1 -t utf-8 " + r + " (or -f utf-16)."
		}
		return tools.Result{Text: text, Meta: meta}, nil
	}

	start := max(a.StartLine, 1)
	end := a.EndLine
	switch {
	case end == 0:
		end = start + DefaultMaxLines - 1
	case end < start:
		return tools.Result{}, fmt.Errorf("end_line %d is before start_line %d", end, start)
	case end-start+1 > MaxLines:
		end = start + MaxLines - 1
	}

	var out strings.Builder
	n, last, cutLines := 0, 0, 0 // lines read, last line shown, lines cut short
	stopped := false             // stopped before the end of the file
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		line, cut, err := readLine(br)
		if err != nil && err != io.EOF {
			return tools.Result{}, err
		}
		if err == io.EOF && len(line) == 0 && cut == 0 {
			break
		}
		n++
		if n >= start {
			if out.Len() > maxOutputBytes {
				stopped = true // budget spent: say where to go on
				break
			}
			fmt.Fprintf(&out, "%6d\t%s", n, strings.ToValidUTF8(string(bytes.TrimSuffix(line, []byte{'\r'})), "\uFFFD"))
			if cut > 0 {
				fmt.Fprintf(&out, " [… %d more bytes on this line]", cut)
				cutLines++
			}
			out.WriteByte('\n')
			last = n
			if (n-start+1)%ChunkLines == 0 {
				tools.Report(ctx, tools.Progress{Tool: ReadName, Path: r, StartLine: n - ChunkLines + 1, EndLine: n})
			}
			if n >= end {
				stopped = err != io.EOF
				break
			}
		}
		if err == io.EOF {
			break
		}
	}

	if last >= start && (last-start+1)%ChunkLines != 0 {
		tools.Report(ctx, tools.Progress{Tool: ReadName, Path: r, StartLine: last - (last-start+1)%ChunkLines + 1, EndLine: last})
	}

	total, counted := n, true
	if stopped {
		// Count the rest without keeping it, when that is cheap enough.
		if st.Size() <= countLimit {
			rest, err := countLines(br)
			if err != nil {
				return tools.Result{}, err
			}
			total += rest
		} else {
			counted = false
		}
	}
	if start > n {
		return tools.Result{}, fmt.Errorf("start_line %d is past the end: %s has %s", start, r, plural(n, "line"))
	}

	meta.StartLine, meta.EndLine = start, last
	if counted {
		meta.TotalLines = total
	}
	for c := start; c <= last; c += ChunkLines {
		meta.Chunks = append(meta.Chunks, tools.LineRange{Start: c, End: min(c+ChunkLines-1, last)})
	}
	var b strings.Builder
	switch {
	case counted:
		fmt.Fprintf(&b, "%s (lines %d-%d of %d):\n", r, start, last, total)
	default:
		fmt.Fprintf(&b, "%s (lines %d-%d; %s in all, too large to count lines):\n", r, start, last, humanBytes(st.Size()))
	}
	b.WriteString(out.String())
	if more := !counted || last < total; more {
		meta.Truncated = true
		if counted {
			meta.OmittedLines = total - last
		}
		fmt.Fprintf(&b, "[Showing lines %d-%d", start, last)
		if counted {
			fmt.Fprintf(&b, " of %d", total)
		}
		fmt.Fprintf(&b, ". To read on, call read_file with start_line=%d.]", last+1)
	}
	if cutLines > 0 {
		fmt.Fprintf(&b, "\n[%s longer than %d bytes were cut; use search_workspace to find text in them.]", plural(cutLines, "line"), MaxLineBytes)
	}
	return tools.Result{Text: strings.TrimRight(b.String(), "\n"), Meta: meta}, nil
}

// readLine returns the next line without its newline, at most
// MaxLineBytes of it, and how many bytes were dropped; memory stays
// bounded whatever the line length.
func readLine(br *bufio.Reader) (line []byte, cut int, err error) {
	total := 0
	for {
		chunk, err := br.ReadSlice('\n')
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		total += len(chunk)
		if room := MaxLineBytes - len(line); room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, total - len(line), err
	}
}

// countLines counts the remaining lines, a final line without a newline
// included.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, lastNL := 0, true
	for {
		m, err := r.Read(buf)
		if m > 0 {
			n += bytes.Count(buf[:m], []byte{'\n'})
			lastNL = buf[m-1] == '\n'
		}
		if err == io.EOF {
			if !lastNL {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
