package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxWireBody bounds how much of one request or response body a wire log
// keeps; the line says when a body was cut and how long it was.
const maxWireBody = 1 << 20

const redacted = "[REDACTED]"

// secretHeaders never reach a wire log with their values.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "Cookie", "Set-Cookie", "Openai-Organization", "Openai-Project"}

// secretParams are URL query parameters redacted the same way.
var secretParams = []string{"key", "api_key", "apikey", "token", "access_token"}

// WireLog writes every HTTP attempt a backend makes as JSON lines: one
// "request" line before it is sent, then one "response" line when its body
// has been read to the end or closed (with the status, headers, body,
// time to first byte and total latency), or one "error" line. Lines of one
// attempt share an id. Secrets are redacted: the headers in secretHeaders,
// the query parameters in secretParams, and any occurrence of those values
// in a body. It is a debugging aid, distinct from llmtest's Recorder,
// which keeps model turns for replay rather than bytes on the wire.
type WireLog struct {
	mu   sync.Mutex
	w    io.Writer
	seq  atomic.Int64
	fail error // first write error; later lines are not attempted
}

// NewWireLog returns a WireLog writing to w.
func NewWireLog(w io.Writer) *WireLog { return &WireLog{w: w} }

// Err reports the first error writing the log, if any.
func (l *WireLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fail
}

type wireLine struct {
	Time      time.Time       `json:"time"`
	ID        string          `json:"id"`
	Event     string          `json:"event"` // request, response, error
	Method    string          `json:"method,omitempty"`
	URL       string          `json:"url,omitempty"`
	Status    int             `json:"status,omitempty"`
	Header    http.Header     `json:"header,omitempty"`
	Body      json.RawMessage `json:"body,omitempty"`      // JSON bodies as they are
	BodyText  string          `json:"body_text,omitempty"` // other bodies (NDJSON, SSE) as text
	BodyBytes int             `json:"body_bytes"`
	Truncated bool            `json:"truncated,omitempty"`
	FirstByte float64         `json:"first_byte_ms,omitempty"`
	Latency   float64         `json:"latency_ms,omitempty"`
	Error     string          `json:"error,omitempty"`
}

func (l *WireLog) write(line wireLine) {
	b, err := json.Marshal(line)
	if err != nil {
		b, _ = json.Marshal(wireLine{Time: line.Time, ID: line.ID, Event: "error", Error: "wire log: " + err.Error()})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return
	}
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		l.fail = err
	}
}

// wrap returns next with every round trip logged.
func (l *WireLog) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		id := fmt.Sprintf("req-%06d", l.seq.Add(1))
		secrets := secretValues(req.Header)
		start := time.Now()
		line := wireLine{Time: start.UTC(), ID: id, Event: "request", Method: req.Method, URL: redactURL(req.URL), Header: redactHeader(req.Header)}
		if req.GetBody != nil {
			if rc, err := req.GetBody(); err == nil {
				b, _ := io.ReadAll(io.LimitReader(rc, maxWireBody+1))
				rc.Close()
				setBody(&line, b, int(req.ContentLength), secrets)
			}
		}
		l.write(line)
		resp, err := next.RoundTrip(req)
		now := time.Now()
		if err != nil {
			l.write(wireLine{Time: now.UTC(), ID: id, Event: "error", Error: redactString(err.Error(), secrets), Latency: ms(now.Sub(start))})
			return nil, err
		}
		resp.Body = &wireBody{ReadCloser: resp.Body, log: l, secrets: secrets, start: start, line: wireLine{
			ID: id, Event: "response", Status: resp.StatusCode, Header: redactHeader(resp.Header), FirstByte: ms(now.Sub(start)),
		}}
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// wireBody copies a response body as the caller reads it and writes the
// response line once, at EOF, on a read error or at Close.
type wireBody struct {
	io.ReadCloser
	log     *WireLog
	secrets []string
	start   time.Time
	line    wireLine
	buf     bytes.Buffer
	n       int
	once    sync.Once
}

func (b *wireBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += n
	if room := maxWireBody - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(n, room)])
	}
	if err != nil {
		b.finish(err)
	}
	return n, err
}

func (b *wireBody) Close() error {
	b.finish(nil)
	return b.ReadCloser.Close()
}

func (b *wireBody) finish(err error) {
	b.once.Do(func() {
		now := time.Now()
		line := b.line
		line.Time, line.Latency = now.UTC(), ms(now.Sub(b.start))
		setBody(&line, b.buf.Bytes(), b.n, b.secrets)
		if err != nil && err != io.EOF {
			line.Error = redactString(err.Error(), b.secrets)
		}
		b.log.write(line)
	})
}

func setBody(line *wireLine, b []byte, total int, secrets []string) {
	line.BodyBytes = max(total, len(b))
	if len(b) > maxWireBody {
		b = b[:maxWireBody]
	}
	line.Truncated = line.BodyBytes > len(b)
	s := redactString(string(b), secrets)
	if !line.Truncated && json.Valid([]byte(s)) {
		line.Body = json.RawMessage(s)
		return
	}
	line.BodyText = strings.ToValidUTF8(s, "\uFFFD")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// secretValues returns the secret header values and, for "Bearer X"
// style values, X alone, so that a body echoing a key is redacted too.
func secretValues(h http.Header) []string {
	var out []string
	for _, k := range secretHeaders {
		for _, v := range h.Values(k) {
			if v == "" {
				continue
			}
			out = append(out, v)
			if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= 8 {
				out = append(out, tok)
			}
		}
	}
	return out
}

func redactHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, k := range secretHeaders {
		if len(out.Values(k)) > 0 {
			out.Set(k, redacted)
		}
	}
	return out
}

func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	q := c.Query()
	changed := false
	for _, p := range secretParams {
		if q.Has(p) {
			q.Set(p, redacted)
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

func redactString(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, redacted)
	}
	return s
}
