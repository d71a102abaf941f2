package agent

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/internal/textcut"
	"github.com/tetherdev/tether/safety"
)

// Folder is one root of a (possibly multi-root) workspace: Name is what
// an editor prefixes relative paths with (VS Code's asRelativePath(uri,
// true)), Root its directory.
type Folder struct {
	Name string
	Root string
}

// ErrNoFolder: a path names no folder of the workspace.
var ErrNoFolder = errors.New("agent: the path is in none of the workspace folders")

// ResolveMultiRootPath resolves an editor-relative path (slash-separated)
// to a folder and the path inside it:
//
//   - An absolute path belongs to the folder whose root contains it.
//   - One folder (the fast path): a path starting with "<Name>/" is the
//     editor's folder-name prefix when the prefixed path does not exist
//     but the stripped one does; when the prefixed path exists (a real
//     sub-directory named like the folder), it is kept.
//   - Several folders: a first segment equal to a folder's name selects
//     that folder and is stripped; otherwise the first folder in which
//     the path exists, else the first folder.
//
// exists reports whether a path relative to a folder exists there; nil
// means os.Stat-style checks through the folder's root directory.
func ResolveMultiRootPath(folders []Folder, p string, exists func(f Folder, rel string) bool) (Folder, string, error) {
	if len(folders) == 0 {
		return Folder{}, "", fmt.Errorf("%w: no folders given", ErrNoFolder)
	}
	if exists == nil {
		exists = existsOnDisk
	}
	p = strings.TrimSpace(filepath.ToSlash(p))
	if path.IsAbs(p) || filepath.IsAbs(p) {
		for _, f := range folders {
			root := filepath.ToSlash(filepath.Clean(f.Root))
			if rel, ok := strings.CutPrefix(path.Clean(p), root+"/"); ok {
				return f, rel, nil
			}
			if path.Clean(p) == root {
				return f, ".", nil
			}
		}
		return Folder{}, "", fmt.Errorf("%w: %s is outside every folder (%s)", ErrNoFolder, p, folderNames(folders))
	}
	p = strings.TrimPrefix(path.Clean(p), "./")
	if len(folders) == 1 {
		f := folders[0]
		if rest, ok := strings.CutPrefix(p, f.Name+"/"); ok && f.Name != "" && !exists(f, p) && exists(f, rest) {
			return f, rest, nil
		}
		return f, p, nil
	}
	first, rest, _ := strings.Cut(p, "/")
	for _, f := range folders {
		if f.Name == first && rest != "" {
			return f, rest, nil
		}
	}
	for _, f := range folders {
		if exists(f, p) {
			return f, p, nil
		}
	}
	return folders[0], p, nil
}

func existsOnDisk(f Folder, rel string) bool {
	_, err := os.Stat(filepath.Join(f.Root, filepath.FromSlash(rel)))
	return err == nil
}

func folderNames(fs []Folder) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// loadAttachments fills in the content of attachments the host sent
// without it, reading through the workspace (confinement and secret-file
// rules apply: attaching .env needs the host to send its content
// itself). A path may carry the workspace folder's name as a prefix:
// the Workspace resolves it, as it does for every tool.
func loadAttachments(ws *safety.Workspace, atts []Attachment) ([]Attachment, error) {
	out := make([]Attachment, len(atts))
	for i, a := range atts {
		if err := a.check(); err != nil {
			return nil, err
		}
		if a.Content != "" {
			out[i] = a
			continue
		}
		if ws == nil {
			return nil, fmt.Errorf("%w: %s has no content and there is no workspace to read it from; send Attachment.Content", ErrAttachment, a.Name())
		}
		// The workspace resolves a leading folder-name prefix itself.
		data, err := ws.ReadFile(a.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrAttachment, a.Name(), err)
		}
		text := string(data)
		if a.StartLine > 0 {
			if text, err = selectLines(text, a.StartLine, a.EndLine); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrAttachment, a.Name(), err)
			}
		} else if len(text) > MaxAttachmentBytes {
			cut := textcut.AtLine(text, MaxAttachmentBytes)
			n := strings.Count(cut, "\n")
			a.StartLine, a.EndLine = 1, max(n, 1)
			text = cut
		}
		out[i] = a
		out[i].Content = text
	}
	return out, nil
}
