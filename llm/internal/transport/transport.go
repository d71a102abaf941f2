package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/llm"
)

// DefaultStallTimeout is used when Transport.StallTimeout is zero. It also
// bounds the wait for the first byte, which includes the time a local
// server takes to load a model; raise it for very large models.
const DefaultStallTimeout = 2 * time.Minute

// maxErrorBody bounds how much of an error response is kept in memory.
const maxErrorBody = 64 << 10

// Transport retries and watches HTTP attempts. See llm.RetryPolicy for
// what is retried. Invariant: a response is handed to the caller only
// after its first body byte has arrived (or the body is known to be empty),
// and from then on nothing is retried; so a retry can never duplicate
// content.
type Transport struct {
	Base         http.RoundTripper // nil means http.DefaultTransport
	Retry        llm.RetryPolicy
	StallTimeout time.Duration // 0 means DefaultStallTimeout; negative disables
	Logger       *slog.Logger  // retries are logged at Info when set
	// Wire, when set, logs every attempt's bytes (see WireLog).
	Wire *WireLog
	// Header is added to every attempt (an API key the client library
	// has no option for).
	Header http.Header
	// Limits bound one response: MaxEvent each SSE event of a
	// text/event-stream body, MaxDuration the whole exchange (see
	// llm.StreamLimits; zero fields mean its defaults).
	Limits llm.StreamLimits
}

func (t *Transport) base() http.RoundTripper {
	b := t.Base
	if b == nil {
		b = http.DefaultTransport
	}
	if t.Wire != nil {
		return t.Wire.wrap(b)
	}
	return b
}

