package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// firstVersionWithoutBatches is the first MCP protocol version that
// removed JSON-RPC batching. Versions are dates, so they compare as
// strings, as the SDK compares them.
const firstVersionWithoutBatches = "2025-06-18"

// negotiatedVersion learns a stdio server session's protocol version from
// the server's answer to initialize, so that a batch the version forbids
// can be refused with an error response before it reaches the SDK.
type negotiatedVersion struct {
	mu      sync.Mutex
	version string // "" until the initialize result has been written
}

// check is checkMessage plus the version's rule on batches.
func (v *negotiatedVersion) check(line []byte) (json.RawMessage, error) {
	id, err := checkMessage(line)
	if err != nil || line[0] != '[' {
		return id, err
	}
	v.mu.Lock()
	version := v.version
	v.mu.Unlock()
	if version >= firstVersionWithoutBatches {
		return nil, fmt.Errorf("JSON-RPC batches are not part of MCP %s (removed in %s); send each message on its own line", version, firstVersionWithoutBatches)
	}
	return nil, nil
}

// watch returns w, reading the protocol version from the initialize
// result written through it. The SDK writes each message with one Write.
func (v *negotiatedVersion) watch(w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		v.mu.Lock()
		if v.version == "" && bytes.Contains(p, []byte(`"protocolVersion"`)) {
			var resp struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"result"`
			}
			if json.Unmarshal(p, &resp) == nil {
				v.version = resp.Result.ProtocolVersion
			}
		}
		v.mu.Unlock()
		return w.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
