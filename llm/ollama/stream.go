package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"sync"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"

	"github.com/tetherdev/tether/llm"
)

// The upstream client reads each streamed response through a fresh 8 MiB
// scanner buffer, which made every model call allocate 8 MiB however short
// the answer. chat streams /api/chat with the upstream request and
// response types but reads lines through pooled, bounded buffers: a
// reader of readerSize from a pool, and a line buffer that grows only for
// a line longer than that, up to the MaxEvent of Config.Limits (8 MiB by
// default, the upstream client's limit).
const readerSize = 32 << 10

var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerSize) }}

// chatLine is one NDJSON line: a response, or an error the server sends
// instead of one (in-stream or with an error status).
type chatLine struct {
	api.ChatResponse
	Error     string `json:"error,omitempty"`
	SigninURL string `json:"signin_url,omitempty"`
}

// chat sends req to /api/chat and calls fn for every streamed response,
// with the upstream client's error semantics: an error status becomes an
// api.StatusError (api.AuthorizationError for 401) with the server's
// message, an in-stream {"error":…} line or a line that is not JSON an
// error with that text. Requests that need Ollama's signed authentication
// (OLLAMA_AUTH, or ollama.com) go through the upstream client, which
// signs them.
func (m *Model) chat(ctx context.Context, req *api.ChatRequest, fn func(api.ChatResponse) error) error {
	if envconfig.UseAuth() || m.base.Hostname() == "ollama.com" {
		return m.client.Chat(ctx, req, fn)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/x-ndjson")
	hreq.Header.Set("User-Agent", "tether-ollama")
	resp, err := m.http.Do(hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	r := readers.Get().(*bufio.Reader)
	r.Reset(resp.Body)
	defer func() {
		r.Reset(nil) // drop the body before pooling
		readers.Put(r)
	}()
	maxLine := m.cfg.Limits.Event()
	if maxLine == 0 {
		maxLine = math.MaxInt
	}
	tooLong := &llm.LimitError{What: "NDJSON line", Limit: maxLine}
	var long []byte // a line longer than the reader's buffer, assembled here
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) > maxLine {
				return tooLong
			}
			long = append(long, line...)
			continue
		}
		if long != nil {
			if len(long)+len(line) > maxLine {
				return tooLong
			}
			line = append(long, line...)
			long = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := handleLine(resp, line, fn); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// As with the upstream client, a read error ends the stream
			// quietly; the transport's Record tells Chat what happened.
			return nil
		}
	}
}

// handleLine decodes one line once and hands the response to fn.
func handleLine(resp *http.Response, line []byte, fn func(api.ChatResponse) error) error {
	var l chatLine
	if err := json.Unmarshal(line, &l); err != nil {
		if resp.StatusCode >= http.StatusBadRequest {
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(bytes.TrimSpace(line))}
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return errors.New(string(bytes.TrimSpace(line)))
		}
		return err
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: l.SigninURL}
	case resp.StatusCode >= http.StatusBadRequest:
		return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: l.Error}
	case l.Error != "":
		return errors.New(l.Error)
	}
	return fn(l.ChatResponse)
}
