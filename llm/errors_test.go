package llm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestStatusError(t *testing.T) {
	se := &StatusError{Backend: "ollama", StatusCode: 404, Message: `model "qwen3:8b" not found, try pulling it first`,
		Kind: ErrModelNotFound, Hint: "run `ollama pull qwen3:8b`"}
	err := fmt.Errorf("agent: iteration 3: %w", se)
	if !errors.Is(err, ErrModelNotFound) {
		t.Error("errors.Is(ErrModelNotFound) failed through wrapping")
	}
	var got *StatusError
	if !errors.As(err, &got) || got.StatusCode != 404 {
		t.Error("errors.As(*StatusError) failed")
	}
	for _, want := range []string{"ollama:", "not found", "HTTP 404", "ollama pull qwen3:8b"} {
		if !strings.Contains(se.Error(), want) {
			t.Errorf("%q lacks %q", se.Error(), want)
		}
	}
	bare := &StatusError{Backend: "openai", StatusCode: 503, RetryAfter: 5 * time.Second}
	if s := bare.Error(); !strings.Contains(s, "Service Unavailable") || !strings.Contains(s, "5s") {
		t.Errorf("bare status error = %q", s)
	}
	if errors.Is(bare, ErrModelNotFound) {
		t.Error("a StatusError without Kind matched a sentinel")
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", MaxBodyExcerpt) // 2 bytes a rune
	got := Excerpt([]byte(long))
	if len(got) > MaxBodyExcerpt+len("…") || !strings.HasSuffix(got, "…") {
		t.Fatalf("excerpt of %d bytes is %d bytes", len(long), len(got))
	}
	if !utf8.ValidString(got) {
		t.Fatal("excerpt split a rune")
	}
	if Excerpt([]byte("short")) != "short" {
		t.Fatal("short body changed")
	}
}
