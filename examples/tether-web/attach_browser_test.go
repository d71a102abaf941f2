package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

// TestBrowserAttach drives the page in headless Chromium: a text file and
// an image picked with the file input, and a file dropped on the prompt
// form, show as chips (one removed again); the prompt carries the kept
// ones to a vision model, the text labelled with its name and the image
// as an image part. A file over the page's limit is refused before
// sending, with the limit said.
func TestBrowserAttach(t *testing.T) {
	ctx := newBrowser(t)
	model := llmtest.NewFakeOllama(llmtest.Script{Capabilities: &llm.Capabilities{Tools: true, Vision: true},
		Turns: []llmtest.Turn{{Content: "Seen both. [TASK_COMPLETE]"}}})
	defer model.Close()
	t.Setenv("OLLAMA_HOST", model.URL)
	ts := startServer(t, "", nil, func(o *options) { o.model = "ollama:fake" })
	dir := t.TempDir()
	notes, shot, big := filepath.Join(dir, "notes.md"), filepath.Join(dir, "shot.png"), filepath.Join(dir, "big.log")
	os.WriteFile(notes, []byte("# Plan\nship on friday\n"), 0o644)
	pic := pngBytes(t)
	os.WriteFile(shot, pic, 0o644)
	os.WriteFile(big, []byte(strings.Repeat("x", 300<<10)), 0o644)

	do(t, ctx, "open the start URL", chromedp.Navigate(ts.startURL()), visible(`body[data-session]`))
	do(t, ctx, "pick two files",
		chromedp.SetUploadFiles(chromedp.CSS(`#attach`), []string{notes, shot}),
		until(`document.querySelectorAll("#attachments .attachment").length === 2`))
	do(t, ctx, "drop a file on the form",
		chromedp.Evaluate[chromedp.Void](`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File(["dropped text\n"], "dropped.txt", {type: "text/plain"}));
			const form = document.getElementById("prompt-form");
			form.dispatchEvent(new DragEvent("dragover", {dataTransfer: dt, bubbles: true, cancelable: true}));
			form.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
		})()`),
		until(`document.querySelectorAll("#attachments .attachment").length === 3`))
	do(t, ctx, "remove the dropped file",
		click(`#attachments .attachment[data-name="dropped.txt"] .remove`),
		until(`document.querySelectorAll("#attachments .attachment").length === 2`))
	do(t, ctx, "a file over the limit is refused",
		chromedp.SetUploadFiles(chromedp.CSS(`#attach`), []string{big}),
		until(`document.body.innerText.includes("big.log is 300 KiB; a text file may be at most 256 KiB")`))
	if n := read(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#attachments .attachment").length`)); n != 2 {
		t.Errorf("%d chips after the refused file, want 2", n)
	}
	prompt(t, ctx, "What do these say?")
	do(t, ctx, "the answer", until(`document.body.innerText.includes("Seen both.")`))
	waitIdle(t, ctx, "turn done")
	if n := read(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#attachments .attachment").length`)); n != 0 {
		t.Errorf("%d chips left after sending, want none", n)
	}
	reqs := model.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	sent := string(reqs[0])
	for _, want := range []string{"notes.md", "ship on friday", `"images":["` + b64(pic) + `"]`, "What do these say?"} {
		if !strings.Contains(sent, want) {
			t.Errorf("the model's request lacks %q:\n%.2000s", want, sent)
		}
	}
	if strings.Contains(sent, "dropped text") {
		t.Error("the removed file was sent")
	}
}
