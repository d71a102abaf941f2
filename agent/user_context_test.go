package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
)

// TestFormatUserContextExactFormat pins the exact context string.
func TestFormatUserContextExactFormat(t *testing.T) {
	got := FormatUserContext([]Attachment{
		{Path: "search-node-master/src/ProcessSearch.ts", StartLine: 409, EndLine: 843, Content: "const x = 1;\n"},
		{Path: "config.ts", Content: "export default {}"},
	}, "User's actual question text here")
	want := "User's selected code from search-node-master/src/ProcessSearch.ts:L409-L843 (already provided — do not re-read):\n" +
		"```\nconst x = 1;\n```\n\n" +
		"Contents of config.ts (already provided — do not re-read):\n" +
		"```\nexport default {}\n```\n\n" +
		"User's actual question text here"
	require.Equal(t, want, got)
	require.Equal(t, "plain", FormatUserContext(nil, "plain"))

	// Code holding a fence gets a longer one, so it cannot close the block.
	got = FormatUserContext([]Attachment{{Path: "README.md", Content: "```go\nx\n```"}}, "q")
	require.Contains(t, got, "````\n```go\nx\n```\n````")
}

func TestParseAttachment(t *testing.T) {
	for _, tc := range []struct {
		ref  string
		want Attachment
		err  bool
	}{
		{ref: "src/a.go", want: Attachment{Path: "src/a.go"}},
		{ref: "src/a.go:L10-L50", want: Attachment{Path: "src/a.go", StartLine: 10, EndLine: 50}},
		{ref: "src/a.go:L7", want: Attachment{Path: "src/a.go", StartLine: 7, EndLine: 7}},
		{ref: "C:/x/a.go:L3-4", want: Attachment{Path: "C:/x/a.go", StartLine: 3, EndLine: 4}},
		{ref: "src/a.go:L50-L10", err: true},
		{ref: "src/a.go:L0", err: true},
		{ref: "a.go:L1-L99999999999999999999", err: true},
		{ref: "", err: true},
	} {
		got, err := ParseAttachment(tc.ref)
		if tc.err {
			require.ErrorIs(t, err, ErrAttachment, tc.ref)
			continue
		}
		require.NoError(t, err, tc.ref)
		require.Equal(t, tc.want, got, tc.ref)
		back, err := ParseAttachment(got.Name())
		require.NoError(t, err)
		require.Equal(t, got, back, "Name round-trips through ParseAttachment")
	}
}

func TestResolveMultiRootPath(t *testing.T) {
	root := t.TempDir()
	app := filepath.Join(root, "demo-project")
	lib := filepath.Join(root, "lib")
	for _, p := range []string{"demo-project/rss-fetch.ts", "demo-project/nested/demo-project/x.ts", "demo-project/nested/y.ts", "lib/util.ts"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, p), nil, 0o644))
	}
	// A real sub-directory named like the folder.
	require.NoError(t, os.MkdirAll(filepath.Join(app, "demo-project"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(app, "demo-project", "real.ts"), nil, 0o644))

	one := []Folder{{Name: "demo-project", Root: app}}
	two := []Folder{{Name: "demo-project", Root: app}, {Name: "lib", Root: lib}}
	for _, tc := range []struct {
		folders  []Folder
		in       string
		folder   string
		rel      string
		wantFail bool
	}{
		{one, "demo-project/rss-fetch.ts", "demo-project", "rss-fetch.ts", false},      // the editor's prefix is stripped
		{one, "rss-fetch.ts", "demo-project", "rss-fetch.ts", false},                   // a plain relative path
		{one, "demo-project/real.ts", "demo-project", "demo-project/real.ts", false},   // a real sub-directory is kept
		{one, "./nested/y.ts", "demo-project", "nested/y.ts", false},                   // cleaned
		{one, filepath.Join(app, "nested/y.ts"), "demo-project", "nested/y.ts", false}, // absolute inside
		{one, "/etc/passwd", "", "", true},                                             // absolute outside
		{two, "lib/util.ts", "lib", "util.ts", false},                                  // first segment names a folder
		{two, "util.ts", "lib", "util.ts", false},                                      // found in the second folder
		{two, "new.ts", "demo-project", "new.ts", false},                               // nowhere: the first folder
	} {
		f, rel, err := ResolveMultiRootPath(tc.folders, tc.in, nil)
		if tc.wantFail {
			require.ErrorIs(t, err, ErrNoFolder, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.folder, f.Name, tc.in)
		require.Equal(t, tc.rel, rel, tc.in)
	}
	_, _, err := ResolveMultiRootPath(nil, "a", nil)
	require.ErrorIs(t, err, ErrNoFolder)
}

// TestAttachmentsInRun: the executor reads a selection and a whole file
// through the workspace (a folder-name prefix is stripped) and puts them
// before the prompt with their labels; a secret file is refused.
func TestAttachmentsInRun(t *testing.T) {
	e := newEnv(t, `{"content":"It returns 2. [TASK_COMPLETE]"}`, map[string]string{"calc.go": "package calc\n\nfunc Two() int {\n\treturn 2\n}\n", "notes.txt": "hello\n"})
	prefix := filepath.Base(e.dir)
	x, err := New(e.config())
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "What does Two return?", Context: []Attachment{
		{Path: prefix + "/calc.go", StartLine: 3, EndLine: 5},
		{Path: "notes.txt"},
	}})
	require.NoError(t, err)
	user := e.model.Requests()[0].Messages[1].Content
	require.Equal(t, "User's selected code from "+prefix+"/calc.go:L3-L5 (already provided — do not re-read):\n```\nfunc Two() int {\n\treturn 2\n}\n```\n\n"+
		"Contents of notes.txt (already provided — do not re-read):\n```\nhello\n```\n\nWhat does Two return?", user)
	require.Equal(t, user, res.History[0].Content, "the history keeps what the model saw")
	require.Equal(t, "What does Two return?", eventsOf[event.RunStarted](e.rec)[0].Prompt, "UIs show the user's own words")

	for _, bad := range []Attachment{
		{Path: "calc.go", StartLine: 40, EndLine: 41},
		{Path: "missing.go"},
		{Path: "../outside.go"},
		{Path: "calc.go", StartLine: 5, EndLine: 2},
	} {
		_, err := x.Run(context.Background(), Input{Prompt: "q", Context: []Attachment{bad}})
		require.ErrorIs(t, err, ErrAttachment, "%+v", bad)
	}
	var ae error = ErrAttachment
	require.False(t, errors.Is(ae, ErrConfig))
}
