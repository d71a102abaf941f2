package approval

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetherdev/tether/safety"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func newTestStager(t *testing.T) (*Stager, *dirFiles, *fakeClock) {
	t.Helper()
	files := newDirFiles(t)
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s := NewStager(files, StagerConfig{TTL: time.Minute, Now: clock.Now, Logger: slog.New(&recorder{})})
	return s, files, clock
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

const goFile = `package main

import "fmt"

func main() {
	fmt.Println("hello")
}
`

func TestPreviewThenApply(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	files.put(t, "cmd/main.go", goFile)
	before, _ := os.Lstat(filepath.Join(files.root, "cmd/main.go"))

	p, err := s.PreviewEdit(ctx, "cmd/main.go", Edit{OldText: `fmt.Println("hello")`, NewText: "fmt.Println(\"hello\")\n\tfmt.Println(\"bye\")"})
	if err != nil {
		t.Fatal(err)
	}
	if files.writeCount() != 0 || files.get(t, "cmd/main.go") != goFile {
		t.Fatal("preview touched the file")
	}
	after, _ := os.Lstat(filepath.Join(files.root, "cmd/main.go"))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Error("preview changed the mtime")
	}
	if p.Stats != (DiffStats{Added: 1}) || p.Created || p.Rel != "cmd/main.go" || !strings.HasPrefix(p.Token, "chg_") {
		t.Errorf("preview = %+v", p)
	}
	golden(t, "edit.diff", p.Diff)

	a, err := s.Apply(ctx, p.Token)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(goFile, "\"hello\")\n", "\"hello\")\n\tfmt.Println(\"bye\")\n", 1)
	if got := files.get(t, "cmd/main.go"); got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	if a.Stats.Added != 1 || a.Bytes != len(want) || a.Rel != "cmd/main.go" {
		t.Errorf("applied = %+v", a)
	}
	if _, err := s.Apply(ctx, p.Token); !errors.Is(err, ErrTokenUsed) {
		t.Errorf("reuse: %v, want ErrTokenUsed", err)
	}
}

