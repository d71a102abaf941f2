package lsp

import (
	"bufio"
	"encoding/json"
	"net/textproto"
	"os"
	"strconv"
	"time"
)

// fakeServer is a scripted language server run by re-executing the test
// binary with TETHER_FAKE_LSP set to a mode:
//
//	normal: answers initialize, shutdown and definition; publishes one
//	        diagnostic per didOpen/didChange; asks the client for its
//	        configuration and echoes the answer in the diagnostic.
//	hang:   answers initialize, then ignores everything, even stdin EOF.
//	crash:  answers initialize, then exits on the initialized notification.
func fakeServer(mode string) int {
	r := bufio.NewReader(os.Stdin)
	tp := textproto.NewReader(r)
	w := os.Stdout
	send := func(m map[string]any) {
		m["jsonrpc"] = "2.0"
		b, _ := json.Marshal(m)
		w.Write([]byte("Content-Length: " + strconv.Itoa(len(b)) + "\r\n\r\n"))
		w.Write(b)
	}
	config := "none"
	var held []func() // publishes waiting for the configuration answer
	for {
		msg, err := readMessage(tp, r)
		if err != nil {
			if mode == "hang" {
				time.Sleep(time.Hour)
			}
			return 0
		}
		if mode == "hang" && msg.Method != "initialize" {
			continue
		}
		switch msg.Method {
		case "initialize":
			send(map[string]any{"id": msg.ID, "result": map[string]any{"capabilities": map[string]any{
				"definitionProvider": true, "typeHierarchyProvider": false}}})
			send(map[string]any{"id": 900, "method": "workspace/configuration", "params": map[string]any{"items": []any{map[string]any{"section": "fake"}}}})
		case "initialized":
			if mode == "crash" {
				return 3 // dies once the client thinks all is well
			}
		case "":
			if msg.ID != nil && string(*msg.ID) == "900" {
				config = string(msg.Result)
				for _, f := range held {
					f()
				}
				held = nil
			}
		case "textDocument/didOpen", "textDocument/didChange":
			var p struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			}
			json.Unmarshal(msg.Params, &p)
			publish := func() {
				send(map[string]any{"method": "textDocument/publishDiagnostics", "params": map[string]any{
					"uri": p.TextDocument.URI, "version": p.TextDocument.Version,
					"diagnostics": []any{map[string]any{"message": "v" + strconv.Itoa(p.TextDocument.Version) + " config " + config,
						"severity": 2, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}}}}})
			}
			if config == "none" {
				held = append(held, publish)
			} else {
				publish()
			}
		case "textDocument/definition":
			send(map[string]any{"id": msg.ID, "result": []any{map[string]any{"targetUri": "file:///x/y.go",
				"targetRange":          map[string]any{"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 5, "character": 0}},
				"targetSelectionRange": map[string]any{"start": map[string]any{"line": 2, "character": 5}, "end": map[string]any{"line": 2, "character": 9}}}}})
		case "textDocument/hover":
			// never answered: the client must give up when its context ends
		case "shutdown":
			send(map[string]any{"id": msg.ID, "result": nil})
		case "exit":
			return 0
		default:
			if msg.ID != nil {
				send(map[string]any{"id": msg.ID, "error": map[string]any{"code": CodeMethodNotFound, "message": "no " + msg.Method}})
			}
		}
	}
}
