package safety

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// Workspace confines file access to one directory tree, the project an
// agent works on. Every path an agent names goes through Check: the spelling
// is validated, ~ and file:// are expanded, symlinks are followed one
// component at a time, and whatever ends outside the root is denied.
// All I/O then goes through an os.Root opened on the root directory, so a
// path that is swapped for a symlink after the check still cannot reach
// outside; WriteFile additionally pins the target directory and re-checks,
// so it cannot land anywhere other than where the check said.
//
// A Workspace is safe for concurrent use. Its methods never ask a human:
// Check reports Confirm, and the caller (approval, agent) decides.
type Workspace struct {
	root   string // absolute, clean, symlinks resolved
	given  string // absolute and clean as given; may pass through symlinks
	home   string // for "~/" expansion; "" refuses ~
	osRoot *os.Root
	sens   *Sensitivity
	log    *slog.Logger

	// folders are the extra roots of a multi-root workspace (WithFolder);
	// specs holds them between the options and their opening.
	folders []folder
	specs   []folderSpec

	// beforeUse, when set by tests, runs in every I/O method between the
	// check and the I/O: the window a concurrent attacker would use.
	beforeUse func(op, rel string)
}

// WorkspaceOption configures OpenWorkspace.
type WorkspaceOption func(*Workspace) error

// WithSensitivity sets the project's sensitivity rules. The built-in floor
// applies with or without them.
func WithSensitivity(s *Sensitivity) WorkspaceOption {
	return func(w *Workspace) error {
		w.sens = s
		return nil
	}
}

// WithSensitivityRules compiles rules into the workspace's Sensitivity.
func WithSensitivityRules(rules ...SensitivityRule) WorkspaceOption {
	return func(w *Workspace) error {
		s, err := NewSensitivity(rules...)
		if err != nil {
			return err
		}
		w.sens = s
		return nil
	}
}

// WithHome sets the directory "~/" expands to (default: the user's home
// directory when it can be determined). An empty dir refuses every ~ path.
// Home only matters for spelling: "~/x" is still denied unless it resolves
// inside the workspace.
func WithHome(dir string) WorkspaceOption {
	return func(w *Workspace) error {
		if dir != "" && !filepath.IsAbs(dir) {
			return fmt.Errorf("safety: home directory %q is not absolute", dir)
		}
		w.home = filepath.Clean(dir)
		if dir == "" {
			w.home = ""
		}
		return nil
	}
}

// WithLogger sets where security decisions (denials, confirmations,
// refused writes) are logged. The default discards them.
func WithLogger(l *slog.Logger) WorkspaceOption {
	return func(w *Workspace) error {
		if l == nil {
			return errors.New("safety: WithLogger(nil); use slog.New(slog.DiscardHandler) to silence logging")
		}
		w.log = l
		return nil
	}
}

// OpenWorkspace opens the directory root as a workspace. root may be
// relative (to the current directory) and may itself be or pass through a
// symlink: the workspace is the directory it resolves to, and absolute paths
// spelled through the symlink are accepted as inside.
func OpenWorkspace(root string, opts ...WorkspaceOption) (*Workspace, error) {
	if why := checkSpelling(root); why != "" {
		return nil, &PathError{Op: "open workspace", Path: root, Err: ErrInvalidPath, Detail: why}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, &PathError{Op: "open workspace", Path: root, Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &PathError{Op: "open workspace", Path: root, Err: err, Detail: "the workspace root must be an existing directory"}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, &PathError{Op: "open workspace", Path: root, Err: err}
	}
	if !fi.IsDir() {
		return nil, &PathError{Op: "open workspace", Path: root, Err: ErrNotDirectory, Detail: "the workspace root must be a directory"}
	}
	w := &Workspace{root: real, given: abs, log: slog.New(slog.DiscardHandler)}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		w.home = filepath.Clean(h)
	}
	for _, o := range opts {
		if err := o(w); err != nil {
			return nil, err
		}
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, &PathError{Op: "open workspace", Path: root, Err: err}
	}
	w.osRoot = r
	if err := w.openFolders(); err != nil {
		r.Close()
		return nil, err
	}
	return w, nil
}

// Root returns the absolute workspace root with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Sensitivity returns the rules the workspace applies (nil: floor only).
func (w *Workspace) Sensitivity() *Sensitivity { return w.sens }

// Close releases the directory handles, the folders' too. Check keeps
// working; I/O fails.
func (w *Workspace) Close() error {
	return errors.Join(w.osRoot.Close(), w.closeFolders())
}

// Rel returns path relative to the root, slash-separated ("." for the root),
// after expansion and symlink resolution; or an error wrapping ErrInvalidPath
// or ErrOutsideWorkspace.
func (w *Workspace) Rel(path string) (string, error) {
	if f, sub, ok := w.route(path); ok {
		rel, err := f.ws.Rel(sub)
		return f.qualify(rel), asWritten(err, path)
	}
	pc, err := w.check(path, OpRead, true, false)
	if err != nil {
		err.Op = "rel"
		return "", err
	}
	return pc.Rel, nil
}

// nlinkOf reports the hard link count of a regular file (1 when unknown).
func nlinkOf(fi fs.FileInfo) uint64 {
	if fi == nil || !fi.Mode().IsRegular() {
		return 1
	}
	return linkCount(fi)
}
