package webtools

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkHTMLToMarkdown converts a 200-section article page (~100 KB)
// with navigation, scripts and links.
func BenchmarkHTMLToMarkdown(b *testing.B) {
	var page strings.Builder
	page.WriteString("<html><head><title>Bench</title><script>var x=1;</script></head><body><nav><a href='/'>Home</a></nav><main>")
	for i := range 200 {
		fmt.Fprintf(&page, "<h2>Section %d</h2><p>Some <b>bold</b> text with a <a href='/p/%d'>link</a> and <code>code</code>.</p><ul><li>one</li><li>two</li></ul>", i, i)
	}
	page.WriteString("</main><footer>f</footer></body></html>")
	body := []byte(page.String())
	base, _ := url.Parse("https://example.com/docs/")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := HTMLToMarkdown(context.Background(), body, base); err != nil {
			b.Fatal(err)
		}
	}
}
