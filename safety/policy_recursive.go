package safety

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Commands that read whole directory trees (`grep -r TOKEN .`, `cp -r .
// /tmp/x`, `tar czf out.tgz .`) read every secret below them, though no
// argument names one. The policy finds such commands and looks for secrets
// under the directories they read.

// defaultSecretScanLimit is Policy.SecretScanLimit's zero value.
const defaultSecretScanLimit = 10000

// skipScan are directories a scan does not descend into: large, and holding
// no files the secret rules name. (.git is sensitive, not secret.)
var skipScan = []string{".git", "node_modules"}

// recursiveReads returns the directory operands a sub-command reads
// recursively, with "." for the implicit working directory of `grep -r x`
// and `rg --hidden x`; nil when the command is not a recursive reader.
func recursiveReads(c Command) []string {
	base := path.Base(c.Name)
	// Short options that take the next argument as their value, so that
	// value is not mistaken for a directory.
	valueFlags := map[string]string{
		"grep": "efmABCdD", "egrep": "efmABCdD", "fgrep": "efmABCdD", "zgrep": "efmABCdD",
		"rg": "efgtTmABCjMrE", "ag": "efgGmABCp", "ack": "mABC",
		"tar": "fCTXbgHKLNV", "zip": "bnt", "cp": "St", "scp": "cFiJlPoS", "rsync": "efT",
	}[base]
	var flags, operands []string
	patternGiven := false // -e/-f gave the pattern: every operand is a path
	for i := 0; i < len(c.Args); i++ {
		a := c.Args[i]
		if a == "--" {
			operands = append(operands, c.Args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			operands = append(operands, a)
			continue
		}
		flags = append(flags, a)
		if strings.HasPrefix(a, "--") {
			if a == "--regexp" || a == "--file" || strings.HasPrefix(a, "--regexp=") || strings.HasPrefix(a, "--file=") {
				patternGiven = true
			}
			if (a == "--regexp" || a == "--file") && i+1 < len(c.Args) {
				i++
			}
			continue
		}
		for j, r := range a[1:] {
			if r == 'e' || r == 'f' {
				patternGiven = true
			}
			if strings.ContainsRune(valueFlags, r) {
				if j == len(a)-2 && i+1 < len(c.Args) {
					i++ // "-e PATTERN": the value is the next argument
				}
				break // "-ePATTERN": the rest of the cluster is the value
			}
		}
	}
	short := func(letters string) bool {
		return slices.ContainsFunc(flags, func(f string) bool {
			return !strings.HasPrefix(f, "--") && strings.ContainsAny(f[1:], letters)
		})
	}
	long := func(names ...string) bool {
		return slices.ContainsFunc(flags, func(f string) bool {
			for _, n := range names {
				if f == n || strings.HasPrefix(f, n+"=") {
					return true
				}
			}
			return false
		})
	}
	implicitDot := false
	if base == "git" {
		return gitGrepReads(c.Args)
	}
	switch base {
	case "grep", "egrep", "fgrep", "zgrep":
		if !short("rR") && !long("--recursive", "--dereference-recursive", "--directories=recurse") {
			return nil
		}
		implicitDot = true
		if len(operands) > 0 && !patternGiven {
			operands = operands[1:] // the first operand is the pattern
		}
	case "rg", "ag":
		// Both skip hidden files (.env, .ssh) unless told otherwise.
		if !short("u.") && !long("--hidden", "--no-ignore", "--unrestricted", "--all-types") {
			return nil
		}
		implicitDot = true
		if len(operands) > 0 && !patternGiven {
			operands = operands[1:]
		}
	case "ack":
		implicitDot = true
		if len(operands) > 0 {
			operands = operands[1:]
		}
	case "cp", "scp", "rsync":
		if !short("rRa") && !long("--recursive", "--archive") {
			return nil
		}
	case "zip":
		if !short("r") && !long("--recurse-paths") {
			return nil
		}
	case "tar":
		create := long("--create") || slices.ContainsFunc(flags, func(f string) bool {
			return !strings.HasPrefix(f, "--") && strings.Contains(f, "c")
		})
		if len(operands) > 0 && !strings.HasPrefix(c.Args[0], "-") && strings.Contains(operands[0], "c") {
			create = true // old-style bundled "czf"
			operands = operands[1:]
		}
		if !create {
			return nil
		}
	default:
		return nil
	}
	if len(operands) == 0 && implicitDot {
		return []string{"."}
	}
	return operands
}

// recursiveSecrets adds Confirm for every recursive reader in the line that
// would read a secret below a directory it names.
func (p *Policy) recursiveSecrets(s *signals, an CommandAnalysis, bases []string) {
	for _, c := range an.Commands {
		for _, operand := range recursiveReads(c) {
			if strings.ContainsAny(operand, "$`") {
				continue // run-time values are runtimePaths' concern
			}
			for _, base := range bases {
				pc := p.Workspace.Check(joinBase(base, operand), OpRead)
				if pc.Decision == Deny || !pc.Exists {
					continue // outside or missing: the path checks speak for it
				}
				if fi, err := os.Stat(pc.Resolved); err != nil || !fi.IsDir() {
					continue
				}
				found, err := p.secretUnder(pc.Rel)
				switch {
				case err != nil:
					s.add(Confirm, fmt.Sprintf("%s reads everything under %s; %v", c.Name, operand, err))
				case found != "":
					m := p.Workspace.sens.Match(found)
					s.add(Confirm, fmt.Sprintf("%s reads everything under %s, including %s: %s", c.Name, operand, found, m.Reason()))
				}
			}
		}
	}
}

// secretUnder returns the first secret file below the workspace directory
// rel ("" when there is none), looking through symlinks by resolving them.
func (p *Policy) secretUnder(rel string) (string, error) {
	return p.findSecret(rel, func(string, fs.DirEntry) bool { return true })
}

// findSecret walks the workspace directory rel for the first secret that
// accept takes, within SecretScanLimit entries (an error beyond it: the
// scan cannot rule a secret out).
func (p *Policy) findSecret(rel string, accept func(name string, d fs.DirEntry) bool) (string, error) {
	w := p.Workspace
	limit := p.SecretScanLimit
	if limit <= 0 {
		limit = defaultSecretScanLimit
	}
	errScanLimit := fmt.Errorf("more than %d entries, too many to rule out secrets", limit)
	seen := 0
	var found string
	err := fs.WalkDir(w.FS(), rel, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable or escaping: grep cannot read it either
		}
		if seen++; seen > limit {
			return errScanLimit
		}
		if d.IsDir() && name != rel && slices.Contains(skipScan, d.Name()) {
			return fs.SkipDir
		}
		secret := w.sens.Match(name).Secret
		if !secret && d.Type()&fs.ModeSymlink != 0 {
			secret = w.Check(name, OpRead).Secret
		}
		if secret && accept(name, d) {
			found = name
			return fs.SkipAll
		}
		return nil
	})
	if errors.Is(err, errScanLimit) {
		return "", err
	}
	return filepath.ToSlash(found), nil
}

