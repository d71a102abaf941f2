package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// checkResult verifies the invariants every Result must satisfy for the
// input it came from. It returns a description of the first violation.
func checkResult(in string, r Result) error {
	pos := 0
	var text, thinking strings.Builder
	next := 0
	for i, seg := range r.Segments {
		if seg.Start != pos || seg.End <= seg.Start || seg.End > len(in) {
			return fmt.Errorf("segment %d [%d,%d) does not continue at %d", i, seg.Start, seg.End, pos)
		}
		switch seg.Kind {
		case SegmentText:
			if seg.Text != in[seg.Start:seg.End] {
				return fmt.Errorf("text segment %d is not the input span", i)
			}
			if i > 0 && r.Segments[i-1].Kind == SegmentText {
				return fmt.Errorf("segments %d and %d are adjacent text", i-1, i)
			}
			text.WriteString(seg.Text)
		case SegmentCall:
			text.WriteString(seg.Text)
			for _, c := range seg.Calls {
				if c != next {
					return fmt.Errorf("segment %d references call %d, want %d", i, c, next)
				}
				next++
			}
		case SegmentThinking:
			thinking.WriteString(seg.Text)
		}
		pos = seg.End
	}
	if pos != len(in) {
		return fmt.Errorf("segments end at %d, input has %d bytes", pos, len(in))
	}
	if next != len(r.Calls) {
		return fmt.Errorf("segments reference %d calls, result has %d", next, len(r.Calls))
	}
	if text.String() != r.Text {
		return fmt.Errorf("Text %q is not the concatenation of segments %q", r.Text, text.String())
	}
	if thinking.String() != r.Thinking {
		return fmt.Errorf("Thinking %q is not the concatenation of segments %q", r.Thinking, thinking.String())
	}
	for i, c := range r.Calls {
		a := bytes.TrimSpace(c.Arguments)
		if len(a) == 0 || a[0] != '{' || !json.Valid(a) {
			return fmt.Errorf("call %d (%s) arguments are not a JSON object: %q", i, c.Name, c.Arguments)
		}
		if c.Name == "" {
			return fmt.Errorf("call %d has no name", i)
		}
		if c.Start < 0 || c.End > len(in) || c.Start >= c.End {
			return fmt.Errorf("call %d span [%d,%d) out of range", i, c.Start, c.End)
		}
	}
	for i, f := range r.Failures {
		if f.Start < 0 || f.End > len(in) || f.Start > f.End || f.Raw != in[f.Start:f.End] {
			return fmt.Errorf("failure %d span [%d,%d) wrong", i, f.Start, f.End)
		}
		if f.Err == nil || f.Reason == "" {
			return fmt.Errorf("failure %d has no error or reason", i)
		}
	}
	return nil
}

// streamChunks feeds the chunks to a new Stream and checks the streaming
// invariants: events concatenate to the final Text and Thinking, the
// completed calls match the Result, and Close equals Parse of the whole.
func streamChunks(chunks []string, opts ...Option) error {
	s := NewStream(opts...)
	var text, thinking strings.Builder
	var calls []Call
	collect := func(evs []Event) {
		for _, e := range evs {
			switch e.Kind {
			case EventText:
				text.WriteString(e.Text)
			case EventThinking:
				thinking.WriteString(e.Text)
			case EventCall:
				calls = append(calls, *e.Call)
			}
		}
	}
	for _, c := range chunks {
		collect(s.Feed(c))
	}
	collect(s.Flush())
	got := s.Close()
	want := ParseWith(strings.Join(chunks, ""), opts...)
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		return fmt.Errorf("Close differs from Parse for chunks %q:\nstream: %s\nparse:  %s", chunks, gj, wj)
	}
	if text.String() != got.Text {
		return fmt.Errorf("streamed text %q != Result.Text %q (chunks %q)", text.String(), got.Text, chunks)
	}
	if thinking.String() != got.Thinking {
		return fmt.Errorf("streamed thinking %q != Result.Thinking %q (chunks %q)", thinking.String(), got.Thinking, chunks)
	}
	if len(calls) != len(got.Calls) {
		return fmt.Errorf("streamed %d calls, Result has %d (chunks %q)", len(calls), len(got.Calls), chunks)
	}
	for i := range calls {
		if calls[i].Name != got.Calls[i].Name || !bytes.Equal(calls[i].Arguments, got.Calls[i].Arguments) {
			return fmt.Errorf("streamed call %d %v differs from %v", i, calls[i], got.Calls[i])
		}
	}
	return nil
}

// split cuts s into chunks whose lengths come from cuts (1..16 bytes
// each, cycling), so fuzzers explore every split.
func split(s string, cuts []byte) []string {
	if len(cuts) == 0 {
		return []string{s}
	}
	var out []string
	for i := 0; len(s) > 0; i++ {
		n := int(cuts[i%len(cuts)])%16 + 1
		n = min(n, len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}
