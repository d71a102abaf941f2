package fstools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

// Every file tool declares, before it runs, the paths it will touch and
// the exact bytes it will leave, and writes exactly those bytes.
func TestEffectsAreWhatIsWritten(t *testing.T) {
	tests := []struct {
		name, args string
		writes     []string
		reads      []string
		file       string // the file whose declared After must be on disk
	}{
		{"write_file", `{"filePath":"notes.md","content":"x\n"}`, []string{"notes.md"}, nil, "notes.md"},
		{"write_file", `{"path":"a.txt","content":"more\n","append":true}`, []string{"a.txt"}, nil, "a.txt"},
		{"create_file", `{"path":"new/b.txt","content":"b"}`, []string{"new/b.txt"}, nil, "new/b.txt"},
		{"edit_file", `{"path":"a.txt","old_string":"alpha","new_string":"beta"}`, []string{"a.txt"}, nil, "a.txt"},
		{"modify_lines", `{"path":"a.txt","operation":"insert","start_line":1,"content":"top"}`, []string{"a.txt"}, nil, "a.txt"},
		{"patch_file", `{"diff":"+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+gamma\n"}`, []string{"a.txt"}, nil, "a.txt"},
		{"move_file", `{"source":"a.txt","destination":"c.txt"}`, []string{"a.txt", "c.txt"}, nil, "c.txt"}, // a default alias of rename_file
		{"create_folder", `{"dir":"d"}`, []string{"d"}, nil, ""},
		{"read_file", `{"file":"a.txt"}`, nil, []string{"a.txt"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, root := newWS(t, map[string]string{"a.txt": "alpha\n"})
			var r tools.Registry
			require.NoError(t, r.Register(NewRead(ws), NewWrite(ws), NewCreate(ws), NewEdit(ws), NewModifyLines(ws), NewPatch(ws), NewRename(ws), NewFolder(ws)))
			call, err := r.Prepare(tools.Call{Name: tt.name, Arguments: json.RawMessage(tt.args)})
			require.NoError(t, err)
			eff, err := r.Effects(context.Background(), call)
			require.NoError(t, err)
			assert.True(t, eff.Declared)
			assert.Equal(t, tt.writes, eff.Writes)
			assert.Equal(t, tt.reads, eff.Reads)

			res := r.Execute(tools.WithApproved(context.Background(), eff), call)
			require.False(t, res.IsError, res.Text)
			if tt.file == "" {
				return
			}
			got, err := os.ReadFile(filepath.Join(root, tt.file))
			require.NoError(t, err)
			var want []byte
			for _, c := range eff.Changes {
				if c.Path == tt.file {
					want = c.After
				}
			}
			assert.Equal(t, string(want), string(got))
		})
	}
}

// A call approved for some bytes refuses to write others: the file
// changed between the preview and the write.
func TestApprovedWriteRefusedAfterChange(t *testing.T) {
	ws, root := newWS(t, map[string]string{"a.txt": "alpha\n"})
	var r tools.Registry
	require.NoError(t, r.Register(NewEdit(ws)))
	call, err := r.Prepare(tools.Call{Name: "edit_file", Arguments: json.RawMessage(`{"path":"a.txt","old_text":"alpha","new_text":"beta"}`)})
	require.NoError(t, err)
	eff, err := r.Effects(context.Background(), call)
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\nomega\n"), 0o644))
	res := r.Execute(tools.WithApproved(context.Background(), eff), call)
	require.True(t, res.IsError)
	assert.Contains(t, res.Text, "changed since the change was approved")
	got, _ := os.ReadFile(filepath.Join(root, "a.txt"))
	assert.Equal(t, "alpha\nomega\n", string(got))
}