func (t *Transport) stall() time.Duration {
	if t.StallTimeout == 0 {
		return DefaultStallTimeout
	}
	return t.StallTimeout
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := recordFrom(req.Context())
	getBody := req.GetBody
	if req.Body != nil && req.Body != http.NoBody && getBody == nil {
		// Buffer once so that every attempt can send the same bytes.
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		getBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	maxAttempts := t.Retry.Attempts()
	for n := 1; ; n++ {
		rec.attempt()
		resp, retryAfter, err := t.try(req, n, getBody, rec)
		if resp != nil || err == nil {
			return resp, nil
		}
		var r *retryable
		if !errors.As(err, &r) || n >= maxAttempts {
			return r.final(err)
		}
		wait, ok := t.Retry.Delay(n+1, retryAfter)
		if !ok {
			return r.final(err)
		}
		if t.Logger != nil {
			t.Logger.Info("llm: retrying request", "url", req.URL.Redacted(), "attempt", n+1,
				"of", maxAttempts, "wait", wait, "reason", r.reason)
		}
		if werr := t.Retry.Wait(req.Context(), wait); werr != nil {
			r.drop()
			return nil, werr
		}
		r.drop()
	}
}

// retryable is the outcome of an attempt that may be tried again. It holds
// either a connection error or a buffered error response, which becomes
// the final answer when no attempt is left.
type retryable struct {
	reason string
	err    error          // connection error, or nil
	resp   *http.Response // buffered 429/5xx response, or nil
}

func (r *retryable) Error() string { return r.reason }

func (r *retryable) final(err error) (*http.Response, error) {
	if r == nil {
		return nil, err
	}
	if r.resp != nil {
		return r.resp, nil
	}
	return nil, r.err
}

func (r *retryable) drop() {
	if r.resp != nil {
		r.resp.Body.Close()
	}
}

// try makes attempt n. It returns a response to hand to the caller, or an
// error that is a *retryable when another attempt is allowed.
func (t *Transport) try(req *http.Request, n int, getBody func() (io.ReadCloser, error), rec *Record) (*http.Response, time.Duration, error) {
	parent := req.Context()
	ctx, cancel := context.WithCancelCause(parent)
	r := req.Clone(ctx)
	if n > 1 && getBody != nil {
		b, err := getBody()
		if err != nil {
			cancel(nil)
			return nil, 0, err
		}
		r.Body = b
	} else if getBody != nil && req.GetBody == nil {
		r.Body, _ = getBody()
	}
	if getBody != nil {
		r.GetBody = getBody // lets the wire log read the body without consuming it
	}
	for k, v := range t.Header {
		r.Header[k] = v
	}
	stall := t.stall()
	var timer *time.Timer
	stallErr := &StallError{Timeout: stall}
	if stall > 0 {
		timer = time.AfterFunc(stall, func() { cancel(stallErr) })
	}
	var total *time.Timer
	var durErr *llm.LimitError
	if d := t.Limits.Duration(); d > 0 {
		durErr = &llm.LimitError{What: "time", Duration: d}
		total = time.AfterFunc(d, func() { cancel(durErr) })
	}
	stop := func() {
		if timer != nil {
			timer.Stop()
		}
		if total != nil {
			total.Stop()
		}
		cancel(nil)
	}

	resp, err := t.base().RoundTrip(r)
	if err != nil {
		stop()
		if parent.Err() != nil {
			return nil, 0, context.Cause(parent)
		}
		if errors.Is(context.Cause(ctx), llm.ErrStalled) {
			return nil, 0, stallErr // the server accepted but never answered: do not pile on
		}
		if durErr != nil && context.Cause(ctx) == error(durErr) {
			return nil, 0, durErr
		}
		rec.setConnErr(err)
		return nil, 0, &retryable{reason: err.Error(), err: err}
	}

	if resp.StatusCode >= 400 {
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		stop()
		if rerr != nil && parent.Err() != nil {
			return nil, 0, context.Cause(parent)
		}
		rec.setStatus(resp.StatusCode, resp.Header, body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		if llm.RetryableStatus(resp.StatusCode) {
			return nil, t.Retry.RetryAfter(resp.Header), &retryable{reason: resp.Status, resp: resp}
		}
		return resp, 0, nil
	}

	wb := &watchedBody{rc: resp.Body, timer: timer, timeout: stall, ctx: ctx, stallErr: stallErr, stop: stop, rec: rec}
	// Wait for the first byte here, where a failure can still be retried.
	buf := make([]byte, 4096)
	m, rerr := wb.Read(buf)
	if m == 0 && rerr != nil && rerr != io.EOF {
		wb.Close()
		rec.clearReadErr() // not delivered: not a read error of the final body
		if parent.Err() != nil {
			return nil, 0, context.Cause(parent)
		}
		if errors.Is(rerr, llm.ErrStalled) || errors.Is(rerr, llm.ErrResponseLimit) {
			return nil, 0, rerr
		}
		rec.setConnErr(rerr)
		return nil, 0, &retryable{reason: "connection failed before the first byte: " + rerr.Error(), err: rerr}
	}
	wb.prefix = buf[:m]
	wb.prefixErr = rerr
	resp.Body = wb
	if n := t.Limits.Event(); n > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &eventGuard{rc: wb, max: n, rec: rec, atLine: true}
	}
	return resp, 0, nil
}

// watchedBody resets the stall timer on every read that returns data, and
// turns the cancellation the timer causes into the stall error.
type watchedBody struct {
	rc        io.ReadCloser
	timer     *time.Timer
	timeout   time.Duration
	ctx       context.Context
	stallErr  *StallError
	stop      func()
	rec       *Record
	prefix    []byte
	prefixErr error // error that came with the peeked prefix (io.EOF)
	once      sync.Once
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if len(b.prefix) > 0 {
		n := copy(p, b.prefix)
		b.prefix = b.prefix[n:]
		return n, nil
	}
	if b.prefixErr != nil {
		return 0, b.prefixErr
	}
	n, err := b.rc.Read(p)
	if n > 0 && b.timer != nil {
		b.timer.Reset(b.timeout)
	}
	if err != nil && err != io.EOF {
		if errors.Is(context.Cause(b.ctx), llm.ErrStalled) {
			err = b.stallErr
		} else if le := (*llm.LimitError)(nil); errors.As(context.Cause(b.ctx), &le) {
			err = le
		}
		b.rec.setReadErr(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	var err error
	b.once.Do(func() {
		err = b.rc.Close()
		b.stop()
	})
	return err
}

// StallError is the error a stalled stream ends with; errors.Is matches
// llm.ErrStalled.
type StallError struct {
	Timeout time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("stream stalled: nothing received for %s (raise the stall timeout for slow models, or check the server)", e.Timeout)
}

func (e *StallError) Unwrap() error { return llm.ErrStalled }
