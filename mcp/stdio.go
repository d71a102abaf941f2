package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport is newline-delimited JSON-RPC. The SDK ends a
// session at the first line that is not a JSON-RPC message, but real
// peers write such lines: servers print banners and log lines to stdout,
// and a client may send a malformed request. The official TypeScript and
// Python SDKs report such a line and read on, so Tether does too, on
// both sides: lines are checked here before the SDK sees them.

// errNotJSON: a line that is not JSON at all (JSON-RPC's parse error).
var errNotJSON = errors.New("parse error: the line is not JSON")

// rejectFunc is told of each line that is not a JSON-RPC message: the
// line, the id it carried if it was a JSON object with one, and why it
// was rejected.
type rejectFunc func(line []byte, id json.RawMessage, why error)

// jsonRPCLines returns a reader of the JSON-RPC messages among r's lines,
// one a line, and hands every other non-blank line to reject. check
// decides what is a message (checkMessage, unless a side needs more). A line
// longer than sdk.DefaultMaxLineLength ends the stream with an error, as
// in the SDK. Closing the reader stops delivery; r is then drained in the
// background so that a peer blocked on writing can see its input close
// and exit.
func jsonRPCLines(r io.Reader, check func([]byte) (json.RawMessage, error), reject rejectFunc) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), sdk.DefaultMaxLineLength)
		delivering := true
		for sc.Scan() {
			if !delivering {
				continue
			}
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if id, err := check(line); err != nil {
				reject(bytes.Clone(line), id, err)
				continue
			}
			// A copy: line is the scanner's buffer, which holds what follows.
			msg := append(bytes.Clone(line), '\n')
			if _, err := pw.Write(msg); err != nil {
				delivering = false // the reader was closed: drain
			}
		}
		err := sc.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a message is longer than %d bytes", sdk.DefaultMaxLineLength)
		}
		pw.CloseWithError(err) // nil: io.EOF for the reader
	}()
	return pr
}

// checkMessage reports whether line is one JSON-RPC message or a batch
// of them, and the id of a malformed request when it has one.
func checkMessage(line []byte) (json.RawMessage, error) {
	if !json.Valid(line) {
		return nil, errNotJSON
	}
	msgs := []json.RawMessage{line}
	if line[0] == '[' {
		// A fresh slice: unmarshalling into msgs would reuse line's bytes.
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
			return nil, errors.New("not a JSON-RPC batch")
		}
		msgs = batch
	}
	ids := map[string]bool{}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			var withID struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(m, &withID) // best effort: the id lets the peer fail the one request
			return withID.ID, fmt.Errorf("not a JSON-RPC message: %v", err)
		}
		// A response names its request by id alone, so a batch that
		// repeats an id cannot be answered (and the SDK would end the
		// session over it).
		var withID struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m, &withID) == nil && withID.Method != "" && len(withID.ID) > 0 {
			if ids[string(withID.ID)] {
				return nil, fmt.Errorf("the batch repeats request id %s; each request in a batch needs its own id", withID.ID)
			}
			ids[string(withID.ID)] = true
		}
	}
	return nil, nil
}

// commandTransport runs a stdio server as sdk.CommandTransport does, but
// reads its stdout through jsonRPCLines, so that a line that is not
// JSON-RPC (a banner, a log line) is reported instead of ending the
// session.
type commandTransport struct {
	cmd    *exec.Cmd
	grace  time.Duration
	reject rejectFunc
}

func (t *commandTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	tr := &sdk.IOTransport{Reader: jsonRPCLines(stdout, checkMessage, t.reject), Writer: &serverInput{stdin: stdin, cmd: t.cmd, grace: t.grace}}
	return tr.Connect(ctx)
}

// serverInput is a stdio server's stdin. Closing it shuts the server down
// the way the spec asks of a client: close its input, wait for it to
// exit, then SIGTERM, then SIGKILL, each after the grace period.
type serverInput struct {
	stdin io.WriteCloser
	cmd   *exec.Cmd
	grace time.Duration
	once  sync.Once
	err   error
}

func (s *serverInput) Write(p []byte) (int, error) { return s.stdin.Write(p) }

func (s *serverInput) Close() error {
	s.once.Do(func() { s.err = s.shutdown() })
	return s.err
}

func (s *serverInput) shutdown() error {
	if err := s.stdin.Close(); err != nil {
		return fmt.Errorf("closing the server's stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-exited:
			return err, true
		case <-time.After(s.grace):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if s.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := s.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("the server process did not exit after SIGKILL")
}

// serverStdoutLine reports a line a stdio server wrote to stdout that is
// not JSON-RPC: to the log, and to the stderr tail that connection errors
// quote, since a server that prints its failure to stdout is common.
func (c *Client) serverStdoutLine(line []byte, _ json.RawMessage, why error) {
	const show = 300
	if len(line) > show {
		line = append(line[:show:show], "…"...)
	}
	fmt.Fprintf(c.stderr, "[stdout, ignored: %v] %s\n", why, line)
	if c.cfg.Logger != nil {
		c.cfg.Logger.Warn("mcp server wrote a line that is not JSON-RPC to stdout; ignored",
			"server", c.cfg.Name, "line", string(line), "reason", why.Error())
	}
}

// stdioServerTransport serves on stdin and stdout. A line that is not a
// JSON-RPC message gets the JSON-RPC error response (parse error or
// invalid request, with the request's id when it had one) and the session
// goes on. So does a batch under a protocol version without batching
// (2025-06-18 and later), which the SDK would answer by ending the session.
func stdioServerTransport(stdin io.Reader, stdout io.Writer) sdk.Transport {
	out := &lockedWriter{w: stdout}
	version := &negotiatedVersion{}
	reject := func(_ []byte, id json.RawMessage, why error) {
		code := -32700 // parse error
		if !errors.Is(why, errNotJSON) {
			code = -32600 // invalid request
		}
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
			"error": map[string]any{"code": code, "message": why.Error()}})
		_, _ = out.Write(append(resp, '\n')) // a client that stopped reading is the SDK's to notice
	}
	return &sdk.IOTransport{Reader: jsonRPCLines(stdin, version.check, reject), Writer: nopWriteCloser{version.watch(out)}}
}

// lockedWriter serializes writes: the SDK writes each message with one
// Write, and rejections are written between them, never inside.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// nopWriteCloser leaves stdout open when the session closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
