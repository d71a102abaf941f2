package webtools

import (
	"bytes"
	"context"
	"net/url"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// clutter are elements that carry no readable content for a model:
// scripts and styles, site navigation, forms and embedded frames.
var clutter = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Form: true,
	atom.Iframe: true, atom.Svg: true, atom.Button: true, atom.Select: true,
	atom.Input: true, atom.Textarea: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Dialog: true,
}

// clutterRoles are ARIA roles of navigation-like regions.
var clutterRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "search": true, "complementary": true}

var blankLines = lazyregexp.New(`\n{3,}`)

// HTMLToMarkdown returns the page's title and its readable content as
// Markdown: clutter removed, the <main> (or sole <article>) element alone
// when the page marks one, links made absolute against base.
func HTMLToMarkdown(ctx context.Context, body []byte, base *url.URL) (title, markdown string, err error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	title = findTitle(doc)
	strip(doc)
	root := doc
	if m := findContent(doc); m != nil {
		root = m
	}
	opts := []converter.ConvertOptionFunc{converter.WithContext(ctx)}
	if base != nil {
		opts = append(opts, converter.WithDomain(base.String()))
	}
	md, err := htmltomarkdown.ConvertNode(root, opts...)
	if err != nil {
		return "", "", err
	}
	out := strings.ToValidUTF8(string(md), "\uFFFD")
	out = blankLines.ReplaceAllString(strings.TrimSpace(out), "\n\n")
	return title, out, nil
}

// strip removes clutter elements and hidden ones from n's subtree.
func strip(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.CommentNode || (c.Type == html.ElementNode && isClutter(c)) {
			n.RemoveChild(c)
		} else {
			strip(c)
		}
		c = next
	}
}

func isClutter(n *html.Node) bool {
	if clutter[n.DataAtom] {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "role":
			if clutterRoles[strings.ToLower(a.Val)] {
				return true
			}
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		}
	}
	return false
}

// findContent returns the page's single <main>, else its single
// <article>, else nil (the whole document is used).
func findContent(doc *html.Node) *html.Node {
	for _, a := range []atom.Atom{atom.Main, atom.Article} {
		var found []*html.Node
		walk(doc, func(n *html.Node) bool {
			if n.Type == html.ElementNode && n.DataAtom == a {
				found = append(found, n)
				return false
			}
			return true
		})
		if len(found) == 1 {
			return found[0]
		}
	}
	return nil
}

// findTitle returns <title>, else og:title, else the first <h1>.
func findTitle(doc *html.Node) string {
	var title, og, h1 string
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Title:
			if title == "" {
				title = textOf(n)
			}
			return false
		case atom.Meta:
			if attr(n, "property") == "og:title" && og == "" {
				og = attr(n, "content")
			}
		case atom.H1:
			if h1 == "" {
				h1 = textOf(n)
			}
			return false
		case atom.Script, atom.Style:
			return false
		}
		return true
	})
	for _, t := range []string{title, og, h1} {
		if t = strings.Join(strings.Fields(t), " "); t != "" {
			return strings.ToValidUTF8(t, "\uFFFD")
		}
	}
	return ""
}

// walk visits n's subtree depth-first; visit returns false to skip a
// node's children.
func walk(n *html.Node, visit func(*html.Node) bool) {
	if !visit(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
