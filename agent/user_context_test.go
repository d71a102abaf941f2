package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/safety"
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

// TestAttachmentsMultiRoot: attachments in a multi-root workspace are read
// from the folder their path names, the primary's own name is dropped, and
// a path that leaves its folder is refused, not read from another root.
func TestAttachmentsMultiRoot(t *testing.T) {
	base := t.TempDir()
	app, lib := filepath.Join(base, "demo-project"), filepath.Join(base, "lib")
	for p, content := range map[string]string{
		"demo-project/rss-fetch.ts": "fetch\n", "demo-project/.env": "SECRET=1\n", "lib/util.ts": "a\nb\nc\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(base, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(base, p), []byte(content), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(app, ".env"), filepath.Join(lib, "env-link")))
	ws, err := safety.OpenWorkspace(app, safety.WithFolder("lib", lib))
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })

	for _, tc := range []struct {
		att  Attachment
		want string // "" means refused
	}{
		{Attachment{Path: "demo-project/rss-fetch.ts"}, "fetch\n"},
		{Attachment{Path: "rss-fetch.ts"}, "fetch\n"},
		{Attachment{Path: "lib/util.ts", StartLine: 2, EndLine: 3}, "b\nc\n"},
		{Attachment{Path: filepath.Join(lib, "util.ts")}, "a\nb\nc\n"},
		{Attachment{Path: "lib/../demo-project/.env"}, ""},
		{Attachment{Path: "lib/../../demo-project/rss-fetch.ts"}, ""},
		{Attachment{Path: "lib/env-link"}, ""},
	} {
		got, err := loadAttachments(ws, []Attachment{tc.att})
		if tc.want == "" {
			require.ErrorIs(t, err, ErrAttachment, tc.att.Path)
			continue
		}
		require.NoError(t, err, tc.att.Path)
		require.Equal(t, tc.want, got[0].Content, tc.att.Path)
	}
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
