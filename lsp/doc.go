// Package lsp is a small Language Server Protocol client: enough of LSP
// 3.17 to give an agent code intelligence from a real language server,
// without an editor.
//
// A Manager starts the right server for a file on first use (gopls for
// Go; typescript-language-server, pyright-langserver or pylsp, and
// rust-analyzer when installed; see DefaultServers) in the workspace root,
// one process per server, and Close shuts them all down:
//
//	m := &lsp.Manager{Root: ws.Root()}
//	defer m.Close(ctx)
//	c, err := m.ClientFor(ctx, "/abs/path/main.go") // errors.Is(err, lsp.ErrNoServer) when none is installed
//	c.Sync(ctx, path, text)                         // didOpen, then didChange when the text changed
//	locs, err := c.Definition(ctx, path, lsp.Position{Line: 16, Character: 44})
//
// Client covers definition, implementation, references, document and
// workspace symbols, hover, call and type hierarchies, and pushed
// diagnostics (Diagnostics waits for the server to analyse the current
// version of a document). Positions are zero-based with UTF-16 columns,
// as the protocol defines them; UTF16Col and ByteCol convert.
//
// # Life cycle
//
// Start launches the server in its own process group, sends initialize
// and initialized, and answers what servers ask of a client
// (workspace/configuration, capability registration, progress tokens).
// It never applies edits a server proposes: changes go through Tether's
// file tools and their approvals. Close sends shutdown and exit, waits
// for the process (killing its group after ShutdownTimeout), and returns
// only when the process is reaped and the reader goroutine has stopped.
//
// # Why not a JSON-RPC library
//
// The wire format is a Content-Length header and a JSON body; the client
// needs requests, notifications, cancellation and answers to a handful of
// server requests. go.lsp.dev/jsonrpc2 and go.lsp.dev/protocol have not
// been released since 2022 and lack LSP 3.17's type hierarchy, and
// golang.org/x/exp/jsonrpc2 is an unversioned experiment, so the framed
// client in this package (about 250 lines) is auditable and has no
// dependency.
package lsp
