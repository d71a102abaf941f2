package toolcall

import (
	"testing"
)

// FuzzParse: Parse never panics, its segments account for the whole
// input, Text and Thinking are their concatenations and every call's
// arguments are a JSON object.
func FuzzParse(f *testing.F) {
	for _, c := range goldenInputs(f) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkResult(in, Parse(in)); err != nil {
			t.Fatalf("input %q: %v", in, err)
		}
		if err := checkResult(in, ParseWith(in, WithTools("read_file", "write_file", "get_weather"))); err != nil {
			t.Fatalf("input %q with allow-list: %v", in, err)
		}
	})
}

// FuzzStream: however the input is split, Close equals Parse, the
// streamed text and thinking concatenate to the Result's (so displayed
// text only grows and never shows a call's markup) and the streamed
// calls are the Result's calls.
func FuzzStream(f *testing.F) {
	for i, c := range goldenInputs(f) {
		f.Add(c, []byte{byte(i), 1, 7, 3})
		f.Add(c, []byte{0})
	}
	f.Fuzz(func(t *testing.T, in string, cuts []byte) {
		if err := streamChunks(split(in, cuts)); err != nil {
			t.Fatal(err)
		}
	})
}
