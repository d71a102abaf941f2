package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetRoots replaces the directories offered to the server as roots
// (file:// URIs) and, when they changed, tells the server so that it asks
// again. Servers such as the reference filesystem server started without
// a directory allow exactly these. Paths must be absolute.
func (c *Client) SetRoots(dirs ...string) error {
	roots := make([]*sdk.Root, 0, len(dirs))
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("%w: server %q: root %q: use an absolute directory path", ErrConfig, c.cfg.Name, d)
		}
		u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Clean(d))}).String()
		roots = append(roots, &sdk.Root{URI: u, Name: filepath.Base(d)})
	}
	uris := rootURIs(roots)
	c.mu.Lock()
	old := rootURIs(c.roots)
	if slices.Equal(old, uris) {
		c.mu.Unlock()
		return nil
	}
	c.roots = roots
	c.mu.Unlock()
	// The server is answered from c.roots (answerRoots), which is
	// already the whole new list: the SDK's own add and remove below only
	// send the list-changed notifications, and every roots/list they
	// prompt gets the same final answer. Servers that handle those
	// notifications concurrently (the reference filesystem server does)
	// would otherwise apply an intermediate list last.
	c.client.AddRoots(roots...)
	var gone []string
	for _, u := range old {
		if !slices.Contains(uris, u) {
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		c.client.RemoveRoots(gone...)
	}
	return nil
}

// answerRoots answers the server's roots/list with the client's current
// list, so that the answer never lags a SetRoots in progress.
func (c *Client) answerRoots(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "roots/list" {
			return next(ctx, method, req)
		}
		defer c.rootsAt.markAsked()
		c.mu.Lock()
		defer c.mu.Unlock()
		roots := slices.Clone(c.roots)
		if roots == nil {
			roots = []*sdk.Root{} // an empty list, not null
		}
		return &sdk.ListRootsResult{Roots: roots}, nil
	}
}

// Roots returns the URIs currently offered as roots.
func (c *Client) Roots() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return rootURIs(c.roots)
}

func rootURIs(roots []*sdk.Root) []string {
	uris := make([]string, len(roots))
	for i, r := range roots {
		uris[i] = r.URI
	}
	return uris
}
