package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
)

// JSON-RPC 2.0 error codes (section 5.1 of the JSON-RPC 2.0 specification),
// and ACP's own.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeAuthRequired is ACP's "authentication required".
	CodeAuthRequired = -32000
)

// DefaultMaxMessage bounds one message read from the client. A longer line
// is answered with an error and skipped; the connection goes on.
const DefaultMaxMessage = 64 << 20

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

func rpcErrorf(code int, format string, args ...any) *RPCError {
	return &RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// wire is every JSON-RPC message as it travels; which fields are set says
// what it is.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// inbound is a request or notification from the client. ID is nil for a
// notification.
type inbound struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// conn is one JSON-RPC 2.0 connection over newline-delimited JSON, as ACP
// runs it on an agent's stdin and stdout.
//
// Ordering: every inbound request and notification is handed to dispatch on
// the reading goroutine, in the order the client sent them, so a handler
// that must take effect before the next message is read (registering a
// prompt so that a session/cancel right behind it finds it) does so there
// and moves long work to a goroutine of its own. Every outbound message is
// one locked write, so the session/update notifications a turn sends
// before its prompt's response reach the client before that response.
type conn struct {
	w        io.Writer
	wmu      sync.Mutex
	logger   *slog.Logger
	maxLine  int
	dispatch func(in inbound)

	mu      sync.Mutex
	nextID  int64
	pending map[string]chan wire
	closed  bool
}

func newConn(w io.Writer, logger *slog.Logger, dispatch func(inbound)) *conn {
	return &conn{w: w, logger: logger, maxLine: DefaultMaxMessage, dispatch: dispatch, pending: map[string]chan wire{}}
}

// serve reads messages until r ends; then every call waiting for an answer
// fails. A malformed message is answered with the JSON-RPC error that says
// what was wrong and never ends the connection.
func (c *conn) serve(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(br, c.maxLine)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			c.receive(line, tooLong)
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// readLine reads one line without its newline. A line longer than max is
// consumed to its end and reported as tooLong, with no bytes kept.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// receive classifies one line and answers what cannot be served.
func (c *conn) receive(line []byte, tooLong bool) {
	if tooLong {
		c.replyError(nil, rpcErrorf(CodeInvalidRequest, "message longer than %d bytes; it was skipped", c.maxLine))
		return
	}
	trimmed := bytes.TrimSpace(line)
	if !json.Valid(trimmed) {
		c.replyError(nil, rpcErrorf(CodeParseError, "parse error: the message is not valid JSON"))
		return
	}
	switch trimmed[0] {
	case '{':
	case '[':
		c.replyError(nil, rpcErrorf(CodeInvalidRequest, "invalid request: batches (JSON arrays) are not supported by ACP; send one object per line"))
		return
	default:
		c.replyError(nil, rpcErrorf(CodeInvalidRequest, "invalid request: a message must be a JSON object"))
		return
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		c.replyError(nil, rpcErrorf(CodeParseError, "parse error: %v", err))
		return
	}
	id, hasID := raw["id"]
	if hasID && !validID(id) {
		c.replyError(nil, rpcErrorf(CodeInvalidRequest, `invalid request: "id" must be a string, a number or null`))
		return
	}
	if v, ok := raw["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		c.replyError(id, rpcErrorf(CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`))
		return
	}
	m, hasMethod := raw["method"]
	if !hasMethod {
		_, hasResult := raw["result"]
		_, hasError := raw["error"]
		if hasID && (hasResult || hasError) && hasResult != hasError {
			c.response(id, raw["result"], raw["error"])
			return
		}
		if hasID && !isNull(id) {
			c.replyError(id, rpcErrorf(CodeInvalidRequest, `invalid request: no "method", and not a response (exactly one of "result" or "error")`))
		} else {
			c.logger.Warn("acp: dropped a message with neither a method nor an id to answer", "message", truncate(string(trimmed), 200))
		}
		return
	}
	var method string
	if err := json.Unmarshal(m, &method); err != nil || method == "" {
		c.replyError(id, rpcErrorf(CodeInvalidRequest, `invalid request: "method" must be a non-empty string`))
		return
	}
	params := raw["params"]
	if len(params) > 0 && !isNull(params) && params[0] != '{' && params[0] != '[' {
		c.replyError(id, rpcErrorf(CodeInvalidRequest, `invalid request: "params" must be an object`))
		return
	}
	if !hasID {
		id = nil
	} else if id == nil {
		id = json.RawMessage("null")
	}
	c.dispatch(inbound{ID: id, Method: method, Params: params})
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }

// response delivers a client's answer to one of our calls.
func (c *conn) response(id, result, errObj json.RawMessage) {
	key := string(bytes.TrimSpace(id))
	c.mu.Lock()
	ch, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if !ok {
		c.logger.Warn("acp: dropped a response to no pending request", "id", key)
		return
	}
	w := wire{ID: id, Result: result}
	if len(errObj) > 0 {
		var e RPCError
		if err := json.Unmarshal(errObj, &e); err != nil {
			e = RPCError{Code: CodeInternalError, Message: "the client's error object is malformed: " + string(errObj)}
		}
		w.Error = &e
	}
	ch <- w // buffered
}

// call sends a request to the client and decodes its result into out. When
// ctx ends first, the call returns ctx's error and a late answer is
// dropped.
func (c *conn) call(ctx context.Context, method string, params, out any) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("acp: the client has closed the connection")
	}
	c.nextID++
	key := strconv.FormatInt(c.nextID, 10)
	ch := make(chan wire, 1)
	c.pending[key] = ch
	c.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := c.write(wire{ID: json.RawMessage(key), Method: method, Params: p}); err != nil {
		c.forget(key)
		return err
	}
	select {
	case w, ok := <-ch:
		if !ok {
			return errors.New("acp: the client closed the connection before answering " + method)
		}
		if w.Error != nil {
			return w.Error
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(w.Result, out); err != nil {
			return fmt.Errorf("acp: the client's answer to %s: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		c.forget(key)
		return context.Cause(ctx)
	}
}

func (c *conn) forget(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
}

// notify sends a notification.
func (c *conn) notify(method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(wire{Method: method, Params: p})
}

// reply answers a request; a notification (nil id) gets no answer.
func (c *conn) reply(id json.RawMessage, result any) {
	if id == nil {
		return
	}
	b, err := json.Marshal(result)
	if err != nil {
		c.replyError(id, rpcErrorf(CodeInternalError, "internal error: encoding the result: %v", err))
		return
	}
	if err := c.write(wire{ID: id, Result: b}); err != nil {
		c.logger.Warn("acp: writing a response", "err", err)
	}
}

// replyError answers with an error. A nil id is written as null, as
// JSON-RPC requires when the request's id could not be read.
func (c *conn) replyError(id json.RawMessage, e *RPCError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	c.logger.Debug("acp: error reply", "id", string(id), "code", e.Code, "message", e.Message)
	if err := c.write(wire{ID: id, Error: e}); err != nil {
		c.logger.Warn("acp: writing an error response", "err", err)
	}
}

func (c *conn) write(w wire) error {
	w.JSONRPC = "2.0"
	b, err := json.Marshal(w)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.w.Write(b)
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
