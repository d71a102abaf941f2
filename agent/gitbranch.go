package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// GitBranch creates a git branch for each session, so the
// agent's work can be reviewed and merged, or dropped, as a whole. The
// first run of an Executor creates it; later runs continue on it (and
// switch back to it if the user left it), and the uncommitted changes
// there are the session's own, not a dirty tree to refuse.
type GitBranch struct {
	// Prefix starts the branch name; "tether/" when empty. The rest is
	// the run's time and a slug of the prompt: tether/20260322-1504-fix-the-parser.
	Prefix string
	// AllowDirty branches even when the work tree has uncommitted
	// changes, which then travel to the new branch. By default a dirty
	// tree is refused with ErrDirtyTree, so the agent's changes never mix
	// with the user's.
	AllowDirty bool
	// Git is the git executable; "git" when empty.
	Git string
}

// gitRunner runs git in a directory and returns its trimmed stdout.
type gitRunner func(ctx context.Context, dir string, args ...string) (string, error)

func execGit(bin string) gitRunner {
	if bin == "" {
		bin = "git"
	}
	return func(ctx context.Context, dir string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
}

// sessionBranch is the branch an Executor's session works on, once made.
type sessionBranch struct {
	mu         sync.Mutex
	name, base string
}

// branchCreator makes the session branch.
type branchCreator struct {
	cfg    GitBranch
	git    gitRunner
	now    func() time.Time
	logger *slog.Logger
}

// ensure puts the work tree on the session's branch: it creates the branch
// on the session's first run and returns to it on later ones.
func (b *branchCreator) ensure(ctx context.Context, s *sessionBranch, dir, prompt string) (name, base string, continued bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.name == "" {
		name, base, err = b.create(ctx, dir, prompt)
		if err == nil {
			s.name, s.base = name, base
		}
		return name, base, false, err
	}
	cur, err := b.git(ctx, dir, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return "", "", false, err
	}
	if cur != s.name {
		// The user switched away between runs; git refuses the switch if
		// their changes there would be overwritten, and so do we.
		if _, err := b.git(ctx, dir, "switch", s.name); err != nil {
			return "", "", false, fmt.Errorf("agent: returning to the session branch %s from %s: %w", s.name, cur, err)
		}
		b.logger.Info("agent: returned to the session branch", "branch", s.name, "from", cur)
	}
	return s.name, s.base, true, nil
}

// create checks the tree and switches to a new branch, returning its
// name and the branch (or commit) it started from.
func (b *branchCreator) create(ctx context.Context, dir, prompt string) (name, base string, err error) {
	if out, err := b.git(ctx, dir, "rev-parse", "--is-inside-work-tree"); err != nil || out != "true" {
		return "", "", fmt.Errorf("%w (%s)", ErrNotGitRepo, dir)
	}
	status, err := b.git(ctx, dir, "status", "--porcelain")
	if err != nil {
		return "", "", err
	}
	if status != "" && !b.cfg.AllowDirty {
		return "", "", fmt.Errorf("%w:\n%s", ErrDirtyTree, excerpt(status, 500))
	}
	base, err = b.git(ctx, dir, "rev-parse", "--abbrev-ref", "HEAD")
	if err != nil {
		return "", "", err
	}
	prefix := b.cfg.Prefix
	if prefix == "" {
		prefix = "tether/"
	}
	name = prefix + b.now().UTC().Format("20060102-150405")
	if s := slug(prompt); s != "" {
		name += "-" + s
	}
	if _, err := b.git(ctx, dir, "check-ref-format", "--branch", name); err != nil {
		return "", "", fmt.Errorf("agent: branch name %q is not valid: %w", name, err)
	}
	if _, err := b.git(ctx, dir, "switch", "-c", name); err != nil {
		return "", "", err
	}
	b.logger.Info("agent: created session branch", "branch", name, "base", base, "dirty", status != "")
	return name, base, nil
}

var nonSlug = lazyregexp.New(`[^a-z0-9]+`)

// slug makes a short branch-safe name from the first words of a prompt.
func slug(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
		if i := strings.LastIndexByte(s, '-'); i > 20 {
			s = s[:i]
		}
	}
	return s
}