func TestPreviewCreate(t *testing.T) {
	s, files, _ := newTestStager(t)
	p, err := s.PreviewWrite(context.Background(), "docs/new.md", []byte("# Title\n\nBody\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Created || p.Stats != (DiffStats{Added: 3}) {
		t.Errorf("preview = %+v", p)
	}
	golden(t, "create.diff", p.Diff)
	if _, err := os.Stat(filepath.Join(files.root, "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Error("preview created the parent directory")
	}
	if _, err := s.Apply(context.Background(), p.Token); err != nil {
		t.Fatal(err)
	}
	if files.get(t, "docs/new.md") != "# Title\n\nBody\n" {
		t.Error("content")
	}
	if fi, _ := os.Stat(filepath.Join(files.root, "docs/new.md")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode())
	}
}

func TestApplyKeepsMode(t *testing.T) {
	s, files, _ := newTestStager(t)
	files.put(t, "run.sh", "#!/bin/sh\necho a\n")
	if err := os.Chmod(filepath.Join(files.root, "run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	p, err := s.PreviewWrite(context.Background(), "run.sh", []byte("#!/bin/sh\necho b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(context.Background(), p.Token); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(files.root, "run.sh")); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750", fi.Mode())
	}
}

func TestTokenExpiry(t *testing.T) {
	s, files, clock := newTestStager(t)
	files.put(t, "a.txt", "x\n")
	p, err := s.PreviewWrite(context.Background(), "a.txt", []byte("y\n"))
	must(t, err)
	if !p.Expires.Equal(clock.Now().Add(time.Minute)) {
		t.Errorf("Expires = %v", p.Expires)
	}
	clock.Advance(59 * time.Second)
	must(t, s.ValidateToken(p.Token, "a.txt"))
	clock.Advance(time.Second)
	if err := s.ValidateToken(p.Token, "a.txt"); !errors.Is(err, ErrTokenExpired) {
		t.Errorf("Validate at expiry = %v", err)
	}
	if _, err := s.Apply(context.Background(), p.Token); !errors.Is(err, ErrTokenExpired) {
		t.Errorf("Apply after expiry = %v", err)
	}
	if files.get(t, "a.txt") != "x\n" || files.writeCount() != 0 {
		t.Error("expired token wrote")
	}
}

func TestTokenErrors(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	if _, err := s.Apply(ctx, "chg_nope"); !errors.Is(err, ErrTokenUnknown) {
		t.Errorf("unknown: %v", err)
	}
	files.put(t, "a.txt", "x\n")
	files.put(t, "b.txt", "x\n")
	p, err := s.PreviewWrite(ctx, "a.txt", []byte("y\n"))
	must(t, err)
	if err := s.ValidateToken(p.Token, "b.txt"); !errors.Is(err, ErrTokenUnknown) {
		t.Errorf("token used for another path: %v", err)
	}
	for _, path := range []string{"a.txt", p.Resolved, p.Path} {
		must(t, s.ValidateToken(p.Token, path))
	}
	if got, err := s.Lookup(p.Token); err != nil || got.Token != p.Token {
		t.Errorf("Lookup = %+v, %v", got, err)
	}
	if !s.Discard(p.Token) || s.Discard(p.Token) {
		t.Error("Discard")
	}
	if _, err := s.Apply(ctx, p.Token); !errors.Is(err, ErrTokenUsed) {
		t.Errorf("discarded: %v", err)
	}
}

func TestStagerEvictsOldest(t *testing.T) {
	files := newDirFiles(t)
	s := NewStager(files, StagerConfig{MaxStaged: 2, Logger: slog.New(&recorder{})})
	var toks []string
	for _, c := range []string{"1", "2", "3"} {
		p, err := s.PreviewWrite(context.Background(), "f.txt", []byte(c))
		must(t, err)
		toks = append(toks, p.Token)
	}
	if _, err := s.Lookup(toks[0]); !errors.Is(err, ErrTokenExpired) || !strings.Contains(err.Error(), "evicted") {
		t.Errorf("oldest = %v", err)
	}
	if st := s.Staged(); len(st) != 2 || st[0].Token != toks[1] || st[1].Token != toks[2] {
		t.Errorf("Staged = %v", st)
	}
}

func TestPreviewErrors(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	files.put(t, "a.go", "x := 1\nx := 1\n")
	must(t, os.Mkdir(filepath.Join(files.root, "dir"), 0o755))
	outside := t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(files.root, "escape")))
	tests := []struct {
		name string
		run  func() (Preview, error)
		is   error
	}{
		{"not found", func() (Preview, error) { return s.PreviewEdit(ctx, "a.go", Edit{OldText: "y := 2", NewText: "z"}) }, ErrEditNotFound},
		{"ambiguous", func() (Preview, error) { return s.PreviewEdit(ctx, "a.go", Edit{OldText: "x := 1", NewText: "z"}) }, ErrEditAmbiguous},
		{"empty old", func() (Preview, error) { return s.PreviewEdit(ctx, "a.go", Edit{NewText: "z"}) }, ErrEditEmpty},
		{"no edits", func() (Preview, error) { return s.PreviewEdit(ctx, "a.go") }, ErrInvalidRequest},
		{"edit missing file", func() (Preview, error) { return s.PreviewEdit(ctx, "none.go", Edit{OldText: "a", NewText: "b"}) }, os.ErrNotExist},
		{"no change", func() (Preview, error) { return s.PreviewWrite(ctx, "a.go", []byte("x := 1\nx := 1\n")) }, ErrNoChange},
		{"directory", func() (Preview, error) { return s.PreviewWrite(ctx, "dir", []byte("x")) }, ErrNotRegular},
		{"outside", func() (Preview, error) { return s.PreviewWrite(ctx, "escape/x.txt", []byte("x")) }, ErrPathDenied},
		{"absolute outside", func() (Preview, error) { return s.PreviewWrite(ctx, "/etc/passwd", []byte("x")) }, ErrPathDenied},
		{"too large", func() (Preview, error) {
			small := NewStager(files, StagerConfig{MaxFileSize: 4})
			return small.PreviewWrite(ctx, "big.txt", []byte("12345"))
		}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.run()
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
		})
	}
	if files.writeCount() != 0 || len(s.Staged()) != 0 {
		t.Error("failed previews staged or wrote something")
	}
	var ee *EditError
	_, err := s.PreviewEdit(ctx, "a.go", Edit{OldText: "x := 1", NewText: "y"}, Edit{OldText: "x := 1", NewText: "z"})
	if !errors.As(err, &ee) || ee.Index != 0 || ee.Matches != 2 || !strings.Contains(err.Error(), "replace_all") {
		t.Errorf("EditError = %v", err)
	}
}

