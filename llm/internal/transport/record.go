// Package transport is the resilience layer shared by the llm backends: an
// http.RoundTripper that retries failed attempts before any response byte
// is delivered, watches the response body for stalls, and records what
// happened so a backend can turn it into a typed error whatever its client
// library made of it.
package transport

import (
	"context"
	"net/http"
	"sync"
)

// Record collects what the Transport saw for one logical request (all its
// attempts). A backend attaches one to the request context with Track and
// reads it after the client library returns.
//
// It exists because client libraries lose information: the Ollama client
// swallows body read errors and ignores an error status with an empty body;
// the OpenAI client drops non-JSON error bodies. The Record keeps the truth.
type Record struct {
	mu       sync.Mutex
	attempts int
	status   int
	header   http.Header
	body     []byte
	readErr  error
	connErr  error
}

type recordKey struct{}

// Track returns a context carrying a fresh Record.
func Track(ctx context.Context) (context.Context, *Record) {
	r := &Record{}
	return context.WithValue(ctx, recordKey{}, r), r
}

func recordFrom(ctx context.Context) *Record {
	if r, ok := ctx.Value(recordKey{}).(*Record); ok {
		return r
	}
	return &Record{} // untracked request: record into a throwaway
}

// Attempts is how many HTTP attempts were made.
func (r *Record) Attempts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

// Status returns the final error status (≥ 400), its headers and the start
// of its body; status is 0 when the final answer was not an error status.
func (r *Record) Status() (status int, header http.Header, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.header, r.body
}

// ReadErr is the first error reading the delivered response body, other
// than io.EOF: a reset connection, a stall, a cancellation.
func (r *Record) ReadErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readErr
}

// ConnErr is the connection error of the final attempt, if it failed before
// a response arrived.
func (r *Record) ConnErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.connErr
}

func (r *Record) attempt() {
	r.mu.Lock()
	r.attempts++
	r.status, r.header, r.body, r.connErr = 0, nil, nil, nil
	r.mu.Unlock()
}

func (r *Record) setStatus(code int, h http.Header, body []byte) {
	r.mu.Lock()
	r.status, r.header, r.body = code, h, body
	r.mu.Unlock()
}

func (r *Record) setConnErr(err error) {
	r.mu.Lock()
	r.connErr = err
	r.mu.Unlock()
}

func (r *Record) setReadErr(err error) {
	r.mu.Lock()
	if r.readErr == nil {
		r.readErr = err
	}
	r.mu.Unlock()
}

func (r *Record) clearReadErr() {
	r.mu.Lock()
	r.readErr = nil
	r.mu.Unlock()
}
