package mcp

import (
	"context"
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

// wav builds a PCM WAV file of n data bytes at byteRate bytes a second,
// with an extra chunk of odd size before "data" when pad is set (chunks
// are padded to an even length, a detail parsers get wrong).
func wav(byteRate uint32, n int, dataSize uint32, pad bool) []byte {
	le := binary.LittleEndian
	b := []byte("RIFF\x00\x00\x00\x00WAVE")
	b = append(b, "fmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1)          // PCM
	b = le.AppendUint16(b, 1)          // mono
	b = le.AppendUint32(b, byteRate/2) // sample rate, 16-bit samples
	b = le.AppendUint32(b, byteRate)
	b = le.AppendUint16(b, 2)
	b = le.AppendUint16(b, 16)
	if pad {
		b = append(b, "LIST"...)
		b = le.AppendUint32(b, 3)
		b = append(b, "abc\x00"...)
	}
	b = append(b, "data"...)
	b = le.AppendUint32(b, dataSize)
	return append(b, make([]byte, n)...)
}

func TestWAVDuration(t *testing.T) {
	full := wav(16000, 8000, 8000, false)
	cases := []struct {
		name string
		data []byte
		want time.Duration
		ok   bool
	}{
		{"half a second", full, 500 * time.Millisecond, true},
		{"odd chunk before data", wav(16000, 16000, 16000, true), time.Second, true},
		{"streamed: size unknown", wav(16000, 4000, 0xFFFFFFFF, false), 250 * time.Millisecond, true},
		{"size zero counts what is there", wav(16000, 4000, 0, false), 250 * time.Millisecond, true},
		{"truncated data", full[:len(full)-4000], 250 * time.Millisecond, true},
		{"truncated fmt", full[:30], 0, false},
		{"header only", full[:12], 0, false},
		{"zero byte rate", wav(0, 100, 100, false), 0, false},
		{"not RIFF", []byte("ID3\x03 mp3 frames"), 0, false},
		{"empty", nil, 0, false},
		{"chunk size past the end", append([]byte("RIFF\x00\x00\x00\x00WAVEjunk"), 0xff, 0xff, 0xff, 0x7f), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := wavDuration(c.data)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestConvertResultContent(t *testing.T) {
	cases := []struct {
		name      string
		res       *sdk.CallToolResult
		want      []string // substrings of the model's text
		wantNot   []string
		images    int
		textLines int // 0: not checked
	}{
		{
			name: "audio named with type, size and duration",
			res:  &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: wav(16000, 24000, 24000, false)}}},
			want: []string{"[audio: audio/wav, 23.5 KiB, 1.5 s; the model cannot hear audio, so only this description is passed on]"},
		},
		{
			name: "audio of another format has no duration",
			res:  &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/mpeg", Data: make([]byte, 300)}}},
			want: []string{"[audio: audio/mpeg, 300 bytes; the model cannot hear audio"},
		},
		{
			name:    "structured content wrapping the text's array is not repeated",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `[{"name":"Ada"}]`}}, StructuredContent: map[string]any{"entities": []any{map[string]any{"name": "Ada"}}}},
			want:    []string{`[{"name":"Ada"}]`},
			wantNot: []string{"Structured result", "entities"},
		},
		{
			name:    "structured content equal to the text is not repeated",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"b":1,"a":[true,null]}`}}, StructuredContent: map[string]any{"a": []any{true, nil}, "b": 1}},
			wantNot: []string{"Structured result"},
		},
		{
			name: "structured content that adds something is kept",
			res:  &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `The weather is fine.`}}, StructuredContent: map[string]any{"temperature": 21}},
			want: []string{"The weather is fine.\nStructured result:\n{\n  \"temperature\": 21\n}"},
		},
		{
			name: "a two-field object is not taken for a wrapper",
			res:  &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `[1]`}}, StructuredContent: map[string]any{"a": []any{1}, "b": 2}},
			want: []string{"Structured result:"},
		},
		{
			name:    "binary resource described, not dumped",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.gz", MIMEType: "application/gzip", Blob: make([]byte, 2048)}}}},
			want:    []string{"[resource file:///a.gz: application/gzip, 2.0 KiB of binary data, not passed to the model]"},
			wantNot: []string{"AAAA"},
		},
		{
			name: "a text blob is read as text",
			res:  &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "demo://b/1", MIMEType: "text/plain; charset=utf-8", Blob: []byte("héllo")}}}},
			want: []string{"[resource demo://b/1]\nhéllo"},
		},
		{
			name:    "a JSON blob is read as text, a blob that is not UTF-8 is not",
			res:     &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "a.json", MIMEType: "application/vnd.api+json", Blob: []byte(`{"a":1}`)}}, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "b.txt", MIMEType: "text/plain", Blob: []byte{0xff, 0xfe}}}}},
			want:    []string{"[resource a.json]\n{\"a\":1}", "[resource b.txt: text/plain, 2 bytes of binary data, not passed to the model]"},
			wantNot: []string{"a.json: "},
		},
		{
			name:   "embedded image resource goes to the model as an image",
			res:    &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "demo://i.png", MIMEType: "image/png", Blob: []byte{1, 2, 3}}}}},
			want:   []string{"[resource demo://i.png: image/png, 3 bytes, shown as an image]"},
			images: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := convertResult(c.res, "srv", 0)
			for _, w := range c.want {
				assert.Contains(t, got.Text, w)
			}
			for _, w := range c.wantNot {
				assert.NotContains(t, got.Text, w)
			}
			assert.Len(t, got.Images, c.images)
		})
	}
}

// TestMediaReachesHost: the bytes the model only hears about go to the
// host's OnMedia, with the tool that returned them, before the call
// returns.
func TestMediaReachesHost(t *testing.T) {
	clip := wav(8000, 4000, 4000, false)
	gz := []byte{0x1f, 0x8b, 8, 0}
	srv := sdk.NewServer(&sdk.Implementation{Name: "media", Version: "v1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "speak", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "Here it is."},
				&sdk.AudioContent{MIMEType: "audio/wav", Data: clip},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///x.gz", MIMEType: "application/gzip", Blob: gz}},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte{9}},
			}}, nil
		})
	srv.AddResource(&sdk.Resource{URI: "demo://clip.wav", Name: "clip", MIMEType: "audio/wav"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "demo://clip.wav", MIMEType: "audio/wav", Blob: clip}}}, nil
		})
	var mu sync.Mutex
	var got []Media
	c := connectInProcess(t, srv, ServerConfig{Name: "media", Rules: Rules{Allow: []string{"*"}},
		OnMedia: func(_ context.Context, m Media) { mu.Lock(); got = append(got, m); mu.Unlock() }})
	var reg tools.Registry
	_, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)

	res := call(t, &reg, "media__speak", `{}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, 4, strings.Count(res.Text, "\n")+1, res.Text)
	assert.Contains(t, res.Text, "[audio: audio/wav, 3.9 KiB, 0.5 s;")
	assert.Len(t, res.Images, 1, "images are for the model, not OnMedia")
	res = call(t, &reg, "media__"+readResourceTool, `{"uri":"demo://clip.wav"}`)
	require.False(t, res.IsError, res.Text)
	assert.Contains(t, res.Text, "[resource demo://clip.wav: audio/wav, 3.9 KiB of binary data, not passed to the model]")

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []Media{
		{Server: "media", Tool: "media__speak", Kind: "audio", MIMEType: "audio/wav", Data: clip},
		{Server: "media", Tool: "media__speak", Kind: "resource", MIMEType: "application/gzip", URI: "file:///x.gz", Data: gz},
		{Server: "media", Tool: "media__" + readResourceTool, Kind: "resource", MIMEType: "audio/wav", URI: "demo://clip.wav", Data: clip},
	}, got)
}