func TestPreviewEditVariants(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	files.put(t, "crlf.txt", "one\r\ntwo\r\nthree\r\n")
	p, err := s.PreviewEdit(ctx, "crlf.txt", Edit{OldText: "one\ntwo\n", NewText: "uno\ndos\n"})
	must(t, err)
	_, err = s.Apply(ctx, p.Token)
	must(t, err)
	if got := files.get(t, "crlf.txt"); got != "uno\r\ndos\r\nthree\r\n" {
		t.Errorf("CRLF edit = %q", got)
	}

	files.put(t, "all.txt", "a b a b a\n")
	p, err = s.PreviewEdit(ctx, "all.txt", Edit{OldText: "a", NewText: "c", ReplaceAll: true}, Edit{OldText: "c b c b c", NewText: "done"})
	must(t, err)
	_, err = s.Apply(ctx, p.Token)
	must(t, err)
	if got := files.get(t, "all.txt"); got != "done\n" {
		t.Errorf("sequential edits = %q", got)
	}

	files.put(t, "bin.dat", "\x00\x01")
	p, err = s.PreviewWrite(ctx, "bin.dat", []byte("\x00\x02\x03"))
	must(t, err)
	if !strings.HasPrefix(p.Diff, "Binary files a/bin.dat and b/bin.dat differ (2 bytes → 3 bytes)") {
		t.Errorf("binary diff = %q", p.Diff)
	}
}

// Concurrent Applies of one token: exactly one writes. Concurrent Applies of
// two tokens for one file: the second sees the first's write and refuses.
func TestApplyConcurrent(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	files.put(t, "a.txt", "base\n")
	p1, err := s.PreviewWrite(ctx, "a.txt", []byte("one\n"))
	must(t, err)
	p2, err := s.PreviewWrite(ctx, "a.txt", []byte("two\n"))
	must(t, err)
	var ok, used, changed atomic.Int64
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := p1.Token
			if i%2 == 1 {
				tok = p2.Token
			}
			switch _, err := s.Apply(ctx, tok); {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrTokenUsed):
				used.Add(1)
			case errors.Is(err, ErrFileChanged):
				changed.Add(1)
			default:
				t.Errorf("Apply: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || changed.Load() != 1 || used.Load() != 14 {
		t.Errorf("ok=%d changed=%d used=%d; want 1, 1, 14", ok.Load(), changed.Load(), used.Load())
	}
	if got := files.get(t, "a.txt"); got != "one\n" && got != "two\n" {
		t.Errorf("file = %q", got)
	}
}

