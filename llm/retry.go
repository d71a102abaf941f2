package llm

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy says how a backend retries a request that failed before any
// part of the response was delivered: on connection errors, HTTP 408, 429
// and 5xx (except 501 and 505). Once a byte of the streamed response has
// arrived, nothing is retried, so nothing is ever delivered twice.
//
// The zero value is a sensible default: 4 attempts, exponential backoff
// from 500 ms doubling up to 8 s with full jitter, Retry-After honoured up
// to 60 s.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 0 means 4, 1 disables retries.
	MaxAttempts int
	// BaseDelay is the backoff before the second attempt; 0 means 500 ms.
	BaseDelay time.Duration
	// MaxDelay caps the exponential backoff; 0 means 8 s.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the policy waits for; a
	// server asking for more gets its error returned at once (with
	// StatusError.RetryAfter set) rather than blocking the caller. 0 means 60 s.
	MaxRetryAfter time.Duration

	// Sleep waits for d or until ctx is done; nil means a timer. Tests
	// inject a fake to run retries instantly and record the delays.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock used to read HTTP-date Retry-After values; nil means time.Now.
	Now func() time.Time
	// Jitter maps a backoff ceiling to the delay actually used; nil means a
	// uniformly random duration in [d/2, d].
	Jitter func(d time.Duration) time.Duration
}

// Attempts is MaxAttempts with the default applied.
func (p RetryPolicy) Attempts() int {
	if p.MaxAttempts <= 0 {
		return 4
	}
	return p.MaxAttempts
}

// Delay is how long to wait before attempt number next (2 for the first
// retry), given the server's Retry-After (zero when absent). The second
// result is false when the server asked to wait longer than MaxRetryAfter.
func (p RetryPolicy) Delay(next int, retryAfter time.Duration) (time.Duration, bool) {
	maxRA := p.MaxRetryAfter
	if maxRA <= 0 {
		maxRA = 60 * time.Second
	}
	if retryAfter > maxRA {
		return 0, false
	}
	base, ceil := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if ceil <= 0 {
		ceil = 8 * time.Second
	}
	d := base
	for i := 2; i < next && d < ceil; i++ {
		d *= 2
	}
	d = min(d, ceil)
	if p.Jitter != nil {
		d = p.Jitter(d)
	} else {
		d = d/2 + rand.N(d/2+1)
	}
	return max(d, retryAfter), true
}

// Wait sleeps for d using p.Sleep, returning early with ctx's error.
func (p RetryPolicy) Wait(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// RetryAfter reads how long the server asked to wait: the retry-after-ms
// header OpenAI sends, else Retry-After as delay-seconds or an HTTP date
// (read with p.Now as the clock). It returns zero when neither is present
// or readable.
func (p RetryPolicy) RetryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		now := time.Now
		if p.Now != nil {
			now = p.Now
		}
		return max(t.Sub(now()), 0)
	}
	return 0
}

// RetryableStatus reports whether an HTTP status is worth another attempt.
func RetryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented, code == http.StatusHTTPVersionNotSupported:
		return false
	default:
		return code >= 500 && code <= 599
	}
}
