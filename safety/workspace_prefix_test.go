package safety

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFolderNamePrefix: a path that starts with the workspace folder's own
// name means the path inside it, unless the workspace really has an entry
// of that name; confinement is unchanged.
func TestFolderNamePrefix(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "demo-project")
	for name, content := range map[string]string{"src/x.ts": "x", "other/demo-project/y.ts": "y"} {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		path, rel string
		op        Op
		want      Decision
	}{
		{"demo-project/src/x.ts", "src/x.ts", OpRead, Allow},
		{"./demo-project/src/x.ts", "src/x.ts", OpRead, Allow},
		{"demo-project/src/new.ts", "src/new.ts", OpWrite, Allow}, // a new file lands where it was meant
		{"src/x.ts", "src/x.ts", OpRead, Allow},
		{"other/demo-project/y.ts", "other/demo-project/y.ts", OpRead, Allow}, // only a leading name
		{"demo-project/../secret.txt", "", OpRead, Deny},                      // stripping never widens confinement
		{"demo-project", "demo-project", OpWrite, Allow},                      // a bare name is a file name
	}
	for _, tt := range tests {
		pc := w.Check(tt.path, tt.op)
		if pc.Decision != tt.want || (tt.rel != "" && pc.Rel != tt.rel) {
			t.Errorf("Check(%q) = %v %q (%s); want %v %q", tt.path, pc.Decision, pc.Rel, pc.Reason, tt.want, tt.rel)
		}
	}
	if b, err := w.ReadFile("demo-project/src/x.ts"); err != nil || string(b) != "x" {
		t.Errorf("ReadFile through the prefix: %q, %v", b, err)
	}

	// A real sub-directory named like the folder: the path that exists wins.
	if err := os.MkdirAll(filepath.Join(root, "demo-project", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "demo-project", "lib", "z.ts"), []byte("z"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, rel string }{
		{"demo-project/src/x.ts", "src/x.ts"},                  // only the stripped path exists
		{"demo-project/lib/z.ts", "demo-project/lib/z.ts"},     // the prefixed path exists
		{"demo-project/lib/new.ts", "demo-project/lib/new.ts"}, // neither: the real directory keeps it
		{"demo-project/src/new.ts", "demo-project/src/new.ts"}, // neither: the real directory keeps it
	} {
		if pc := w.Check(tt.path, OpRead); pc.Rel != tt.rel {
			t.Errorf("with a real demo-project/ directory: Check(%q).Rel = %q, want %q", tt.path, pc.Rel, tt.rel)
		}
	}
	// Both exist: the prefixed path is the one meant.
	if err := os.MkdirAll(filepath.Join(root, "demo-project", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "demo-project", "src", "x.ts"), []byte("inner"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := w.ReadFile("demo-project/src/x.ts"); err != nil || string(b) != "inner" {
		t.Errorf("both paths exist: read %q, %v; want the prefixed file", b, err)
	}
}
