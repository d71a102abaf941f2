package fstools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sparseGiB makes a 1 GiB file whose first 1 MiB is text and the rest a
// hole, so the test costs no disk.
func sparseGiB(t testing.TB) (Workspace, string) {
	t.Helper()
	ws, root := newWS(t, map[string]string{"big.log": numbered(1, 80000)})
	f, err := os.OpenFile(filepath.Join(root, "big.log"), os.O_WRONLY, 0)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	require.NoError(t, f.Close())
	return ws, "big.log"
}

func TestReadGiBFileBoundedMemory(t *testing.T) {
	ws, name := sparseGiB(t)
	tool := NewRead(ws)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := call(t, tool, `{"path":"`+name+`"}`)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(r.Text, "big.log (lines 1-500; 1.0 GiB in all, too large to count lines):\n     1\tline 1\n"), r.Text[:100])
	assert.Contains(t, r.Text, "call read_file with start_line=501")
	assert.Len(t, r.Meta.Chunks, 5)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KiB reading the first chunk of a 1 GiB file", alloc>>10)
	assert.Less(t, alloc, uint64(4<<20), "reading must not depend on file size")
}

// BenchmarkReadFirstChunkGiB reads the first 100-line chunk of a 1 GiB
// file; B/op shows memory does not grow with the file.
func BenchmarkReadFirstChunkGiB(b *testing.B) {
	ws, name := sparseGiB(b)
	tool := NewRead(ws)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := call(b, tool, `{"path":"`+name+`","end_line":100}`); err != nil {
			b.Fatal(err)
		}
	}
}
