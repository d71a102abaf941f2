package mcp

import (
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
		resp.Body = &sseTap{ReadCloser: resp.Body, w: t.w}
	case "application/json":
		resp.Body = &jsonTap{ReadCloser: resp.Body, w: t.w}
	}
	return resp, nil
}

// sseTap passes an event stream through and shows the wire each event's
// data as soon as the reader has seen the whole event.
type sseTap struct {
	io.ReadCloser
	w    *wire
	line []byte
	data []byte
}

func (s *sseTap) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	for _, b := range p[:n] {
		if b != '\n' {
			s.line = append(s.line, b)
			continue
		}
		line := bytes.TrimSuffix(s.line, []byte("\r"))
		s.line = s.line[:0]
		if len(line) == 0 {
			if len(s.data) > 0 {
				if msg, err := jsonrpc.DecodeMessage(s.data); err == nil {
					s.w.received(msg)
				}
			}
			s.data = s.data[:0]
			continue
		}
		if rest, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, bytes.TrimPrefix(rest, []byte(" "))...)
		}
	}
	return n, err
}

// jsonTap passes a JSON body through and shows the wire its message once
// the body was read to the end.
type jsonTap struct {
	io.ReadCloser
	w    *wire
	body []byte
}

func (j *jsonTap) Read(p []byte) (int, error) {
	n, err := j.ReadCloser.Read(p)
	j.body = append(j.body, p[:n]...)
	if err == io.EOF {
		if msg, derr := jsonrpc.DecodeMessage(j.body); derr == nil {
			j.w.received(msg)
		}
		j.body = nil
	}
	return n, err
}
