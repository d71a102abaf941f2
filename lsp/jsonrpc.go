package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one incoming message. A workspace/symbol answer on a
// big repository is a few MB; anything past this is a broken server.
const maxMessage = 64 << 20

// ErrClosed: the connection to the language server is gone (it exited,
// crashed or was shut down). Start a new Client.
var ErrClosed = errors.New("lsp: connection closed")

// RPCError is an error response from the server.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("lsp: %s (code %d)", e.Message, e.Code) }

// CodeMethodNotFound is the JSON-RPC code for a method the server does not
// implement; IsMethodNotFound tests for it.
const CodeMethodNotFound = -32601

// IsMethodNotFound reports whether err says the server lacks the method.
func IsMethodNotFound(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && re.Code == CodeMethodNotFound
}

// wireMsg is any JSON-RPC 2.0 message; which fields are set says which.
type wireMsg struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *RPCError        `json:"error,omitempty"`
}

// handlerFunc answers a request or takes a notification from the server.
// For notifications the result is ignored.
type handlerFunc func(method string, params json.RawMessage) (any, error)

// conn is a JSON-RPC 2.0 connection with LSP's Content-Length framing: one
// reader goroutine dispatches responses to waiting calls and hands
// server-initiated messages to the handler, in order.
//
// Invariant: after the reader stops (EOF or a framing error), every pending
// and future call fails with ErrClosed wrapping the cause.
type conn struct {
	w       io.Writer
	handler handlerFunc

	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *wireMsg
	err     error // set once the reader stopped

	done chan struct{} // closed when the reader stopped
}

func newConn(r io.Reader, w io.Writer, h handlerFunc) *conn {
	c := &conn{w: w, handler: h, pending: map[int64]chan *wireMsg{}, done: make(chan struct{})}
	go c.read(bufio.NewReaderSize(r, 64<<10))
	return c
}

// call sends a request and decodes its result into result (which may be
// nil). Cancelling ctx sends $/cancelRequest and returns ctx's error.
func (c *conn) call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.nextID++
	id := c.nextID
	ch := make(chan *wireMsg, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	raw := json.RawMessage(strconv.FormatInt(id, 10))
	if err := c.send(&wireMsg{ID: &raw, Method: method, Params: marshalParams(params)}); err != nil {
		return err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if result == nil || len(m.Result) == 0 {
			return nil
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("lsp: %s: malformed result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		_ = c.notify("$/cancelRequest", map[string]int64{"id": id})
		return fmt.Errorf("lsp: %s: %w", method, context.Cause(ctx))
	case <-c.done:
		// The reader may have delivered our response just before it
		// stopped (a server that answers and exits); prefer the answer.
		select {
		case m := <-ch:
			if m.Error != nil {
				return fmt.Errorf("%s: %w", method, m.Error)
			}
			if result != nil && len(m.Result) > 0 {
				if err := json.Unmarshal(m.Result, result); err != nil {
					return fmt.Errorf("lsp: %s: malformed result: %w", method, err)
				}
			}
			return nil
		default:
		}
		return c.closedErr()
	}
}

func (c *conn) notify(method string, params any) error {
	return c.send(&wireMsg{Method: method, Params: marshalParams(params)})
}

func (c *conn) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func marshalParams(p any) json.RawMessage {
	if p == nil {
		return nil
	}
	if raw, ok := p.(json.RawMessage); ok {
		return raw
	}
	b, err := json.Marshal(p)
	if err != nil {
		// Params are this package's own types; failing to encode them
		// is a programming error.
		panic(fmt.Sprintf("lsp: cannot encode params %T: %v", p, err))
	}
	return b
}

func (c *conn) send(m *wireMsg) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("lsp: encode %s: %w", m.Method, err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(body))
	buf.Write(body)
	if _, err := c.w.Write(buf.Bytes()); err != nil {
		if cerr := c.closedErr(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%w: write %s: %v", ErrClosed, m.Method, err)
	}
	return nil
}

// read is the reader goroutine.
func (c *conn) read(r *bufio.Reader) {
	tp := textproto.NewReader(r)
	var cause error
	for {
		m, err := readMessage(tp, r)
		if err != nil {
			cause = err
			break
		}
		c.dispatch(m)
	}
	c.mu.Lock()
	if errors.Is(cause, io.EOF) {
		c.err = fmt.Errorf("%w: the language server closed its output", ErrClosed)
	} else {
		c.err = fmt.Errorf("%w: %v", ErrClosed, cause)
	}
	c.mu.Unlock()
	close(c.done)
}

// readMessage reads one framed message: headers, a blank line, then
// Content-Length bytes of JSON.
func readMessage(tp *textproto.Reader, r *bufio.Reader) (*wireMsg, error) {
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		if errors.Is(err, io.EOF) && len(hdr) == 0 {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("bad header: %w", err)
	}
	cl := strings.TrimSpace(hdr.Get("Content-Length"))
	n, err := strconv.Atoi(cl)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("bad Content-Length %q", cl)
	}
	if n > maxMessage {
		return nil, fmt.Errorf("message of %d bytes exceeds the %d-byte limit", n, maxMessage)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("short body: %w", err)
	}
	var m wireMsg
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("malformed message: %w", err)
	}
	return &m, nil
}

func (c *conn) dispatch(m *wireMsg) {
	switch {
	case m.Method == "" && m.ID != nil: // a response
		id, err := strconv.ParseInt(string(*m.ID), 10, 64)
		if err != nil {
			return // not one of ours: we only send integer ids
		}
		c.mu.Lock()
		ch := c.pending[id]
		c.mu.Unlock()
		if ch != nil {
			select {
			case ch <- m:
			default: // a duplicate answer from a confused server; never block the reader
			}
		}
	case m.ID != nil: // a request from the server: it waits for an answer
		res, err := c.handler(m.Method, m.Params)
		reply := &wireMsg{ID: m.ID}
		if err != nil {
			var re *RPCError
			if !errors.As(err, &re) {
				re = &RPCError{Code: -32603, Message: err.Error()}
			}
			reply.Error = re
		} else {
			b, _ := json.Marshal(res)
			reply.Result = b
		}
		// The reader must not block on a write that waits for the
		// server, which may itself be waiting for us to read.
		go func() { _ = c.send(reply) }()
	default: // a notification
		_, _ = c.handler(m.Method, m.Params)
	}
}