// hardLinkedSecret adds a confirmation when pc, a file read under a name
// that is not secret, is a hard link to a secret in the workspace: `ln
// .env notes.txt` made earlier lets `cat notes.txt` print .env.
func (p *Policy) hardLinkedSecret(s *signals, pc PathCheck, op Op, who string) {
	if op != OpRead || !pc.HardLinked || pc.Secret || pc.Decision == Deny {
		return
	}
	twin, err := p.secretTwin(pc.Resolved)
	switch {
	case err != nil:
		s.add(Confirm, fmt.Sprintf("%sreads %s, which has other names (hard links); %v", who, pc.Rel, err))
	case twin != "":
		s.add(Confirm, fmt.Sprintf("%sreads %s, a hard link to the secret %s", who, pc.Rel, twin))
	}
}

// secretTwin returns a secret file of the workspace that is the same file
// as resolved (a hard link to it), or "".
func (p *Policy) secretTwin(resolved string) (string, error) {
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", nil
	}
	root := p.Workspace.root
	return p.findSecret(".", func(name string, d fs.DirEntry) bool {
		other, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
		return d.Type().IsRegular() && err == nil && os.SameFile(fi, other)
	})
}

// gitGrepReads returns "." for a git grep that searches more than the
// tracked files: --no-index, or --untracked with --no-exclude-standard,
// reach .env and the other ignored secrets.
func gitGrepReads(args []string) []string {
	if len(args) == 0 || args[0] != "grep" {
		return nil
	}
	untracked, unexcluded := false, false
	for _, a := range args[1:] {
		switch a {
		case "--no-index":
			return []string{"."}
		case "--untracked":
			untracked = true
		case "--no-exclude-standard":
			unexcluded = true
		case "--":
			return nil
		}
	}
	if untracked && unexcluded {
		return []string{"."}
	}
	return nil
}
