package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// wire watches the messages of one session as they cross the transport,
// in the order the server sent them, for the two facts the SDK's typed
// API cannot give:
//
//   - how many progress notifications arrived for a token. The SDK hands
//     notifications to their handler on a queue that the call's response
//     can overtake; since a server sends a call's notifications before its
//     result, the count seen here when CallTool returns is exactly the
//     number the client must deliver before returning the result.
//   - which tools declare execution.taskSupport "required" (calls to them
//     fail without MCP tasks, which Tether does not support yet); the SDK
//     drops that field when it decodes a tool.
type wire struct {
	mu         sync.Mutex
	arrived    map[string]int // tracked progress token → notifications read
	listCalls  map[string]bool
	taskNeeded map[string]bool
}

func newWire() *wire {
	return &wire{arrived: map[string]int{}, listCalls: map[string]bool{}, taskNeeded: map[string]bool{}}
}

// track starts counting the notifications for tok, a call's token; the
// wire counts only tracked tokens, so a notification arriving after its
// call ended leaves nothing behind.
func (w *wire) track(tok string) {
	w.mu.Lock()
	w.arrived[tok] = 0
	w.mu.Unlock()
}

// arrivedFor returns how many progress notifications for tok were read.
func (w *wire) arrivedFor(tok string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.arrived[tok]
}

// forget drops the count of a finished call.
func (w *wire) forget(tok string) {
	w.mu.Lock()
	delete(w.arrived, tok)
	w.mu.Unlock()
}

// needsTask reports whether the server said the tool requires tasks.
func (w *wire) needsTask(tool string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.taskNeeded[tool]
}

func (w *wire) sent(msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/list" && req.ID.IsValid() {
		w.mu.Lock()
		w.listCalls[idKey(req.ID)] = true
		w.mu.Unlock()
	}
}

func (w *wire) received(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method != "notifications/progress" || m.ID.IsValid() {
			return
		}
		var p struct {
			Token any `json:"progressToken"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if tok, ok := p.Token.(string); ok {
			w.mu.Lock()
			if _, tracked := w.arrived[tok]; tracked {
				w.arrived[tok]++
			}
			w.mu.Unlock()
		}
	case *jsonrpc.Response:
		key := idKey(m.ID)
		w.mu.Lock()
		isList := w.listCalls[key]
		delete(w.listCalls, key)
		w.mu.Unlock()
		if !isList || m.Error != nil {
			return
		}
		var res struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		}
		if json.Unmarshal(m.Result, &res) != nil {
			return
		}
		w.mu.Lock()
		for _, t := range res.Tools {
			if t.Execution.TaskSupport == "required" {
				w.taskNeeded[t.Name] = true
			} else {
				delete(w.taskNeeded, t.Name)
			}
		}
		w.mu.Unlock()
	}
}

func idKey(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// watched wraps a transport so that w sees every message.
type watched struct {
	sdk.Transport
	w *wire
}

func (t watched) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return watchedConn{Connection: conn, w: t.w}, nil
}

type watchedConn struct {
	sdk.Connection
	w *wire
}

func (c watchedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.w.received(msg)
	}
	return msg, err
}

func (c watchedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.w.sent(msg)
	return c.Connection.Write(ctx, msg)
}
