package mcp

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// HTTP connections cannot be wrapped like stdio ones (the SDK's streamable
// connection has unexported methods a wrapper would hide), so the wire
// watches HTTP traffic one layer down: the JSON-RPC messages in request
// bodies, and those in response bodies (plain JSON or server-sent events)
// as the SDK reads them, which keeps the server's order.

// wireTransport is an http.RoundTripper that shows a wire every message.
type wireTransport struct {
	base http.RoundTripper
	w    *wire
}

func (t wireTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		if msg, err := jsonrpc.DecodeMessage(body); err == nil {
			t.w.sent(msg)
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "text/event-stream":
		resp.Body = newSSETap(resp.Body, t.w)
	case "application/json":
		resp.Body = &jsonTap{ReadCloser: resp.Body, w: t.w}
	}
	return resp, nil
}

// sseTap passes an event stream through an event at a time: it reads
// one whole event from the server, shows the wire its message, and hands
// the event to the SDK, with a tool result's unknown content parts
// described (see describeUnknownContent). Events are read only when the
// SDK asks for bytes, so the wire sees messages in the server's order, as
// the SDK reads them.
type sseTap struct {
	io.ReadCloser
	w       *wire
	in      *bufio.Reader
	pending []byte // the current event, not yet read by the SDK
	err     error  // the body's error, once pending is drained
}

func newSSETap(body io.ReadCloser, w *wire) *sseTap {
	return &sseTap{ReadCloser: body, w: w, in: bufio.NewReader(body)}
}

func (s *sseTap) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.pending, s.err = s.nextEvent()
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// nextEvent reads lines up to and including the blank line that ends an
// event (or the end of the body), and returns them, rewritten when the
// event's data is a tool result with unknown content.
func (s *sseTap) nextEvent() ([]byte, error) {
	var raw, data []byte
	hasData := false
	for {
		line, err := s.in.ReadBytes('\n')
		raw = append(raw, line...)
		text := bytes.TrimRight(line, "\r\n")
		if rest, ok := bytes.CutPrefix(text, []byte("data:")); ok {
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, bytes.TrimPrefix(rest, []byte(" "))...), true
		}
		if err != nil || len(text) == 0 && len(line) > 0 {
			if hasData {
				raw = s.show(raw, data)
			}
			return raw, err
		}
	}
}

// show tells the wire of an event's message and returns the event, its
// data replaced by the tolerant form of the message when that differs.
func (s *sseTap) show(event, data []byte) []byte {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return event
	}
	s.w.received(msg)
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || len(resp.Result) == 0 {
		return event
	}
	fixed := describeUnknownContent(resp.Result)
	if bytes.Equal(fixed, resp.Result) {
		return event
	}
	resp.Result = fixed
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return event
	}
	var out []byte
	for line := range bytes.Lines(event) {
		if !bytes.HasPrefix(line, []byte("data:")) {
			out = append(out, line...)
		}
	}
	// The blank line ending the event stays last.
	out = bytes.TrimRight(out, "\r\n")
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, "\n\n"...)
}

// jsonTap passes a JSON body through, with a tool result's unknown
// content parts described, and shows the wire its message once the SDK
// has read the body to the end.
type jsonTap struct {
	io.ReadCloser
	w    *wire
	body *bytes.Reader // nil until the first Read
	msg  jsonrpc.Message
}

func (j *jsonTap) Read(p []byte) (int, error) {
	if j.body == nil {
		b, err := io.ReadAll(j.ReadCloser)
		if err != nil {
			return 0, err
		}
		if msg, derr := jsonrpc.DecodeMessage(b); derr == nil {
			j.msg = msg
			if resp, ok := msg.(*jsonrpc.Response); ok && len(resp.Result) > 0 {
				if fixed := describeUnknownContent(resp.Result); !bytes.Equal(fixed, resp.Result) {
					resp.Result = fixed
					if enc, err := jsonrpc.EncodeMessage(resp); err == nil {
						b = enc
					}
				}
			}
		}
		j.body = bytes.NewReader(b)
	}
	n, err := j.body.Read(p)
	if err == io.EOF && j.msg != nil {
		j.w.received(j.msg)
		j.msg = nil
	}
	return n, err
}
