package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The gateway answers every input line it cannot serve with an error event
// naming the line, and reads on: a host that sends one bad line loses that
// line only. Empty lines (and lines of whitespace) are ignored, as
// newline-delimited JSON allows; a byte order mark before the first line
// is ignored; a line ending in "\r\n" is read as ending in "\n".
//
// A line must hold exactly one JSON object. A line holding two or more
// values ({"type":"cancel"}{"type":"cancel"}) is refused whole, and none of
// it is served: serving the first and dropping the rest would run part of
// what the host meant, and serving each would make the request boundary
// depend on the JSON rather than on lines, which the host counts.

// errTooLong is the error for a line over maxLine; lineReader skips the
// rest of such a line.
type errTooLong struct{ size int64 }

func (e errTooLong) Error() string {
	return fmt.Sprintf("the line is %d bytes or more, over the %d MiB limit for one request; nothing of it was served (attach files by path instead of pasting them)", e.size, maxLine>>20)
}

// lineReader reads lines of at most maxLine bytes.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
}

func newLineReader(in io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10)}
}

// next returns the next line without its terminator. A line over maxLine
// is consumed to its end and reported as errTooLong; any other error ends
// the input (io.EOF at its end).
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	var size int64
	for {
		chunk, err := l.r.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= maxLine+1 { // +1: the terminator is not part of the line
			l.buf = append(l.buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil && (!errors.Is(err, io.EOF) || size == 0):
			return nil, err
		}
		l.line++
		line := bytes.TrimSuffix(l.buf, []byte("\n"))
		if int64(len(line)) > maxLine || size > maxLine+1 {
			return nil, errTooLong{size: size}
		}
		if l.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		return line, nil
	}
}

// parseRequest reads one line as one request object.
func parseRequest(line []byte) (request, error) {
	var req request
	dec := json.NewDecoder(bytes.NewReader(line))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return req, notRequest(err)
	}
	if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
		var v any
		if json.Unmarshal(rest, &v) == nil || json.NewDecoder(bytes.NewReader(rest)).Decode(&v) == nil {
			return req, errors.New("not a request object: the line holds more than one JSON value; send one request object per line (nothing of this line was served)")
		}
		return req, notRequest(fmt.Errorf("text after the object: %.40q", rest))
	}
	if raw[0] != '{' {
		return req, notRequest(fmt.Errorf("the line holds %.40s, not an object", raw))
	}
	if err := uniqueKeys(raw); err != nil {
		return req, notRequest(err)
	}
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&req); err != nil {
		return req, notRequest(err)
	}
	return req, nil
}

func notRequest(err error) error {
	return fmt.Errorf("not a request object (%v); send e.g. {\"type\":\"prompt\",\"text\":\"…\"}", err)
}

// uniqueKeys refuses an object naming one field twice: JSON leaves its
// meaning open, and a request read two ways must not be served one way.
func uniqueKeys(obj json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("field %q appears more than once", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}
