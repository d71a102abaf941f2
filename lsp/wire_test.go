package lsp

import (
	"bufio"
	"encoding/json"
	"net/textproto"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseFrame(s string) (*wireMsg, error) {
	r := bufio.NewReader(strings.NewReader(s))
	return readMessage(textproto.NewReader(r), r)
}

func TestReadMessage(t *testing.T) {
	tests := []struct {
		name, in string
		method   string
		err      string
	}{
		{"request", "Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", "ping", ""},
		{"extra header and case", "content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 30\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", "x", ""},
		{"no length", "Content-Type: x\r\n\r\n{}", "", "bad Content-Length"},
		{"negative length", "Content-Length: -1\r\n\r\n", "", "bad Content-Length"},
		{"too large", "Content-Length: 999999999999\r\n\r\n", "", "exceeds"},
		{"short body", "Content-Length: 10\r\n\r\n{}", "", "short body"},
		{"not json", "Content-Length: 3\r\n\r\nabc", "", "malformed message"},
		{"eof", "", "", "EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseFrame(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.method, m.Method)
		})
	}
}

// FuzzReadMessage: a server's output never panics the reader, and a frame
// that parses re-encodes to JSON.
func FuzzReadMessage(f *testing.F) {
	f.Add("Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")
	f.Add("Content-Length: 2\r\n\r\n{}")
	f.Add("Content-Length: 5\r\nX: y\r\n\r\n[1,2]")
	f.Add("\r\n\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseFrame(s)
		if err != nil {
			return
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("parsed message does not re-encode: %v", err)
		}
	})
}

func TestDecodeLocations(t *testing.T) {
	r := `{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}`
	want := Location{URI: "file:///a.go", Range: Range{Start: Position{1, 2}, End: Position{1, 5}}}
	tests := []struct {
		in   string
		want []Location
	}{
		{`null`, nil},
		{``, nil},
		{`[]`, []Location{}},
		{`{"uri":"file:///a.go","range":` + r + `}`, []Location{want}},
		{`[{"uri":"file:///a.go","range":` + r + `}]`, []Location{want}},
		{`[{"targetUri":"file:///a.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"targetSelectionRange":` + r + `}]`, []Location{want}},
		{`[{"targetUri":"file:///a.go","targetRange":` + r + `}]`, []Location{want}},
		{`[{"uri":"file:///a.go"}]`, []Location{}},
	}
	for _, tc := range tests {
		got, err := decodeLocations(json.RawMessage(tc.in))
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	_, err := decodeLocations(json.RawMessage(`[1]`))
	assert.Error(t, err)
}

func TestHoverContents(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"contents":{"kind":"markdown","value":"**x**"}}`, "**x**"},
		{`{"contents":"plain"}`, "plain"},
		{`{"contents":{"language":"go","value":"func f()"}}`, "```go\nfunc f()\n```"},
		{`{"contents":["a",{"language":"py","value":"b"}]}`, "a\n\n```py\nb\n```"},
		{`{"contents":null}`, ""},
	}
	for _, tc := range tests {
		var h Hover
		require.NoError(t, json.Unmarshal([]byte(tc.in), &h))
		assert.Equal(t, tc.want, h.Contents, tc.in)
	}
}

func TestUTF16(t *testing.T) {
	line := "a😀é中b" // 😀 is two UTF-16 units and four bytes
	tests := []struct{ byteCol, col16 int }{{0, 0}, {1, 1}, {5, 3}, {7, 4}, {10, 5}, {11, 6}}
	for _, tc := range tests {
		assert.Equal(t, tc.col16, UTF16Col(line, tc.byteCol), "UTF16Col(%d)", tc.byteCol)
		assert.Equal(t, tc.byteCol, ByteCol(line, tc.col16), "ByteCol(%d)", tc.col16)
	}
	assert.Equal(t, len(line), ByteCol(line, 99), "clamped")
	assert.Equal(t, []string{"a", "b", ""}, SplitLines("a\r\nb\n"))
}

func TestURI(t *testing.T) {
	u := URI("/tmp/dir with space/ü.go")
	assert.Equal(t, "file:///tmp/dir%20with%20space/%C3%BC.go", u)
	p, err := Path(u)
	require.NoError(t, err)
	assert.Equal(t, "/tmp/dir with space/ü.go", p)
	_, err = Path("https://example.com/x")
	assert.Error(t, err)
}

func BenchmarkReadMessage(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":7,"result":[` + strings.Repeat(`{"uri":"file:///src/pkg/file.go","range":{"start":{"line":12,"character":4},"end":{"line":12,"character":9}}},`, 40) + `{}]}`
	frame := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	stream := strings.Repeat(frame, 64)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := bufio.NewReader(strings.NewReader(stream))
		tp := textproto.NewReader(r)
		for range 64 {
			if _, err := readMessage(tp, r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
