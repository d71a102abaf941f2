package approval

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tetherdev/tether/safety"
)

// Files is the part of *safety.Workspace a Stager needs: confined path
// checks, reads, stats and atomic writes. Tests may supply their own; Lstat
// must return infos from package os so os.SameFile can compare identities.
type Files interface {
	Check(path string, op safety.Op) safety.PathCheck
	ReadFile(path string) ([]byte, error)
	Lstat(path string) (fs.FileInfo, error)
	WriteFile(path string, data []byte, perm fs.FileMode) error
}

var _ Files = (*safety.Workspace)(nil)

// Defaults for StagerConfig.
const (
	DefaultTokenTTL       = 15 * time.Minute
	DefaultMaxStaged      = 64
	DefaultMaxFileSize    = 8 << 20
	DefaultMaxStagedBytes = 64 << 20
)

// StagerConfig configures a Stager. The zero value is usable.
type StagerConfig struct {
	TTL         time.Duration    // how long a token stays valid; 0 means DefaultTokenTTL
	Now         func() time.Time // clock, for tests; nil means time.Now
	MaxStaged   int              // live tokens kept; the oldest is evicted beyond it; 0 means DefaultMaxStaged
	MaxFileSize int64            // larger files are refused; 0 means DefaultMaxFileSize
	// MaxStagedBytes bounds the new content held for live tokens; the
	// oldest are evicted beyond it. 0 means DefaultMaxStagedBytes.
	MaxStagedBytes int64
	ContextLines   int          // diff context; 0 means 3, negative means none
	Logger         *slog.Logger // nil means no logging
	// BeforeWrite, if set, runs in Apply after the file has been verified
	// and just before it is written, with no other Apply in between: the
	// place to snapshot the pre-image into a checkpoint. An error stops the
	// write and is returned wrapped; the token is still consumed.
	BeforeWrite func(ctx context.Context, p Preview) error
}

// Errors about change tokens and staged files; test with errors.Is.
var (
	ErrTokenUnknown = errors.New("approval: unknown change token")
	ErrTokenUsed    = errors.New("approval: change token already used")
	ErrTokenExpired = errors.New("approval: change token expired")
	ErrFileChanged  = errors.New("approval: file changed since the preview")
	ErrNoChange     = errors.New("approval: the change leaves the file as it is")
	ErrPathDenied   = errors.New("approval: path may not be written")
	ErrNotRegular   = errors.New("approval: not a regular file")
	ErrTooLarge     = errors.New("approval: file too large to stage")
	// ErrApprovalRequired: the path needs confirmation; use ApplyApproved.
	ErrApprovalRequired = errors.New("approval: change needs approval")
)

// ChangedError reports that the file a token was bound to is no longer the
// file that was previewed. It matches ErrFileChanged.
type ChangedError struct {
	Path string // workspace-relative
	What string // "content", "identity", "mode", "created", "deleted", "now resolves to …"
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("approval: %s changed since the preview (%s); nothing was written; preview the change again", e.Path, e.What)
}

func (e *ChangedError) Is(target error) bool { return target == ErrFileChanged }

// Stager implements two-phase file mutation, so a remote reviewer can see a
// change before it lands: Preview computes a change and its diff without
// touching the file and returns a token; Apply writes exactly the previewed
// bytes, once, if the token has not expired and the file is still the one that
// was previewed: same resolved path, same device and inode, same mode, same
// content hash (or still absent).
//
// Apply calls are serialised, so two tokens for one file cannot both pass the
// check before either writes. A process outside Tether writing the file
// between Apply's check and its atomic rename is not detected; the window is
// one read and one write long.
type Stager struct {
	files Files
	cfg   StagerConfig

	mu     sync.Mutex
	staged map[string]*staged
	order  []string // tokens in staging order, for eviction
	bytes  int64    // sum of len(content) over staged
	done   recent   // finished tokens and why: ErrTokenUsed, ErrTokenExpired…

	applyMu sync.Mutex
}

// staged is one previewed change. Immutable once stored.
type staged struct {
	preview Preview
	before  fileState
	content []byte
	perm    fs.FileMode
}

