package mcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Media is a binary part of a tool result or resource that the model
// does not receive as is: audio (no model backend takes it yet) and
// binary resources other than images and text (a blob whose MIME type is
// textual and whose bytes are UTF-8 reaches the model as text). The model gets one line describing
// it (its MIME type, size and, for WAV audio, duration); the bytes go to
// ServerConfig.OnMedia, so that a host can play, save or forward them.
type Media struct {
	// Server is the MCP server's name; Tool the qualified name of the tool
	// whose result held the part ("<server>__read_resource" for a read
	// resource).
	Server, Tool string
	// Kind is "audio" for an audio part, "resource" for a binary embedded
	// resource.
	Kind     string
	MIMEType string
	// URI names an embedded resource; empty for audio.
	URI  string
	Data []byte
}

// mediaOf returns the parts of res that the model gets only as a
// description (see Media), in the order of the result.
func mediaOf(res *sdk.CallToolResult, server, tool string) []Media {
	var out []Media
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.AudioContent:
			out = append(out, Media{Server: server, Tool: tool, Kind: "audio", MIMEType: c.MIMEType, Data: c.Data})
		case *sdk.EmbeddedResource:
			r := c.Resource
			if _, isText := blobText(r); r != nil && len(r.Blob) > 0 && !isText && !strings.HasPrefix(r.MIMEType, "image/") {
				out = append(out, Media{Server: server, Tool: tool, Kind: "resource", MIMEType: r.MIMEType, URI: r.URI, Data: r.Blob})
			}
		}
	}
	return out
}

// blobText returns a binary resource whose MIME type says it is text
// (text/*, JSON, XML, YAML…) as text, when its bytes are UTF-8: servers
// send text as a base64 blob too, and the model can read it.
func blobText(r *sdk.ResourceContents) (string, bool) {
	if r == nil || len(r.Blob) == 0 || !utf8.Valid(r.Blob) {
		return "", false
	}
	mt, _, err := mime.ParseMediaType(r.MIMEType)
	if err != nil {
		return "", false
	}
	textual := strings.HasPrefix(mt, "text/")
	for _, suffix := range []string{"/json", "+json", "/xml", "+xml", "/yaml", "/x-yaml", "/javascript", "/toml"} {
		textual = textual || strings.HasSuffix(mt, suffix)
	}
	return string(r.Blob), textual
}

// deliverMedia hands res's media to the host's hook, if it has one.
func deliverMedia(ctx context.Context, hook func(context.Context, Media), res *sdk.CallToolResult, server, tool string) {
	if hook == nil {
		return
	}
	for _, m := range mediaOf(res, server, tool) {
		hook(ctx, m)
	}
}

// describeAudio is the line the model gets for an audio part: what it
// is and how long, and that it was not passed on, so that the model
// neither invents its content nor asks for it again.
func describeAudio(mime string, data []byte) string {
	s := fmt.Sprintf("[audio: %s, %s", mime, byteSize(len(data)))
	if d, ok := wavDuration(data); ok {
		s += fmt.Sprintf(", %.1f s", d.Seconds())
	}
	return s + "; the model cannot hear audio, so only this description is passed on]"
}

// byteSize writes n bytes for a reader: "512 bytes", "4.0 KiB", "1.5 MiB".
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// wavDuration reads the length of RIFF/WAVE audio from its header: the
// "data" chunk's size over the "fmt " chunk's byte rate. It reports false
// for anything else, including a truncated or inconsistent header.
func wavDuration(b []byte) (time.Duration, bool) {
	if len(b) < 12 || !bytes.Equal(b[0:4], []byte("RIFF")) || !bytes.Equal(b[8:12], []byte("WAVE")) {
		return 0, false
	}
	var byteRate uint32
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), binary.LittleEndian.Uint32(b[off+4:off+8])
		body := off + 8
		switch id {
		case "fmt ":
			// fmt: format(2) channels(2) sampleRate(4) byteRate(4) …
			if size < 16 || body+16 > len(b) {
				return 0, false
			}
			byteRate = binary.LittleEndian.Uint32(b[body+8 : body+12])
		case "data":
			if byteRate == 0 {
				return 0, false
			}
			// A streamed WAV may say 0 or 0xFFFFFFFF: count what is here.
			n := uint64(size)
			if avail := uint64(len(b) - body); n == 0 || n > avail {
				n = avail
			}
			return time.Duration(n * uint64(time.Second) / uint64(byteRate)), true
		}
		// Chunks are padded to an even size.
		next := uint64(body) + uint64(size) + uint64(size&1)
		if next > uint64(len(b)) {
			return 0, false
		}
		off = int(next)
	}
	return 0, false
}