func TestApplyCancelled(t *testing.T) {
	s, files, _ := newTestStager(t)
	files.put(t, "a.txt", "x\n")
	p, err := s.PreviewWrite(context.Background(), "a.txt", []byte("y\n"))
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Apply(ctx, p.Token); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if _, err := s.PreviewWrite(ctx, "a.txt", []byte("z\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("preview err = %v", err)
	}
	if files.writeCount() != 0 {
		t.Error("cancelled Apply wrote")
	}
	must(t, s.ValidateToken(p.Token, "a.txt")) // not consumed by a call that never started
}

// The headless flow of seed 004 end to end: a sensitive file needs
// confirmation, a headless gate denies a plain write, and allows applying a
// valid token exactly once.
func TestHeadlessApplyEndToEnd(t *testing.T) {
	s, files, _ := newTestStager(t)
	ctx := context.Background()
	files.put(t, ".env", "A=1\n")
	rec := &recorder{}
	gate := &Gate{Policy: Headless(s), Logger: slog.New(rec)}

	direct := Request{Kind: KindFileEdit, ToolName: "write_file", Path: filepath.Join(files.root, ".env"), Decision: safety.Confirm}
	if _, err := gate.Authorize(ctx, direct); !errors.Is(err, ErrDenied) {
		t.Fatalf("direct write in headless: %v", err)
	}

	p, err := s.PreviewWrite(ctx, ".env", []byte("A=2\n"))
	must(t, err)
	if p.Decision != safety.Confirm || !p.Sensitive {
		t.Fatalf("preview decision = %v sensitive=%v", p.Decision, p.Sensitive)
	}
	req := p.Request("apply_file_change")
	if req.Severity != safety.SeverityHigh || req.Token != p.Token || req.Diff == "" {
		t.Errorf("request = %+v", req)
	}
	approved, err := gate.Authorize(ctx, req)
	must(t, err)
	if _, err := s.ApplyApproved(ctx, approved); err != nil {
		t.Fatal(err)
	}
	if files.get(t, ".env") != "A=2\n" {
		t.Error("not applied")
	}
	if _, err := gate.Authorize(ctx, req); !errors.Is(err, ErrDenied) {
		t.Errorf("reused token authorised again: %v", err)
	}
	if _, err := s.ApplyApproved(ctx, Approved{}); !errors.Is(err, ErrDenied) {
		t.Errorf("zero Approved: %v", err)
	}
	cmd, err := (&Gate{Logger: slog.New(rec)}).Authorize(ctx, Request{Kind: KindCommand, Command: "ls", Decision: safety.Allow})
	must(t, err)
	if _, err := s.ApplyApproved(ctx, cmd); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("command Approved: %v", err)
	}
}

func TestStagedResult(t *testing.T) {
	s, files, _ := newTestStager(t)
	files.put(t, "a.txt", "x\n")
	p, err := s.PreviewWrite(context.Background(), "a.txt", []byte("y\n"))
	must(t, err)
	r := p.Result(true)
	if !r.LegacyTranslated || r.Token != p.Token || r.DiffPreview != p.Diff || r.Added != 1 || r.Removed != 1 {
		t.Errorf("result = %+v", r)
	}
	txt := r.Text()
	for _, want := range []string{"apply_file_change", p.Token, "Nothing has been written", "+1 −1", "staged instead"} {
		if !strings.Contains(txt, want) {
			t.Errorf("Text() lacks %q:\n%s", want, txt)
		}
	}
}

func TestStagerEvictsByBytes(t *testing.T) {
	files := newDirFiles(t)
	s := NewStager(files, StagerConfig{MaxStagedBytes: 10, Logger: slog.New(&recorder{})})
	p1, err := s.PreviewWrite(context.Background(), "a.txt", []byte("123456"))
	must(t, err)
	p2, err := s.PreviewWrite(context.Background(), "b.txt", []byte("123456"))
	must(t, err)
	if _, err := s.Lookup(p1.Token); !errors.Is(err, ErrTokenExpired) {
		t.Errorf("first token = %v, want evicted", err)
	}
	if _, err := s.Lookup(p2.Token); err != nil {
		t.Errorf("second token = %v", err)
	}
	if _, err := s.Apply(context.Background(), p2.Token); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes != 0 {
		t.Errorf("staged bytes = %d after everything was applied", s.bytes)
	}
}
