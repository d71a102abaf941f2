package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"sync"

	"github.com/tetherdev/tether/mcp"
)

// mediaSaver writes the audio and binary resources of results to a
// directory (-save-media): the printed result describes them in a line,
// as the model sees them, and the bytes are here. Names are "media-N"
// with the extension of the MIME type, never taken from the server, and
// an existing file is never replaced.
type mediaSaver struct {
	dir    string
	stderr io.Writer
	mu     sync.Mutex
	n      int
	err    error // the first failure, reported when the command ends
}

func (s *mediaSaver) save(_ context.Context, m mcp.Media) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(m.MIMEType); len(exts) > 0 {
		ext = exts[0]
	}
	for {
		s.n++
		p := filepath.Join(s.dir, fmt.Sprintf("media-%d%s", s.n, ext))
		err := writeNew(p, m.Data)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			s.err = errors.Join(s.err, fmt.Errorf("-save-media: %w", err))
			return
		}
		from := m.Tool
		if m.URI != "" {
			from = m.URI
		}
		fmt.Fprintf(s.stderr, "saved %s %s (%d bytes) from %s to %s\n", m.Kind, m.MIMEType, len(m.Data), from, p)
		return
	}
}

// writeNew writes data to a file that must not exist yet, removing it
// again if the write fails, so that no partial file is left.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// failed returns what could not be saved, if anything.
func (s *mediaSaver) failed() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
