package lsp

import (
	"context"
	"encoding/json"
	"time"
)

func posParams(path string, pos Position) textDocumentPositionParams {
	return textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: URI(path)}, Position: pos}
}

func (c *Client) locations(ctx context.Context, method string, params any) ([]Location, error) {
	var raw json.RawMessage
	if err := c.conn.call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	return decodeLocations(raw)
}

// Definition returns where the symbol at pos in the file at path is
// defined. The file must have been Synced.
func (c *Client) Definition(ctx context.Context, path string, pos Position) ([]Location, error) {
	return c.locations(ctx, "textDocument/definition", posParams(path, pos))
}

// Implementation returns the implementations of the interface, type or
// method at pos.
func (c *Client) Implementation(ctx context.Context, path string, pos Position) ([]Location, error) {
	return c.locations(ctx, "textDocument/implementation", posParams(path, pos))
}

// References returns every use of the symbol at pos, with its
// declaration when includeDecl is set.
func (c *Client) References(ctx context.Context, path string, pos Position, includeDecl bool) ([]Location, error) {
	params := struct {
		textDocumentPositionParams
		Context struct {
			IncludeDeclaration bool `json:"includeDeclaration"`
		} `json:"context"`
	}{textDocumentPositionParams: posParams(path, pos)}
	params.Context.IncludeDeclaration = includeDecl
	return c.locations(ctx, "textDocument/references", params)
}

// DocumentSymbols returns the file's outline. Servers that answer with
// flat SymbolInformation get it converted to a flat outline.
func (c *Client) DocumentSymbols(ctx context.Context, path string) ([]DocumentSymbol, error) {
	var raw []json.RawMessage
	params := map[string]any{"textDocument": textDocumentIdentifier{URI: URI(path)}}
	if err := c.conn.call(ctx, "textDocument/documentSymbol", params, &raw); err != nil {
		return nil, err
	}
	out := make([]DocumentSymbol, 0, len(raw))
	for _, r := range raw {
		var probe struct {
			Location *Location `json:"location"`
		}
		_ = json.Unmarshal(r, &probe)
		if probe.Location != nil {
			var si SymbolInformation
			if err := json.Unmarshal(r, &si); err != nil {
				return nil, err
			}
			out = append(out, DocumentSymbol{Name: si.Name, Kind: si.Kind, Detail: si.ContainerName,
				Range: si.Location.Range, SelectionRange: si.Location.Range})
			continue
		}
		var ds DocumentSymbol
		if err := json.Unmarshal(r, &ds); err != nil {
			return nil, err
		}
		out = append(out, ds)
	}
	return out, nil
}

// WorkspaceSymbols searches the server's index for symbols matching query.
// A result whose location has no range (LSP 3.17 WorkspaceSymbol) gets
// the zero range.
func (c *Client) WorkspaceSymbols(ctx context.Context, query string) ([]SymbolInformation, error) {
	var raw []struct {
		Name          string     `json:"name"`
		Kind          SymbolKind `json:"kind"`
		ContainerName string     `json:"containerName"`
		Location      struct {
			URI   string `json:"uri"`
			Range *Range `json:"range"`
		} `json:"location"`
	}
	if err := c.conn.call(ctx, "workspace/symbol", map[string]any{"query": query}, &raw); err != nil {
		return nil, err
	}
	out := make([]SymbolInformation, len(raw))
	for i, r := range raw {
		out[i] = SymbolInformation{Name: r.Name, Kind: r.Kind, ContainerName: r.ContainerName, Location: Location{URI: r.Location.URI}}
		if r.Location.Range != nil {
			out[i].Location.Range = *r.Location.Range
		}
	}
	return out, nil
}

// Hover returns the hover text at pos, or nil when there is none.
func (c *Client) Hover(ctx context.Context, path string, pos Position) (*Hover, error) {
	var h *Hover
	if err := c.conn.call(ctx, "textDocument/hover", posParams(path, pos), &h); err != nil {
		return nil, err
	}
	return h, nil
}

// PrepareCallHierarchy returns the callable items at pos.
func (c *Client) PrepareCallHierarchy(ctx context.Context, path string, pos Position) ([]CallHierarchyItem, error) {
	var items []CallHierarchyItem
	err := c.conn.call(ctx, "textDocument/prepareCallHierarchy", posParams(path, pos), &items)
	return items, err
}

// IncomingCalls returns who calls item.
func (c *Client) IncomingCalls(ctx context.Context, item CallHierarchyItem) ([]CallHierarchyIncomingCall, error) {
	var calls []CallHierarchyIncomingCall
	err := c.conn.call(ctx, "callHierarchy/incomingCalls", map[string]any{"item": item}, &calls)
	return calls, err
}

// OutgoingCalls returns what item calls.
func (c *Client) OutgoingCalls(ctx context.Context, item CallHierarchyItem) ([]CallHierarchyOutgoingCall, error) {
	var calls []CallHierarchyOutgoingCall
	err := c.conn.call(ctx, "callHierarchy/outgoingCalls", map[string]any{"item": item}, &calls)
	return calls, err
}

// PrepareTypeHierarchy returns the type items at pos.
func (c *Client) PrepareTypeHierarchy(ctx context.Context, path string, pos Position) ([]TypeHierarchyItem, error) {
	var items []TypeHierarchyItem
	err := c.conn.call(ctx, "textDocument/prepareTypeHierarchy", posParams(path, pos), &items)
	return items, err
}

// Supertypes returns the types item extends or implements.
func (c *Client) Supertypes(ctx context.Context, item TypeHierarchyItem) ([]TypeHierarchyItem, error) {
	var items []TypeHierarchyItem
	err := c.conn.call(ctx, "typeHierarchy/supertypes", map[string]any{"item": item}, &items)
	return items, err
}

// Subtypes returns the types that extend or implement item.
func (c *Client) Subtypes(ctx context.Context, item TypeHierarchyItem) ([]TypeHierarchyItem, error) {
	var items []TypeHierarchyItem
	err := c.conn.call(ctx, "typeHierarchy/subtypes", map[string]any{"item": item}, &items)
	return items, err
}

// DiagnosticsSettle is how long Diagnostics waits for a further publish
// after the first one for the current version (servers often publish
// syntax errors first and type errors a moment later).
const DiagnosticsSettle = 400 * time.Millisecond

// Diagnostics returns the problems the server reports for the file at
// path, which must have been Synced. It waits until the server has
// published diagnostics for the current version of the document, then a
// short settle time for a follow-up publish, or until ctx is done (then
// it returns what it has, with ctx's error).
func (c *Client) Diagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	uri := URI(path)
	c.docMu.Lock()
	version := 0
	if d := c.docs[uri]; d != nil {
		version = d.version
	}
	c.docMu.Unlock()
	var settle <-chan time.Time
	seenGen := -1
	for {
		c.diagMu.Lock()
		st := c.diags[uri]
		sig := c.diagSig
		var items []Diagnostic
		fresh := false
		gen := 0
		if st != nil {
			items = append(items, st.items...)
			gen = st.gen
			fresh = st.version == version || st.version == -1
		}
		c.diagMu.Unlock()
		if fresh && gen != seenGen {
			seenGen = gen
			settle = time.After(DiagnosticsSettle)
		}
		select {
		case <-sig:
		case <-settle:
			return items, nil
		case <-ctx.Done():
			return items, context.Cause(ctx)
		case <-c.conn.done:
			return items, c.conn.closedErr()
		}
	}
}
