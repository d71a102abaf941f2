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

	// A real sub-directory named like the folder keeps the path.
	if err := os.MkdirAll(filepath.Join(root, "demo-project"), 0o755); err != nil {
		t.Fatal(err)
	}
	if pc := w.Check("demo-project/src/x.ts", OpRead); pc.Rel != "demo-project/src/x.ts" {
		t.Errorf("with a real demo-project/ directory: Rel = %q", pc.Rel)
	}
}