// fileState is what a token is bound to.
type fileState struct {
	exists bool
	info   fs.FileInfo // for os.SameFile (device and inode)
	mode   fs.FileMode
	hash   [sha256.Size]byte
	data   []byte // only kept transiently during Preview
}

// NewStager returns a Stager writing through files.
func NewStager(files Files, cfg StagerConfig) *Stager {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTokenTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxStaged <= 0 {
		cfg.MaxStaged = DefaultMaxStaged
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = DefaultMaxFileSize
	}
	if cfg.MaxStagedBytes <= 0 {
		cfg.MaxStagedBytes = DefaultMaxStagedBytes
	}
	switch {
	case cfg.ContextLines == 0:
		cfg.ContextLines = 3
	case cfg.ContextLines < 0:
		cfg.ContextLines = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = discardLogger
	}
	return &Stager{files: files, cfg: cfg, staged: make(map[string]*staged), done: recent{limit: 4 * cfg.MaxStaged}}
}

// Preview is a staged change: what Apply(Token) would write, shown as a diff.
type Preview struct {
	Token    string    `json:"token"`
	Path     string    `json:"path"`     // as the caller named it
	Rel      string    `json:"rel"`      // workspace-relative, slash-separated
	Resolved string    `json:"resolved"` // absolute, symlinks resolved: the file Apply writes
	Created  bool      `json:"created"`  // the file does not exist yet
	Diff     string    `json:"diff"`     // unified diff, a/rel → b/rel
	Stats    DiffStats `json:"stats"`
	Expires  time.Time `json:"expires"`
	// The workspace's verdict on writing this path: Confirm for sensitive
	// files. Carry it into the approval Request (see Preview.Request).
	Decision  safety.Decision `json:"decision"`
	Sensitive bool            `json:"sensitive"`
	Reason    string          `json:"reason,omitempty"`
}

// Request returns the approval request for applying p: a KindFileEdit naming
// the resolved path and carrying the token, the diff and the workspace's
// decision. Sensitive files are SeverityHigh.
func (p Preview) Request(toolName string) Request {
	r := Request{
		Kind: KindFileEdit, ToolName: toolName,
		Path: p.Resolved, Token: p.Token,
		Decision: p.Decision,
		Diff:     p.Diff, Added: p.Stats.Added, Removed: p.Stats.Removed,
	}
	if p.Sensitive {
		r.Severity = safety.SeverityHigh
	}
	if p.Reason != "" {
		r.Reasons = []string{p.Reason}
	}
	return r
}

// PreviewWrite stages replacing (or creating) the file at path with content.
// The Stager keeps its own copy: changing content afterwards does not change
// what Apply writes.
func (s *Stager) PreviewWrite(ctx context.Context, path string, content []byte) (Preview, error) {
	content = bytes.Clone(content)
	return s.preview(ctx, path, func(string, fileState) ([]byte, error) {
		return content, nil
	})
}

// PreviewEdit stages search-and-replace edits to an existing file. Edits
// apply in order, each to the result of the previous one; an edit whose text
// is missing or ambiguous fails the whole preview with an *EditError.
func (s *Stager) PreviewEdit(ctx context.Context, path string, edits ...Edit) (Preview, error) {
	if len(edits) == 0 {
		return Preview{}, fmt.Errorf("%w: no edits given for %s", ErrInvalidRequest, Escape(path))
	}
	return s.preview(ctx, path, func(rel string, st fileState) ([]byte, error) {
		if !st.exists {
			return nil, fmt.Errorf("approval: cannot edit %s: %w; write the whole file to create it", rel, fs.ErrNotExist)
		}
		out, err := applyEdits(rel, string(st.data), edits)
		return []byte(out), err
	})
}

