package webtools

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHTMLToMarkdown feeds arbitrary bytes to the HTML path: it must not
// panic, must return valid UTF-8, and never lets a script's text through.
func FuzzHTMLToMarkdown(f *testing.F) {
	f.Add([]byte(articleHTML))
	f.Add([]byte("<p>a<script>SCRIPTX</script>b</p>"))
	f.Add([]byte("<title>\xff\xfe</title><main><main>x</main></main>"))
	f.Add([]byte("<table><tr><td><a href='javascript:alert(1)'>x</a></td></tr></table>"))
	base, _ := url.Parse("https://example.com/dir/page")
	f.Fuzz(func(t *testing.T, body []byte) {
		title, md, err := HTMLToMarkdown(context.Background(), body, base)
		if err != nil {
			return
		}
		if !utf8.ValidString(title) || !utf8.ValidString(md) {
			t.Fatalf("invalid UTF-8: title %q md %q", title, md)
		}
		if strings.Contains(string(body), "<script>SCRIPTX</script>") && !strings.Contains(string(body), "SCRIPTX<") && strings.Count(string(body), "SCRIPTX") == 1 && strings.Contains(md, "SCRIPTX") {
			t.Fatalf("script text leaked: %q", md)
		}
	})
}
