package llm

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestRetryPolicyDelay(t *testing.T) {
	noJitter := func(d time.Duration) time.Duration { return d }
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, Jitter: noJitter}
	tests := []struct {
		next       int
		retryAfter time.Duration
		want       time.Duration
		ok         bool
	}{
		{2, 0, 100 * time.Millisecond, true},
		{3, 0, 200 * time.Millisecond, true},
		{4, 0, 400 * time.Millisecond, true},
		{6, 0, time.Second, true}, // capped
		{20, 0, time.Second, true},
		{2, 3 * time.Second, 3 * time.Second, true}, // Retry-After wins over a shorter backoff
		{2, 2 * time.Minute, 0, false},              // beyond MaxRetryAfter: give up
	}
	for _, tt := range tests {
		got, ok := p.Delay(tt.next, tt.retryAfter)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Delay(%d, %v) = %v, %v; want %v, %v", tt.next, tt.retryAfter, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRetryPolicyDefaultJitter(t *testing.T) {
	var p RetryPolicy // zero value: 500ms base
	for range 200 {
		d, ok := p.Delay(2, 0)
		if !ok || d < 250*time.Millisecond || d > 500*time.Millisecond {
			t.Fatalf("default jittered delay %v outside [250ms, 500ms]", d)
		}
	}
	if p.Attempts() != 4 {
		t.Errorf("default attempts = %d, want 4", p.Attempts())
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := RetryPolicy{Now: func() time.Time { return now }}
	tests := map[string]time.Duration{
		"":     0,
		"7":    7 * time.Second,
		"-3":   0,
		"soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	}
	ms := http.Header{}
	ms.Set("Retry-After-Ms", "1500")
	ms.Set("Retry-After", "9")
	if got := p.RetryAfter(ms); got != 1500*time.Millisecond {
		t.Errorf("retry-after-ms: got %v, want 1.5s", got)
	}
	for v, want := range tests {
		h := http.Header{}
		if v != "" {
			h.Set("Retry-After", v)
		}
		if got := p.RetryAfter(h); got != want {
			t.Errorf("RetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestRetryPolicyWaitHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	if err := (RetryPolicy{}).Wait(ctx, time.Hour); err == nil {
		t.Fatal("Wait on a cancelled context returned nil")
	}
	if time.Since(start) > time.Second {
		t.Fatal("Wait ignored the cancelled context")
	}
}

func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{200: false, 400: false, 401: false, 404: false, 408: true, 429: true,
		500: true, 501: false, 502: true, 503: true, 504: true, 505: false, 529: true} {
		if got := RetryableStatus(code); got != want {
			t.Errorf("RetryableStatus(%d) = %v, want %v", code, got, want)
		}
	}
}
