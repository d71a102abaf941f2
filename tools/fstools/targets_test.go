package fstools

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

func TestTargets(t *testing.T) {
	ws, _ := newWS(t, nil)
	var r tools.Registry
	require.NoError(t, r.Register(NewRead(ws), NewWrite(ws), NewRename(ws), NewPatch(ws)))
	tests := []struct {
		name, args string
		want       []string
	}{
		{"write_file", `{"filePath":".env","content":"x"}`, []string{".env"}},
		{"move_file", `{"source":"a","destination":"b"}`, []string{"a", "b"}}, // a default alias of rename_file
		{"rename_file", `{"source":"a","destination":"b"}`, []string{"a", "b"}},
		{"patch_file", `{"diff":"+++ b/src/x.go\n@@ -1 +1 @@\n-a\n+b\n"}`, []string{"src/x.go"}},
		{"read_file", `{"path":"a"}`, nil},
	}
	for _, tt := range tests {
		call, err := r.Prepare(tools.Call{Name: tt.name, Arguments: json.RawMessage(tt.args)})
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, Targets(call), tt.name)
	}
}
