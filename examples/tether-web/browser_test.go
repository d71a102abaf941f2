package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write the browser test's changes view to screenshot.png (README)")

// chromium finds Debian's chromium (or another Chrome) or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("needs a headless Chromium: sudo apt-get install -y chromium")
	return ""
}

// newBrowser starts a headless Chromium tab. Uncaught script errors in
// the page (a CSP violation of its own code shows up as one) are
// collected and fail the test at the end.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.WindowSize(1400, 900),
		chromedp.DisableGPU,
		// As root (CI containers) Chromium refuses to start sandboxed.
		chromedp.Flag("no-sandbox", os.Geteuid() == 0),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	var mu sync.Mutex
	var pageErrors []string
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		mu.Lock()
		defer mu.Unlock()
		for _, e := range pageErrors {
			t.Errorf("page script error: %s", e)
		}
	})
	// The first call starts the browser, which lives as long as its
	// context: no timeout on that one.
	if err := chromedp.Listen(tab, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			d := e.ExceptionDetails
			msg := fmt.Sprintf("%s at %s:%d", d.Text, d.URL, d.LineNumber+1)
			if d.Exception != nil {
				msg += ": " + d.Exception.Description
			}
			pageErrors = append(pageErrors, msg)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// do runs browser actions, failing the test with what was being done.
func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("%s: %v\npage text:\n%s", what, err, page)
	}
}

// read runs one browser action that returns a value.
func read[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return read(t, ctx, chromedp.Text(chromedp.CSS(sel)))
}

func visible(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(sel))
}
func click(sel string) chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS(sel)) }
func until(js string) chromedp.Action[chromedp.Void] {
	// By interval: requestAnimationFrame, the default, barely runs in a
	// headless tab.
	return chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(20*time.Millisecond))
}

// screenshot saves the page under dir and returns it.
func screenshot(t *testing.T, ctx context.Context, dir, name string) []byte {
	t.Helper()
	png := read(t, ctx, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	return png
}

// prompt types a prompt and sends it.
func prompt(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	turns := read(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".turn .user").length`))
	do(t, ctx, "prompt "+text,
		visible(`#send:not([disabled])`),
		chromedp.SetValue(chromedp.CSS(`#prompt`), text),
		click(`#send`),
		until(`document.querySelectorAll(".turn .user").length === `+strconv.Itoa(turns+1)),
	)
}

// pendingCard waits until exactly one approval card is unanswered, with
// this subject and its buttons visible, so that the `.card:not([data-resolved])`
// selectors that follow act on it and on no earlier card.
func pendingCard(t *testing.T, ctx context.Context, subject string) {
	t.Helper()
	want, _ := json.Marshal(subject)
	do(t, ctx, "the one pending approval card is "+string(want),
		until(`(() => { const c = document.querySelectorAll(".card:not([data-resolved])");
			return c.length === 1 && c[0].querySelector(".subject")?.textContent === `+string(want)+`; })()`),
		visible(`.card:not([data-resolved]) .allow-once`),
		visible(`.card:not([data-resolved]) .deny`),
	)
}

func waitIdle(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	do(t, ctx, what, visible(`body[data-running="no"]`))
}

