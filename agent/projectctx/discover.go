// Package projectctx finds what a coding agent should know about a project
// before its first turn: the agent instructions (AGENTS.md, CLAUDE.md…),
// the README and summaries of the build manifests, bounded in size, as
// one section of text for the system prompt; and which commands build and
// test it (DetectBuild).
package projectctx

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/internal/textcut"
)

// Config controls project context discovery. The zero
// value discovers the default files with the default bounds.
type Config struct {
	// Disabled turns discovery off.
	Disabled bool
	// Files replaces DefaultFiles(): workspace-relative paths, in
	// the order they appear in the prompt. A name of a manifest the
	// summariser knows (go.mod, package.json, pyproject.toml, Cargo.toml)
	// is summarised; every other file is included as text.
	Files []string
	// MaxFileBytes bounds each included file; zero means 8 KiB.
	MaxFileBytes int
	// MaxBytes bounds the whole section; zero means 24 KiB. Files that do
	// not fit are cut (or left out) and marked Truncated.
	MaxBytes int
}

// DefaultFiles returns the files discovered when Config.Files is nil, in this order: agent instructions
// first (AGENTS.md, CLAUDE.md, CODE.md, Copilot's), then the README, then
// summaries of the build manifests. The slice is the caller's to change
// (append a file of its own and pass it as Files); the defaults do not.
func DefaultFiles() []string { return slices.Clone(defaultProjectFiles) }

// defaultProjectFiles is never changed; DefaultFiles hands out
// copies.
var defaultProjectFiles = []string{
	"AGENTS.md", "CLAUDE.md", "CODE.md", ".github/copilot-instructions.md",
	"README.md", "go.mod", "package.json", "pyproject.toml", "Cargo.toml",
}

// readmeAlternatives are tried when README.md is absent.
var readmeAlternatives = []string{"README", "README.rst", "README.txt", "readme.md"}

const (
	defaultProjectFileBytes = 8 << 10
	defaultProjectBytes     = 24 << 10
)

// Project is what discovery found: the files used and the text
// the system prompt shows.
type Project struct {
	Files []event.ProjectFile
	Text  string
}

// Discover reads the project files cfg names from fsys
// (the workspace: [safety.Workspace.FS]). Missing files are skipped; a
// file that exists but cannot be read is an error naming it, because a
// silently ignored AGENTS.md would leave the agent ignoring its rules.
func Discover(fsys fs.FS, cfg Config) (Project, error) {
	var pc Project
	if cfg.Disabled || fsys == nil {
		return pc, nil
	}
	perFile := cmp.Or(max(cfg.MaxFileBytes, 0), defaultProjectFileBytes)
	budget := cmp.Or(max(cfg.MaxBytes, 0), defaultProjectBytes)
	names := cfg.Files
	if names == nil {
		names = defaultProjectFiles
	}
	var parts []string
	for _, name := range names {
		data, path, err := readBounded(fsys, name, perFile)
		if errors.Is(err, fs.ErrNotExist) && name == "README.md" && cfg.Files == nil {
			for _, alt := range readmeAlternatives {
				if data, path, err = readBounded(fsys, alt, perFile); !errors.Is(err, fs.ErrNotExist) {
					break
				}
			}
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errIsDir) {
			continue
		}
		if err != nil {
			return Project{}, fmt.Errorf("projectctx: reading %s: %w (fix its permissions, or leave it out with Config.Files)", name, err)
		}
		pf := event.ProjectFile{Path: path, Kind: projectFileKind(path), Bytes: len(data)}
		// A binary or mis-encoded file must not put invalid UTF-8 into the prompt.
		body, cut := strings.ToValidUTF8(string(data), "\uFFFD"), len(data) > perFile
		if pf.Kind == "manifest" {
			body, cut = summarizeManifest(path, data), false
		} else if cut {
			body = textcut.AtLine(body, perFile)
		}
		header := "## " + path
		if pf.Kind == "manifest" {
			header += " (summary)"
		}
		block := header + "\n" + strings.TrimRight(body, "\n")
		if len(block) > budget {
			if budget < 200 {
				pc.Files = append(pc.Files, event.ProjectFile{Path: path, Kind: pf.Kind, Bytes: len(data), Truncated: true})
				continue // no room left: listed, not shown
			}
			block, cut = textcut.AtLine(block, budget-100), true
		}
		if cut {
			block += fmt.Sprintf("\n[… %s is longer; read the file itself for the rest]", path)
			pf.Truncated = true
		}
		budget -= len(block) + 2
		parts = append(parts, block)
		pc.Files = append(pc.Files, pf)
	}
	pc.Text = strings.Join(parts, "\n\n")
	return pc, nil
}

var errIsDir = errors.New("is a directory")

// readBounded reads at most limit+1 bytes of name, so a caller can tell
// that the file was longer, without loading a huge file.
func readBounded(fsys fs.FS, name string, limit int) ([]byte, string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, name, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, name, errIsDir
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	return data, name, err
}

func projectFileKind(path string) string {
	switch path {
	case "go.mod", "package.json", "pyproject.toml", "Cargo.toml":
		return "manifest"
	}
	if strings.HasPrefix(strings.ToLower(path), "readme") {
		return "readme"
	}
	return "instructions"
}
