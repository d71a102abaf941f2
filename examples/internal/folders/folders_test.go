package folders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	base := t.TempDir()
	lib := filepath.Join(base, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		values []string
		want   Flag
		err    string
	}{
		{values: []string{lib}, want: Flag{{"lib", lib}}},
		{values: []string{"docs=" + lib}, want: Flag{{"docs", lib}}},
		{values: []string{"a=" + lib, "b=" + base}, want: Flag{{"a", lib}, {"b", base}}},
		{values: []string{""}, err: "want [NAME=]DIR"},
		{values: []string{"x="}, err: "want [NAME=]DIR"},
		{values: []string{"=" + lib}, err: "single path segment"},
		{values: []string{"..=" + lib}, err: "single path segment"},
		{values: []string{"a/b=" + lib}, err: "single path segment"},
		{values: []string{filepath.Join(base, "gone")}, err: "no such file"},
		{values: []string{file}, err: "not a directory"},
		{values: []string{lib, "lib=" + base}, err: `already named "lib"`},
	} {
		var f Flag
		var err error
		for _, v := range c.values {
			if err = f.Set(v); err != nil {
				break
			}
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.values, err, c.err)
			}
			continue
		}
		if err != nil || f.String() != c.want.String() || len(f.Options()) != len(c.want) || len(f.Dirs()) != len(c.want) {
			t.Errorf("%q: got %v (err %v), want %v", c.values, f, err, c.want)
		}
	}
}

// TestRelativeDirIsMadeAbsolute: a relative DIR means the directory at
// flag parsing, whatever the process's directory later.
func TestRelativeDirIsMadeAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("lib", 0o755); err != nil {
		t.Fatal(err)
	}
	var f Flag
	if err := f.Set("lib"); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(f[0].Dir) || f[0].Name != "lib" {
		t.Errorf("got %+v", f[0])
	}
}
