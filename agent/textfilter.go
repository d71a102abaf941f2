package agent

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// CompletionSignal is the marker a model writes when the task is done.
// It is matched case-insensitively and never shown.
const CompletionSignal = "[TASK_COMPLETE]"

// Text throttling: deltas are batched so a UI repaints at a steady rate,
// and the first one waits for real words.
const (
	// throttleInterval is the least time between two text deltas.
	throttleInterval = 32 * time.Millisecond
	// firstChunkWordChars is how many word characters the first delta
	// needs, so a fragment such as "**What" never flashes on screen.
	firstChunkWordChars = 8
)

// signalFilter removes the completion signal from streamed text, also
// when it arrives split across chunks: a trailing prefix of the signal
// ("[TASK", "[tas") is held back until the next chunk decides it.
// Invariant: hold is always a proper prefix of the signal (ignoring case).
type signalFilter struct {
	hold string
	seen bool
}

func (f *signalFilter) feed(s string) string {
	if f.hold != "" {
		s = f.hold + s
		f.hold = ""
	}
	if i := indexSignal(s); i >= 0 {
		var b strings.Builder
		for i >= 0 {
			f.seen = true
			b.WriteString(s[:i])
			s = s[i+len(CompletionSignal):]
			i = indexSignal(s)
		}
		b.WriteString(s)
		s = b.String()
	}
	if k := partialSignalSuffix(s); k > 0 {
		f.hold = s[len(s)-k:]
		s = s[:len(s)-k]
	}
	return s
}

// end releases what is held at the end of the text. A trailing "[T…"
// of two bytes or more is a signal the model was cut off writing, and is
// dropped rather than shown; a lone "[" is ordinary text.
func (f *signalFilter) end() string {
	h := f.hold
	f.hold = ""
	if len(h) >= 2 {
		return ""
	}
	return h
}

// indexSignal finds the signal in s, ignoring ASCII case.
func indexSignal(s string) int {
	for i := strings.IndexByte(s, '['); i >= 0 && i+len(CompletionSignal) <= len(s); {
		if strings.EqualFold(s[i:i+len(CompletionSignal)], CompletionSignal) {
			return i
		}
		j := strings.IndexByte(s[i+1:], '[')
		if j < 0 {
			return -1
		}
		i += 1 + j
	}
	return -1
}

// partialSignalSuffix is the length of the longest proper prefix of the
// signal that s ends with.
func partialSignalSuffix(s string) int {
	tail := s[len(s)-min(len(CompletionSignal)-1, len(s)):]
	if strings.IndexByte(tail, '[') < 0 {
		return 0 // the common case: no bracket near the end
	}
	for k := len(tail); k > 0; k-- {
		if strings.EqualFold(s[len(s)-k:], CompletionSignal[:k]) {
			return k
		}
	}
	return 0
}

// stripSignal removes every complete signal from finished text and
// trims the whitespace it leaves at the end.
func stripSignal(s string) string {
	var f signalFilter
	out := f.feed(s) + f.end()
	if f.seen {
		out = strings.TrimRight(out, " \t\r\n")
	}
	return out
}

// throttle releases display text at most every throttleInterval, the
// first time only once it holds firstChunkWordChars word characters,
// later once it holds at least one. It runs no timer: held text goes out
// with the next chunk after the interval, when a call starts, or when the
// stream ends. The event sequence is therefore a pure function of the
// chunks and the clock, which is what makes it testable and replayable;
// the cost is that text arriving just before a long silence waits for the
// silence to end (a model streams tokens every few milliseconds, and
// Ollama's tool-call buffering ends with the call, which flushes).
type throttle struct {
	pending []byte // reused between deltas: only the emitted string allocates
	words   int    // word characters in pending
	last    time.Time
	started bool
}

func (t *throttle) add(s string, now time.Time) string {
	t.pending = append(t.pending, s...)
	t.words += wordChars(s)
	if !t.started {
		if t.words < firstChunkWordChars {
			return ""
		}
		t.started = true
		return t.take(now)
	}
	if t.words == 0 || now.Sub(t.last) < throttleInterval {
		return ""
	}
	return t.take(now)
}

// flush releases everything pending, whatever the gate says: nothing the
// model wrote is ever withheld once the stream ends or a tool call starts.
func (t *throttle) flush(now time.Time) string {
	if len(t.pending) == 0 {
		return ""
	}
	t.started = true
	return t.take(now)
}

func (t *throttle) take(now time.Time) string {
	s := string(t.pending)
	t.pending = t.pending[:0]
	t.words = 0
	t.last = now
	return s
}

func wordChars(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				n++
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
		i += w
	}
	return n
}

// echoFilter removes a thinking echo: some models repeat their whole
// reasoning at the start of the answer. While the answer so far could
// still be the echo, it is held; it is dropped once it matches the
// reasoning completely and released the moment it differs.
type echoFilter struct {
	thinking string // trimmed reasoning; empty disables the filter
	held     strings.Builder
	decided  bool
	trimLead bool // an echo was dropped: drop the whitespace after it too
}

// minEchoLen keeps a short reasoning ("Ok.") from eating the start of a
// genuine answer that happens to begin with the same words.
const minEchoLen = 16

func (f *echoFilter) start(thinking string) {
	f.thinking = strings.TrimSpace(thinking)
	if len(f.thinking) < minEchoLen {
		f.decided = true
	}
}

func (f *echoFilter) feed(s string) string {
	if f.decided {
		if f.trimLead {
			s = strings.TrimLeft(s, " \t\r\n")
			f.trimLead = s == ""
		}
		return s
	}
	f.held.WriteString(s)
	t := strings.TrimLeft(f.held.String(), " \t\r\n")
	switch {
	case t == "" || (len(t) < len(f.thinking) && strings.HasPrefix(f.thinking, t)):
		return "" // could still be the echo
	case strings.HasPrefix(t, f.thinking):
		f.decided = true
		f.held.Reset()
		rest := strings.TrimLeft(t[len(f.thinking):], " \t\r\n")
		f.trimLead = rest == ""
		return rest
	}
	f.decided = true
	out := f.held.String()
	f.held.Reset()
	return out
}

// end releases a held partial echo: an answer that is only a prefix of
// the reasoning is still the answer.
func (f *echoFilter) end() string {
	f.decided = true
	out := f.held.String()
	f.held.Reset()
	return out
}