func (s *Stager) preview(ctx context.Context, path string, change func(rel string, st fileState) ([]byte, error)) (Preview, error) {
	if err := ctx.Err(); err != nil {
		return Preview{}, err
	}
	chk := s.files.Check(path, safety.OpWrite)
	if chk.Decision == safety.Deny {
		return Preview{}, fmt.Errorf("%w: %s: %s", ErrPathDenied, Escape(path), chk.Reason)
	}
	if chk.Resolved == "" || chk.Rel == "" {
		return Preview{}, fmt.Errorf("%w: %s: the workspace did not resolve it", ErrPathDenied, Escape(path))
	}
	before, err := s.state(chk.Resolved, chk.Rel, true)
	if err != nil {
		return Preview{}, err
	}
	content, err := change(chk.Rel, before)
	if err != nil {
		return Preview{}, err
	}
	if int64(len(content)) > s.cfg.MaxFileSize {
		return Preview{}, fmt.Errorf("%w: new content of %s is %d bytes, the limit is %d", ErrTooLarge, chk.Rel, len(content), s.cfg.MaxFileSize)
	}
	if before.exists && sha256.Sum256(content) == before.hash {
		return Preview{}, fmt.Errorf("%w: %s already has this content", ErrNoChange, chk.Rel)
	}
	diff, stats := UnifiedDiff(chk.Rel, before.data, content, !before.exists, s.cfg.ContextLines)
	perm := fs.FileMode(0o644)
	if before.exists {
		perm = before.mode.Perm()
	}
	before.data = nil // the hash is what binds; don't keep two copies

	p := Preview{
		Token: newToken(), Path: path, Rel: chk.Rel, Resolved: chk.Resolved,
		Created: !before.exists, Diff: diff, Stats: stats,
		Expires:  s.cfg.Now().Add(s.cfg.TTL),
		Decision: chk.Decision, Sensitive: chk.Sensitive, Reason: chk.Reason,
	}
	s.mu.Lock()
	s.sweepLocked()
	for len(s.order) > 0 && (len(s.order) >= s.cfg.MaxStaged || s.bytes+int64(len(content)) > s.cfg.MaxStagedBytes) {
		s.finishLocked(s.order[0], fmt.Errorf("%w: evicted to stay within %d staged changes and %d bytes", ErrTokenExpired, s.cfg.MaxStaged, s.cfg.MaxStagedBytes))
	}
	s.staged[p.Token] = &staged{preview: p, before: before, content: content, perm: perm}
	s.bytes += int64(len(content))
	s.order = append(s.order, p.Token)
	s.mu.Unlock()

	s.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "approval: change staged",
		slog.String("path", Escape(p.Rel)), slog.Bool("created", p.Created),
		slog.Int("added", stats.Added), slog.Int("removed", stats.Removed),
		slog.String("decision", p.Decision.String()), slog.Time("expires", p.Expires))
	return p, nil
}

// state reads what a token binds to. withData keeps the content for diffing.
func (s *Stager) state(resolved, rel string, withData bool) (fileState, error) {
	info, err := s.files.Lstat(resolved)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, fmt.Errorf("approval: stat %s: %w", rel, err)
	}
	if !info.Mode().IsRegular() {
		return fileState{}, fmt.Errorf("%w: %s is a %s", ErrNotRegular, rel, describeMode(info.Mode()))
	}
	if info.Size() > s.cfg.MaxFileSize {
		return fileState{}, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, rel, info.Size(), s.cfg.MaxFileSize)
	}
	data, err := s.files.ReadFile(resolved)
	if err != nil {
		return fileState{}, fmt.Errorf("approval: read %s: %w", rel, err)
	}
	st := fileState{exists: true, info: info, mode: info.Mode(), hash: sha256.Sum256(data)}
	if withData {
		st.data = data
	}
	return st, nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// sweepLocked forgets expired tokens.
func (s *Stager) sweepLocked() {
	now := s.cfg.Now()
	var expired []string
	for _, tok := range s.order {
		if !now.Before(s.staged[tok].preview.Expires) {
			expired = append(expired, tok)
		}
	}
	for _, tok := range expired {
		s.finishLocked(tok, ErrTokenExpired)
	}
}

// finishLocked retires a token, remembering why.
func (s *Stager) finishLocked(tok string, why error) {
	if st, ok := s.staged[tok]; ok {
		s.bytes -= int64(len(st.content))
	}
	delete(s.staged, tok)
	if i := slices.Index(s.order, tok); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	s.done.add(tok, why)
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "chg_" + hex.EncodeToString(b[:])
}
