package fstools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModifyLines(t *testing.T) {
	const src = "1\n2\n3\n4\n"
	tests := []struct {
		name, file, args, want, err string
	}{
		{name: "insert", args: `{"path":"f","operation":"insert","start_line":2,"content":"a\nb"}`, want: "1\na\nb\n2\n3\n4\n"},
		{name: "append", args: `{"path":"f","operation":"insert","start_line":5,"content":"5"}`, want: "1\n2\n3\n4\n5\n"},
		{name: "delete range", args: `{"path":"f","operation":"delete","start_line":2,"end_line":3}`, want: "1\n4\n"},
		{name: "delete one (aliases, strings)", args: `{"file":"f","op":"delete","line":"4"}`, want: "1\n2\n3\n"},
		{name: "replace", args: `{"path":"f","operation":"replace","start_line":1,"end_line":2,"content":"x\n"}`, want: "x\n3\n4\n"},
		{name: "no final newline kept", file: "1\n2", args: `{"path":"f","operation":"replace","start_line":2,"content":"two"}`, want: "1\ntwo"},
		{name: "append after no final newline", file: "1\n2", args: `{"path":"f","operation":"insert","start_line":3,"content":"3"}`, want: "1\n2\n3"},
		{name: "crlf", file: "a\r\nb\r\n", args: `{"path":"f","operation":"insert","start_line":2,"content":"x"}`, want: "a\r\nx\r\nb\r\n"},
		{name: "bad operation", args: `{"path":"f","operation":"move","start_line":1}`, err: `"operation" must be one of "insert", "delete", "replace"`},
		{name: "out of range", args: `{"path":"f","operation":"delete","start_line":3,"end_line":9}`, err: "lines 3-9 are out of range: f has 4 lines"},
		{name: "insert past end", args: `{"path":"f","operation":"insert","start_line":9,"content":"x"}`, err: "use 5 to append"},
		{name: "reversed", args: `{"path":"f","operation":"delete","start_line":3,"end_line":2}`, err: "before start_line"},
		{name: "zero line", args: `{"path":"f","operation":"delete","start_line":0}`, err: `"start_line" must be at least 1`},
		{name: "insert nothing", args: `{"path":"f","operation":"insert","start_line":1}`, err: `"content" is empty`},
		{name: "missing op", args: `{"path":"f","start_line":1}`, err: `missing required "operation"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := src
			if tt.file != "" {
				file = tt.file
			}
			ws, root := newWS(t, map[string]string{"f": file})
			_, err := call(t, NewModifyLines(ws), tt.args)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Equal(t, file, readBack(t, root, "f"))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, readBack(t, root, "f"))
		})
	}
}