// TestBrowserSession drives the page in a real headless Chromium through
// a scripted session: a streamed answer, one command approved and one
// refused, one hunk rejected and one accepted, a checkpoint undone and a
// long command stopped, checking the workspace on disk after each.
func TestBrowserSession(t *testing.T) {
	ctx := newBrowser(t)
	script, err := os.ReadFile("testdata/browser.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var notes strings.Builder
	for i := 1; i <= 20; i++ {
		notes.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	ts := startServer(t, string(script), map[string]string{"notes.txt": notes.String()})
	shots := t.TempDir()
	t.Logf("screenshots in %s", shots)

	do(t, ctx, "open the start URL", chromedp.Navigate(ts.startURL()), visible(`body[data-session]`))
	href := read(t, ctx, chromedp.Location())
	if strings.Contains(href, "token") {
		t.Errorf("the token stayed in the address bar: %s", href)
	}

	// Turn 1: streamed text, then a command to approve.
	prompt(t, ctx, "Run the checks and tidy notes.txt")
	pendingCard(t, ctx, "echo approved > approved.txt")
	do(t, ctx, "streamed text", until(`document.querySelector(".turn .text strong")?.textContent === "world"`))
	greeting, thinking := text(t, ctx, `.turn .text`), text(t, ctx, `details.thinking summary`)
	if !strings.Contains(greeting, "Hello world, I will run the checks first.") {
		t.Errorf("streamed text %q", greeting)
	}
	if !strings.HasPrefix(thinking, "Thought for") {
		t.Errorf("thinking summary %q: want it collapsed as \"Thought for …\"", thinking)
	}
	screenshot(t, ctx, shots, "1-approval.png")
	do(t, ctx, "allow once", click(`.card:not([data-resolved]) .allow-once`))

	// The second command is refused with a message for the model. The
	// first card is marked resolved when the server says so, which can
	// come after the second card appears: wait for both.
	pendingCard(t, ctx, "touch refused.txt")
	do(t, ctx, "refuse with a message",
		chromedp.SendKeys(chromedp.CSS(`.card:not([data-resolved]) .deny-message`), "not now"),
		click(`.card:not([data-resolved]) .deny`),
	)
	waitIdle(t, ctx, "turn 1 finishes")
	if _, err := os.Stat(filepath.Join(ts.dir, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "refused.txt")); err == nil {
		t.Error("the refused command ran")
	}

	// Model output with markup renders as text and runs nothing.
	do(t, ctx, "the answer's code block is highlighted", visible(`.turn pre code .t-kw`))
	xss := read(t, ctx, chromedp.Evaluate[bool](`window.__xss !== undefined`))
	injected := read(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#transcript script, #transcript img, #transcript [onerror]").length`))
	transcript := text(t, ctx, `#transcript`)
	if xss || injected != 0 {
		t.Errorf("model markup became live: __xss set %v, %d injected elements", xss, injected)
	}
	for _, want := range []string{`<script>window.__xss=1</script>`, `<img src=x onerror="window.__xss=2">`} {
		if !strings.Contains(transcript, want) {
			t.Errorf("transcript lacks the literal text %s:\n%s", want, transcript)
		}
	}

	// Changes: reject the first hunk of notes.txt, accept the second.
	hunks := `.checkpoint .file[data-path="notes.txt"] .hunk`
	do(t, ctx, "changes view shows two hunks",
		visible(hunks+` .reject`),
		until(`document.querySelectorAll('`+hunks+`').length === 2`),
	)
	png := screenshot(t, ctx, shots, "2-changes.png")
	if *updateScreenshot {
		if err := os.WriteFile("screenshot.png", png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	do(t, ctx, "reject the first hunk, accept the other",
		click(hunks+` .reject`),
		until(`document.querySelectorAll('`+hunks+`').length === 1`),
		click(hunks+` .accept`),
		until(`document.querySelectorAll('`+hunks+`').length === 0`),
		// The checkpoint stays open, and says how far its review has come.
		until(`/^(kept|decided|partly decided)/.test(document.querySelector('.checkpoint .head .state')?.textContent || "")`),
	)
	got, err := os.ReadFile(filepath.Join(ts.dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(notes.String(), "line 20\n", "line twenty\n", 1)
	if string(got) != want {
		t.Errorf("notes.txt after reject+accept:\n%s\nwant the first change rejected and the last kept:\n%s", got, want)
	}

	// Turn 2 writes CHANGES.md; undo its checkpoint.
	prompt(t, ctx, "Add a changelog")
	waitIdle(t, ctx, "turn 2 finishes")
	do(t, ctx, "undo the newest checkpoint",
		visible(`.checkpoint:first-child .file[data-path="CHANGES.md"]`),
		click(`.checkpoint:first-child .head .undo`),
		visible(`.checkpoint:first-child[data-state="undone"]`),
	)
	if _, err := os.Stat(filepath.Join(ts.dir, "CHANGES.md")); !os.IsNotExist(err) {
		t.Errorf("CHANGES.md after undo: %v, want it gone", err)
	}

	// Turn 3 runs a long command; Stop kills it.
	prompt(t, ctx, "Run the slow job")
	do(t, ctx, "the command runs with live output",
		visible(`.action[data-status="running"]`),
		until(`document.querySelector('.action[data-status="running"] pre.live')?.textContent.includes("slow job started")`),
	)
	waitFor(t, "sleep to start", func() bool { return processRunning("37.5") })
	screenshot(t, ctx, shots, "3-running.png")
	do(t, ctx, "stop", click(`#stop`))
	waitIdle(t, ctx, "turn 3 stops")
	waitFor(t, "sleep to be killed", func() bool { return !processRunning("37.5") })
	usage := text(t, ctx, `#usage`)
	if usage == "Tokens: 0 in · 0 out" {
		t.Errorf("usage not counted: %q", usage)
	}
	screenshot(t, ctx, shots, "4-stopped.png")

	// A reload replays the session: the same turns and usage, idle.
	do(t, ctx, "reload", chromedp.Reload(), visible(`body[data-replayed="yes"][data-running="no"]`))
	if n := read(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".turn .user").length`)); n != 3 {
		t.Errorf("%d turns after reload, want 3", n)
	}
	if again := text(t, ctx, `#usage`); again != usage {
		t.Errorf("usage after reload %q, want %q", again, usage)
	}
}

// processRunning reports whether a sleep with this argument is alive.
func processRunning(arg string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Equal(b, []byte("sleep\x00"+arg+"\x00")) {
			return true
		}
	}
	return false
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBrowserMarkdown renders model text with the page's own Markdown
// module in Chromium and compares the DOM it builds: markup from the
// model is text, only http(s) links are links, code is highlighted.
func TestBrowserMarkdown(t *testing.T) {
	ctx := newBrowser(t)
	ts := startServer(t, `{"capabilities":{"tools":true}}`+"\n", nil)
	do(t, ctx, "open the page", chromedp.Navigate(ts.startURL()), visible(`body[data-session]`))
	tests := []struct {
		name, in, want string
	}{
		{"script tag", `<script>window.__xss=1</script>`, `<p>&lt;script&gt;window.__xss=1&lt;/script&gt;</p>`},
		{"event handler", `<img src=x onerror="window.__xss=2">`, `<p>&lt;img src=x onerror="window.__xss=2"&gt;</p>`},
		{"markup inside bold", `**<b onclick=x>hi</b>**`, `<p><strong>&lt;b onclick=x&gt;hi&lt;/b&gt;</strong></p>`},
		{"inline", "**bold**, *em* and `a<b>`", `<p><strong>bold</strong>, <em>em</em> and <code>a&lt;b&gt;</code></p>`},
		{"intraword underscores", `snake__case__name`, `<p>snake__case__name</p>`},
		{"http link", `[docs](https://go.dev/doc)`, `<a href="https://go.dev/doc" rel="noopener noreferrer" target="_blank">docs</a>`},
		{"javascript link", `[x](javascript:alert(1))`, `<p>[x](javascript:alert(1))</p>`},
		{"list", "- a\n- b\n\n1. c", `<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>`},
		{"heading", "## Plan", `<h4>Plan</h4>`},
		{"go code", "```go\nfunc f() {} // <x>\n```", `<pre><code data-lang="go"><span class="t-kw">func</span> <span class="t-fn">f</span>() {} <span class="t-com">// &lt;x&gt;</span></code></pre>`},
		{"diff", "```diff\n-a\n+b\n```", `<pre><code data-lang="diff"><span class="d-del">-a` + "\n" + `</span><span class="d-add">+b` + "\n" + `</span></code></pre>`},
		{"unclosed fence while streaming", "```sh\necho \"<hi>\"", `<pre><code data-lang="sh"><span class="t-kw">echo</span> <span class="t-str">"&lt;hi&gt;"</span></code></pre>`},
	}
	for _, tt := range tests {
		in, _ := json.Marshal(tt.in)
		js := `import("/markdown.js").then((m) => { const d = document.createElement("div"); d.append(m.renderMarkdown(` + string(in) + `)); return d.innerHTML; })`
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q renders\n%s\nwant it to contain\n%s", tt.name, tt.in, got, tt.want)
		}
	}
	if xss := read(t, ctx, chromedp.Evaluate[bool](`window.__xss !== undefined`)); xss {
		t.Error("rendering ran model script")
	}
}
