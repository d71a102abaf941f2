package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// knownContent are the content types of a tool result the SDK decodes.
var knownContent = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

// tolerant wraps a transport so that a tool result holding a content
// part of a type the SDK does not know (a newer spec's, a vendor's) is
// not refused whole: the SDK fails the call at the first such part and
// the model would lose the parts it could read. Each unknown part becomes
// a text part describing it.
//
// Only stdio and custom transports are wrapped: like watched, a wrapper
// would hide the unexported methods of the SDK's HTTP connections, so
// over HTTP the same rewrite is done one layer down, in the bodies the
// wire taps (see wirehttp.go).
type tolerant struct{ sdk.Transport }

func (t tolerant) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return tolerantConn{conn}, nil
}

type tolerantConn struct{ sdk.Connection }

func (c tolerantConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && len(resp.Result) > 0 {
		resp.Result = describeUnknownContent(resp.Result)
	}
	return msg, err
}

// describeUnknownContent returns result with every part of its "content"
// array whose type is unknown replaced by a text part naming the type and
// quoting the part (cut at 500 bytes); result itself when there is none.
// Only a tool result has a top-level content array.
func describeUnknownContent(result json.RawMessage) json.RawMessage {
	if !bytes.Contains(result, []byte(`"content"`)) {
		return result
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) != nil {
		return result
	}
	var parts []json.RawMessage
	if json.Unmarshal(fields["content"], &parts) != nil {
		return result
	}
	changed := false
	for i, p := range parts {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(p, &head) != nil || knownContent[head.Type] {
			continue
		}
		quoted := string(p)
		if len(quoted) > 500 {
			quoted = quoted[:500] + "…"
		}
		text, _ := json.Marshal(map[string]string{"type": "text",
			"text": fmt.Sprintf("[content of a type Tether does not know (%q): %s]", head.Type, quoted)})
		parts[i], changed = text, true
	}
	if !changed {
		return result
	}
	b, err := json.Marshal(parts)
	if err != nil {
		return result
	}
	fields["content"] = b
	out, err := json.Marshal(fields)
	if err != nil {
		return result
	}
	return out
}
