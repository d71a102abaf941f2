package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
)

// liveLog is one session's event stream as the page sees it: the agent's
// events (replayed from the session store when the session is opened,
// then appended by the sink as they happen; a running call's live output
// is among them, as tool_progress events) and the server's own
// (host_error). Each entry gets the next sequence number, which the page
// sends back as Last-Event-ID to resume after a dropped connection
// without gaps or repeats.
//
// The agent's events come from the session store only, through feed, in
// the store's order and each once, whichever process ran the turn: the
// sink of a local turn calls feed after the store persisted its event,
// and with a shared store (PostgreSQL) an open stream also polls it, so
// a page sees a turn that runs in another web process as it happens.
type liveLog struct {
	sess *session.Session
	note func(event.Event) // sees each stored event before the page does

	mu      sync.Mutex
	entries [][]byte      // entries[i] has sequence number i+1
	changed chan struct{} // closed and replaced on every append

	feedMu sync.Mutex // one feed at a time, so no stored event is appended twice
	stored int64      // Seq of the last stored event appended; guarded by feedMu
}

func newLiveLog(sess *session.Session, note func(event.Event)) *liveLog {
	return &liveLog{sess: sess, note: note, changed: make(chan struct{})}
}

// feed appends the session's stored events that are not in the log yet.
func (l *liveLog) feed(ctx context.Context) error {
	l.feedMu.Lock()
	defer l.feedMu.Unlock()
	for ev, err := range l.sess.Events(ctx, l.stored) {
		if err != nil {
			return fmt.Errorf("session %s: reading its events: %w", l.sess.ID(), err)
		}
		b, err := event.Marshal(ev.Event)
		if err != nil {
			return err
		}
		l.note(ev.Event)
		l.appendJSON(b)
		l.stored = ev.Seq
	}
	return nil
}

// follow feeds the log every interval until ctx ends: the turns of other
// processes sharing the store reach this one's pages.
func (l *liveLog) follow(ctx context.Context, interval time.Duration, logger *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := l.feed(ctx); err != nil && ctx.Err() == nil {
				logger.Warn("web: following the session store", "error", err)
			}
		}
	}
}

// appendJSON adds one encoded event.
func (l *liveLog) appendJSON(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, b)
	close(l.changed)
	l.changed = make(chan struct{})
}

// since returns the entries after seq and a channel closed at the next
// append.
func (l *liveLog) since(seq int) ([][]byte, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seq = max(0, min(seq, len(l.entries)))
	return l.entries[seq:], l.changed
}

// stream writes the log as Server-Sent Events from after, then every new
// entry, until the client goes away or ctx ends. After the backlog it
// sends one "replayed" event (no id, so resuming is unaffected) saying
// whether a turn is running now: a log whose last turn was cut short by a
// restart has no run_finished, and the page must not wait for one.
func (l *liveLog) stream(ctx context.Context, w http.ResponseWriter, after int, running func() bool) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported by this connection", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	// A comment first, so the browser sees the stream open at once.
	if _, err := fmt.Fprint(w, ": tether\n\n"); err != nil {
		return
	}
	flusher.Flush()
	seq := after
	for first := true; ; first = false {
		batch, changed := l.since(seq)
		for _, b := range batch {
			seq++
			// Encoded JSON has no raw newlines, so one data line suffices.
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", seq, b); err != nil {
				return
			}
		}
		if first {
			if _, err := fmt.Fprintf(w, "event: replayed\ndata: {\"running\":%t}\n\n", running()); err != nil {
				return
			}
		}
		flusher.Flush()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// lastEventID is where a stream resumes: the Last-Event-ID header the
// browser sends on reconnect, else 0 (the whole log).
func lastEventID(r *http.Request) (int, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("event id %q: want a non-negative integer", v)
	}
	return n, nil
}

// hostError is the server's own event for a failure the agent did not
// report itself (a turn that could not start, a store error).
type hostError struct {
	Type  string `json:"type"`
	Error string `json:"error"`
}

func encodeHostError(err error) []byte {
	b, _ := json.Marshal(hostError{Type: "host_error", Error: err.Error()}) // strings always encode
	return b
}
