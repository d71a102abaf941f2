package acp

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/safety"
)

// EditorFiles is a session's workspace with its text files read and written
// through the editor when the editor offers to (fs/read_text_file,
// fs/write_text_file): the model reads unsaved buffers, and an edit lands
// in the editor's buffer and its undo history. Give it to the file tools
// (builtin.Options.Files) and to the checkpoints (checkpoint.New), so that
// pre-images are what the model read and /undo restores through the same
// path the edit took.
//
// Every path is confined by the workspace first (Rel), exactly as a direct
// read or write would be; sensitivity is judged by the agent on the paths
// before any of this runs. Only existing regular files are read from the
// editor, only UTF-8 text is written through it, and when the editor fails
// a request the disk is used instead, and the failure logged.
type EditorFiles struct {
	*safety.Workspace
	l *live
}

// Files wraps the session's workspace so that its files go through the
// editor when it offers to; see [EditorFiles].
func (e SessionEnv) Files(ws *safety.Workspace) *EditorFiles {
	return &EditorFiles{Workspace: ws, l: e.l}
}

func (f *EditorFiles) caps() (read, write bool) {
	if f.l == nil {
		return false, false
	}
	f.l.s.mu.Lock()
	defer f.l.s.mu.Unlock()
	return f.l.s.client.Fs.ReadTextFile, f.l.s.client.Fs.WriteTextFile
}

// abs is the confined absolute path of name, or an error naming why it is
// refused.
func (f *EditorFiles) abs(name string) (string, error) {
	rel, err := f.Workspace.Rel(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(f.Workspace.Root(), rel), nil
}

// editorRead returns the editor's text of an existing regular file, or ok
// false when the disk must be read instead.
func (f *EditorFiles) editorRead(name string) (data []byte, ok bool) {
	if read, _ := f.caps(); !read {
		return nil, false
	}
	fi, err := f.Workspace.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	abs, err := f.abs(name)
	if err != nil {
		return nil, false
	}
	var resp sdk.ReadTextFileResponse
	err = f.l.s.conn.call(f.l.ctx(), "fs/read_text_file", sdk.ReadTextFileRequest{SessionId: sdk.SessionId(f.l.id), Path: abs}, &resp)
	if err != nil {
		f.l.s.logger.Warn("acp: the editor could not read a file; reading the disk", "path", abs, "err", err)
		return nil, false
	}
	return []byte(resp.Content), true
}

// ReadFile reads name's buffer in the editor, or the file.
func (f *EditorFiles) ReadFile(name string) ([]byte, error) {
	if data, ok := f.editorRead(name); ok {
		return data, nil
	}
	return f.Workspace.ReadFile(name)
}

// Open opens name for reading; a file the editor has is served from its
// buffer, through an unlinked temporary file holding the buffer's text.
func (f *EditorFiles) Open(name string) (*os.File, error) {
	data, ok := f.editorRead(name)
	if !ok {
		return f.Workspace.Open(name)
	}
	tmp, err := os.CreateTemp("", "tether-acp-buffer-*")
	if err != nil {
		return f.Workspace.Open(name)
	}
	_ = os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return f.Workspace.Open(name)
	}
	if _, err := tmp.Seek(0, 0); err != nil {
		tmp.Close()
		return f.Workspace.Open(name)
	}
	return tmp, nil
}

// WriteFile writes name through the editor, or atomically to the disk.
func (f *EditorFiles) WriteFile(name string, data []byte, perm fs.FileMode) error {
	_, write := f.caps()
	if !write || !utf8.Valid(data) {
		return f.Workspace.WriteFile(name, data, perm)
	}
	abs, err := f.abs(name)
	if err != nil {
		return err
	}
	if _, err := f.Workspace.Lstat(filepath.Dir(abs)); errors.Is(err, fs.ErrNotExist) {
		if err := f.Workspace.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
	}
	err = f.l.s.conn.call(f.l.ctx(), "fs/write_text_file", sdk.WriteTextFileRequest{SessionId: sdk.SessionId(f.l.id), Path: abs, Content: string(data)}, nil)
	if err != nil {
		f.l.s.logger.Warn("acp: the editor could not write a file; writing the disk", "path", abs, "err", err)
		return f.Workspace.WriteFile(name, data, perm)
	}
	f.l.s.logger.Info("acp: file written through the editor", "path", abs, "bytes", len(data))
	return nil
}

// ctx is the running prompt's context, so a cancel withdraws the editor
// requests of its turn too; between prompts, the connection's.
func (l *live) ctx() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turn != nil {
		return l.turn
	}
	return l.s.base
}
