package mcp

import (
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
	uris := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("%w: server %q: root %q: use an absolute directory path", ErrConfig, c.cfg.Name, d)
		}
		u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Clean(d))}).String()
		roots = append(roots, &sdk.Root{URI: u, Name: filepath.Base(d)})
		uris = append(uris, u)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Equal(c.roots, uris) {
		return nil
	}
	// Add before removing, so the server never sees an empty list in
	// between; AddRoots replaces roots with the same URI.
	c.client.AddRoots(roots...)
	var gone []string
	for _, u := range c.roots {
		if !slices.Contains(uris, u) {
			gone = append(gone, u)
		}
	}
	if len(gone) > 0 {
		c.client.RemoveRoots(gone...)
	}
	c.roots = uris
	return nil
}

// Roots returns the URIs currently offered as roots.
func (c *Client) Roots() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.roots)
}
