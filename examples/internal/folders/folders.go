// Package folders gives the agent examples their repeatable -folder flag:
// further roots of a multi-root workspace, as an editor opens several
// folders side by side. Each becomes a safety.WithFolder option, so every
// file tool, every attachment and every @file completion reaches it by its
// name ("lib/util.go") through the one Workspace that confines paths, and
// a path that leaves a folder is refused there as it is in the primary
// root.
package folders

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// Usage is the help text of the -folder flag.
const Usage = "add a further root to the workspace as `[NAME=]DIR` (repeatable); the agent names its files NAME/… (NAME defaults to DIR's base name)"

// Folder is one further root: the name tools use for it and its directory.
type Folder struct{ Name, Dir string }

// Flag collects -folder values in the order given. Its zero value is an
// empty list, ready for flag.FlagSet.Var.
type Flag []Folder

var _ flag.Value = (*Flag)(nil)

func (f *Flag) String() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(*f))
	for i, x := range *f {
		parts[i] = x.Name + "=" + x.Dir
	}
	return strings.Join(parts, ",")
}

// Set parses one value, "NAME=DIR" or "DIR". DIR is made absolute now, so
// that it means the directory the user named whatever the process's
// current directory is later. A missing directory or a name that is not
// one path segment is an error here, at flag parsing, not at the first
// tool call; overlaps between roots are refused when the workspace opens.
func (f *Flag) Set(v string) error {
	name, dir, named := strings.Cut(v, "=")
	if !named {
		name, dir = "", v
	}
	if dir == "" {
		return errors.New("want [NAME=]DIR")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if !named {
		name = filepath.Base(abs)
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("the folder name %q must be a single path segment (write NAME=DIR)", name)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return err // names the directory
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", abs)
	}
	for _, x := range *f {
		if x.Name == name {
			return fmt.Errorf("a folder is already named %q (write NAME=DIR to pick another name)", name)
		}
	}
	*f = append(*f, Folder{Name: name, Dir: abs})
	return nil
}

// Options are the workspace options that add the folders.
func (f Flag) Options() []safety.WorkspaceOption {
	opts := make([]safety.WorkspaceOption, len(f))
	for i, x := range f {
		opts[i] = safety.WithFolder(x.Name, x.Dir)
	}
	return opts
}

// Dirs are the folders' directories, for a sandbox that must let commands
// write in every root, not only the primary one.
func (f Flag) Dirs() []string {
	dirs := make([]string, len(f))
	for i, x := range f {
		dirs[i] = x.Dir
	}
	return dirs
}
