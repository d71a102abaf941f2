package checkpoint

import (
	"context"
	"testing"
)

// BenchmarkWriteFile measures one snapshotted write of a 4 KiB file.
func BenchmarkWriteFile(b *testing.B) {
	ctx := context.Background()
	ws := b.TempDir()
	data := make([]byte, 4096)
	for name, open := range map[string]func() Store{
		"memory": func() Store { return NewMemoryStore() },
	} {
		b.Run(name, func(b *testing.B) {
			store := open()
			defer store.Close()
			m, _ := New(newRootFiles(b, ws), store)
			c, _ := m.Begin(ctx, "bench", "")
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				data[0] = byte(i)
				if err := c.WriteFile(ctx, call1, "f.txt", data, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
