package checkpoint

import (
	"context"
	"testing"
)

// TestDecided: a checkpoint reviewed file by file or hunk by hunk stays
// open, and Decided tells how far its review has come.
func TestDecided(t *testing.T) {
	ctx := context.Background()
	initial := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "h.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"}
	two := func(c *Checkpoint) error {
		if err := c.WriteFile(ctx, call1, "a.txt", []byte("A\n"), 0); err != nil {
			return err
		}
		return c.WriteFile(ctx, call1, "b.txt", []byte("B\n"), 0)
	}
	hunks := func(c *Checkpoint) error {
		return c.WriteFile(ctx, call1, "h.txt", []byte("one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n"), 0)
	}
	eachHunk := func(c *Checkpoint, f func(id string) error) error {
		h, err := c.Hunks(ctx, "h.txt")
		if err != nil {
			return err
		}
		if len(h) != 2 {
			t.Fatalf("want 2 hunks, got %d", len(h))
		}
		// Hunk ids name content, so each is looked up again after the
		// previous decision moved the baseline.
		for range h {
			now, err := c.Hunks(ctx, "h.txt")
			if err != nil {
				return err
			}
			if err := f(now[0].ID); err != nil {
				return err
			}
		}
		return nil
	}
	for _, tt := range []struct {
		name   string
		change func(*Checkpoint) error
		review func(*Checkpoint) error
		want   string
	}{
		{"nothing touched", nil, nil, "empty"},
		{"not reviewed", two, nil, "open"},
		{"one file kept", two, func(c *Checkpoint) error { return c.KeepFile(ctx, "a.txt") }, "partly decided (1 of 2 files)"},
		{"every file kept", two, func(c *Checkpoint) error {
			if err := c.KeepFile(ctx, "a.txt"); err != nil {
				return err
			}
			return c.KeepFile(ctx, "b.txt")
		}, "kept"},
		{"every file undone", two, func(c *Checkpoint) error {
			if _, err := c.UndoFile(ctx, "a.txt", UndoOptions{}); err != nil {
				return err
			}
			_, err := c.UndoFile(ctx, "b.txt", UndoOptions{})
			return err
		}, "undone"},
		{"one kept, one undone", two, func(c *Checkpoint) error {
			if err := c.KeepFile(ctx, "a.txt"); err != nil {
				return err
			}
			_, err := c.UndoFile(ctx, "b.txt", UndoOptions{})
			return err
		}, "decided"},
		{"kept whole", two, func(c *Checkpoint) error { return c.Keep(ctx) }, "kept"},
		{"undone whole", two, func(c *Checkpoint) error { _, err := c.Undo(ctx, UndoOptions{}); return err }, "undone"},
		{"every hunk accepted", hunks, func(c *Checkpoint) error {
			return eachHunk(c, func(id string) error { return c.AcceptHunk(ctx, "h.txt", id) })
		}, "kept"},
		{"every hunk rejected", hunks, func(c *Checkpoint) error {
			return eachHunk(c, func(id string) error { return c.RejectHunk(ctx, "h.txt", id, UndoOptions{}) })
		}, "decided"},
		{"one hunk accepted", hunks, func(c *Checkpoint) error {
			h, err := c.Hunks(ctx, "h.txt")
			if err != nil {
				return err
			}
			return c.AcceptHunk(ctx, "h.txt", h[0].ID)
		}, "open"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, NewMemoryStore(), initial)
			c := e.begin()
			for _, f := range []func(*Checkpoint) error{tt.change, tt.review} {
				if f == nil {
					continue
				}
				if err := f(c); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.Decided().String(); got != tt.want {
				t.Errorf("Decided() = %q (%+v), want %q", got, c.Decided(), tt.want)
			}
			// The answer survives a reopen from the store.
			again, err := e.m.Open(ctx, c.ID())
			if err != nil {
				t.Fatal(err)
			}
			if got := again.Decided().String(); got != tt.want {
				t.Errorf("after reopening: %q, want %q", got, tt.want)
			}
		})
	}
}
