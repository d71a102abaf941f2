package safety

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// PathCheck is the verdict on one path for one operation.
type PathCheck struct {
	Decision Decision `json:"decision"` // Allow | Confirm | Deny
	Resolved string   `json:"resolved"` // absolute, symlinks resolved; "" when the spelling was refused
	Rel      string   `json:"rel"`      // slash-separated, relative to Root; "." for the root; "" when denied before resolving
	Exists   bool     `json:"exists"`   // the resolved path exists now
	// Sensitive: the path (as written or as resolved) matches the
	// sensitivity rules, so changing it needs approval.
	Sensitive bool `json:"sensitive"`
	// Secret: the path may hold secrets, so even reading it needs approval.
	Secret bool `json:"secret"`
	// HardLinked: the file exists with more than one hard link, so its
	// content is shared with names that may lie outside the workspace.
	HardLinked bool   `json:"hard_linked,omitempty"`
	Reason     string `json:"reason"` // human-readable: names the rule or the problem
	// Err is set when Decision is Deny: a *PathError wrapping
	// ErrInvalidPath, ErrOutsideWorkspace, ErrNotDirectory, ErrNotRegular,
	// ErrRootOperation or an OS error. Reason carries its text for JSON.
	Err error `json:"-"`
}

// Check judges access to path for op without touching any file beyond
// resolving the path (lstat and readlink of its components).
//
//   - Deny: the spelling is invalid; the path resolves outside the
//     workspace; a working directory (OpChdir) that is not an existing
//     directory; a write that would replace the root or a device, FIFO or
//     socket.
//   - Confirm: writing (or working in) a sensitive path; reading a secret;
//     writing a file that has other hard links (its content is shared with
//     a name that may lie outside the workspace).
//   - Allow: everything else inside the workspace.
//
// For OpWrite a final symlink is followed, as WriteFile follows it.
// Sensitivity is applied both to the path as written and to where it
// resolves, so neither a symlink named "notes" pointing at .env nor a
// symlink named ".env" evades it.
func (w *Workspace) Check(path string, op Op) PathCheck {
	if f, sub, ok := w.route(path); ok {
		pc := f.ws.Check(sub, op)
		pc.Rel = f.qualify(pc.Rel)
		pc.Err = asWritten(pc.Err, path)
		return pc
	}
	pc, _ := w.check(path, op, true, true)
	w.logCheck(path, op, pc)
	return pc
}

func (w *Workspace) logCheck(path string, op Op, pc PathCheck) {
	level := slog.LevelDebug
	if pc.Decision != Allow {
		level = slog.LevelInfo
	}
	if !w.log.Enabled(context.Background(), level) {
		return
	}
	w.log.Log(context.Background(), level, "safety: path check",
		"path", path, "op", op.String(), "decision", pc.Decision.String(),
		"resolved", pc.Resolved, "reason", pc.Reason)
}

