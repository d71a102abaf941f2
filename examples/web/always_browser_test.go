package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tetherdev/tether/settings"
)

// TestBrowserAlwaysAllow: a rule the coder saved with "always allow"
// (settings.SaveRule, what its card does) applies in web, so that command
// runs without a card; "Always allow" on the page saves another rule to
// .tether/settings.json.
func TestBrowserAlwaysAllow(t *testing.T) {
	ctx := newBrowser(t)
	env := settings.Env{ConfigDir: t.TempDir()}
	script := `{"capabilities":{"tools":true}}
{"content":"Stamping.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch stamp.txt"}}]}
{"content":"Again.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch other.txt"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	ts := startServer(t, script, nil, func(o *options) {
		if err := env.SaveRule(o.workspace, "allow", "touch stamp.txt"); err != nil {
			t.Fatal(err)
		}
		l, err := env.Load(o.workspace)
		if err != nil {
			t.Fatal(err)
		}
		o.set = l.Settings
	})
	do(t, ctx, "open the page", chromedp.Navigate(ts.startURL()), visible(`body[data-session]`))
	prompt(t, ctx, "stamp it")
	pendingCard(t, ctx, "touch other.txt")
	if _, err := os.Stat(filepath.Join(ts.dir, "stamp.txt")); err != nil {
		t.Errorf("the rule saved by the coder did not apply in web: %v", err)
	}
	do(t, ctx, "always allow", visible(`.card:not([data-resolved]) .allow-always`), click(`.card:not([data-resolved]) .allow-always`))
	waitIdle(t, ctx, "the turn ends")
	saved, err := os.ReadFile(filepath.Join(ts.dir, ".tether", "settings.json"))
	if err != nil || !strings.Contains(string(saved), `"touch other.txt"`) || !strings.Contains(string(saved), `"touch stamp.txt"`) {
		t.Errorf(".tether/settings.json = %s, %v", saved, err)
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "other.txt")); err != nil {
		t.Errorf("the always-allowed command did not run: %v", err)
	}
	if n := read(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".card").length`)); n != 1 {
		t.Errorf("%d approval cards, want 1 (the saved rule's command needs none)", n)
	}
}