// check is Check with two switches: followFinal (false for lstat, remove,
// rename, which act on a final symlink itself) and judge (false when only
// confinement matters, as for Rel). A Deny comes with its *PathError.
func (w *Workspace) check(path string, op Op, followFinal, judge bool) (PathCheck, *PathError) {
	deny := func(pc PathCheck, kind error, detail string) (PathCheck, *PathError) {
		pe := &PathError{Op: "check " + op.String(), Path: path, Err: kind, Detail: detail}
		pc.Decision, pc.Reason, pc.Err = Deny, detail, pe
		return pc, pe
	}
	if why := checkSpelling(path); why != "" {
		return deny(PathCheck{}, ErrInvalidPath, why)
	}
	p, why := expandPath(path, w.home)
	if why != "" {
		return deny(PathCheck{}, ErrInvalidPath, why)
	}
	if !filepath.IsAbs(p) {
		// Concatenate rather than filepath.Join: Join would clean
		// "link/../x" lexically, which is not where the kernel goes.
		p = w.root + string(filepath.Separator) + w.stripFolderName(p)
	}
	r, err := w.resolve(p, followFinal)
	if err != nil {
		if errors.Is(err, errSymlinkLoop) {
			return deny(PathCheck{}, ErrInvalidPath, err.Error())
		}
		return deny(PathCheck{}, err, "cannot resolve the path: "+err.Error())
	}
	pc := PathCheck{Resolved: r.path, Exists: r.exists}
	if !within(w.root, r.path) {
		return deny(pc, ErrOutsideWorkspace,
			fmt.Sprintf("resolves to %s, outside the workspace %s; use a path inside the workspace", r.path, w.root))
	}
	pc.Rel = relTo(w.root, r.path)
	if r.notDir != "" && within(w.root, r.notDir) {
		return deny(pc, ErrNotDirectory, fmt.Sprintf("%s is not a directory, so %s cannot exist", relTo(w.root, r.notDir), pc.Rel))
	}
	if !judge {
		pc.Decision, pc.Reason = Allow, "inside the workspace"
		return pc, nil
	}

	switch op {
	case OpChdir:
		if !r.exists {
			return deny(pc, ErrNotDirectory, fmt.Sprintf("%s does not exist; a working directory must be an existing directory", pc.Rel))
		}
		if !r.info.IsDir() {
			return deny(pc, ErrNotDirectory, fmt.Sprintf("%s is not a directory", pc.Rel))
		}
	case OpWrite:
		if pc.Rel == "." {
			return deny(pc, ErrRootOperation, "the workspace root itself cannot be written, replaced or removed")
		}
	}
	if r.exists {
		if mode := r.info.Mode(); !mode.IsRegular() && !mode.IsDir() && mode&fs.ModeSymlink == 0 {
			return deny(pc, ErrNotRegular, fmt.Sprintf("%s is a %s, not a regular file", pc.Rel, fileKind(mode)))
		}
	}

	m := w.sensitivity(p, pc.Rel)
	pc.Sensitive, pc.Secret = m.Sensitive, m.Secret
	// Name the path as the caller wrote it, and where it really leads.
	subject := pc.Rel
	if written := w.writtenRel(p); written != pc.Rel {
		subject = written + " (resolves to " + pc.Rel + ")"
	}
	pc.HardLinked = nlinkOf(r.info) > 1
	needs := m.Sensitive
	if op == OpRead {
		needs = m.Secret
	}
	switch {
	case needs:
		pc.Decision = Confirm
		pc.Reason = fmt.Sprintf("%s %s needs approval: %s", verb(op), subject, m.Reason())
	case op == OpWrite && completesRepository(r.path):
		pc.Sensitive, pc.Decision = true, Confirm
		pc.Reason = fmt.Sprintf("writing %s needs approval: it makes %s a git repository (HEAD, objects/, refs/), whose configuration git runs there",
			subject, relTo(w.root, filepath.Dir(r.path)))
	case op == OpWrite && pc.HardLinked:
		pc.Decision = Confirm
		pc.Reason = fmt.Sprintf("writing %s needs approval: it has %d hard links, so its content is shared with names that may lie outside the workspace",
			subject, nlinkOf(r.info))
	default:
		pc.Decision = Allow
		pc.Reason = fmt.Sprintf("%s %s: inside the workspace", verb(op), subject)
		if m.Sensitive {
			pc.Reason += "; " + m.Reason() + ", reading is fine"
		}
	}
	return pc, nil
}

// resolve resolves the absolute path p. Paths spelled under either form of
// the root start the walk at the resolved root instead of "/": its
// components were resolved when the workspace was opened.
func (w *Workspace) resolve(p string, followFinal bool) (resolved, error) {
	for _, prefix := range []string{w.root, w.given} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && (rest == "" || os.IsPathSeparator(rest[0])) {
			if prefix == string(filepath.Separator) {
				break // the root is "/": nothing to skip
			}
			return resolveFrom(w.root, rest, followFinal)
		}
	}
	return resolvePath(p, followFinal)
}

// sensitivity judges the path as written (relative to whichever spelling of
// the root it is under) and as resolved, and keeps the stricter verdict.
func (w *Workspace) sensitivity(expanded, rel string) SensitivityMatch {
	m := w.sens.Match(rel)
	if written := w.writtenRel(expanded); written != rel {
		if mw := w.sens.Match(written); stricter(mw, m) {
			m = mw
		}
	}
	if !m.Sensitive {
		if hooks := w.hooksPath(); hooks != "" && (rel == hooks || strings.HasPrefix(rel, hooks+"/")) {
			m = SensitivityMatch{Sensitive: true, Pattern: hooks + " (git's core.hooksPath)", Builtin: true}
		}
	}
	return m
}

// writtenRel is the lexical spelling of the absolute path p relative to the
// root, symlinks not followed: what a human reading the path would think it
// names. Paths under neither spelling of the root are returned whole.
func (w *Workspace) writtenRel(p string) string {
	clean := filepath.Clean(p)
	switch {
	case within(w.root, clean):
		return relTo(w.root, clean)
	case within(w.given, clean):
		return relTo(w.given, clean)
	}
	return filepath.ToSlash(strings.TrimPrefix(clean, string(filepath.Separator)))
}

func verb(op Op) string {
	switch op {
	case OpRead:
		return "reading"
	case OpWrite:
		return "writing"
	case OpChdir:
		return "working in"
	}
	return op.String()
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}
