package terminal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults for a zero Config.
const (
	DefaultTimeout  = 2 * time.Minute
	MaxTimeout      = 30 * time.Minute
	DefaultHead     = 15
	DefaultTail     = 85
	DefaultMaxLine  = 2000
	killGrace       = 2 * time.Second // SIGTERM → SIGKILL, and how long to wait for pipes after exit
	maxStateBytes   = 1 << 20         // pwd + environment reported back by the shell
	stateFD         = 3
	stateSeparator  = "\x00--tether-env--\x00"
	leftoverWarning = "[processes the command left running were killed]"
)

// Errors, for errors.Is.
var (
	ErrEmptyCommand = errors.New("terminal: empty command")
	ErrOutsideRoot  = errors.New("terminal: working directory outside the workspace")
	ErrNoShell      = errors.New("terminal: no shell found")
)

// Config sets up a Shell. The zero value of every field but Root is usable.
type Config struct {
	// Root is the workspace root; commands start there.
	Root string
	// ResolveDir confines a working directory: it gets a path as the model
	// wrote it (relative to Root, or absolute) and returns the absolute,
	// symlink-resolved directory, or an error. Nil means a lexical check
	// after resolving symlinks; hosts pass the Workspace's Check(path,
	// OpChdir) through [builtin] so that one policy decides.
	ResolveDir func(dir string) (string, error)
	// Shell is the interpreter, run as `Shell -c script`; empty means bash,
	// or sh where bash is missing.
	Shell string
	// Env is added to the process environment of the first command; later
	// commands inherit the environment the previous one left (exports
	// persist within a session).
	Env []string
	// Timeout is the default per command; MaxTimeout caps what a model
	// may ask for. Zero means DefaultTimeout and MaxTimeout.
	Timeout, MaxTimeout time.Duration
	// Head and Tail are how many first and last lines of output are kept;
	// MaxLine cuts longer lines. Zero means 15, 85 and 2000.
	Head, Tail, MaxLine int
	// Sandbox, when set, prepares each command before it starts: it may
	// rewrite Path/Args (re-exec through a Landlock helper), set
	// SysProcAttr fields other than Setpgid, or refuse with an error.
	// This is the seam for safety's sandbox.
	Sandbox func(cmd *exec.Cmd) error
	// Logger records commands, timeouts and killed leftovers; nil means none.
	Logger *slog.Logger
}

// Shell runs commands for one agent session, one process group per
// command. The working directory and exported variables a command leaves
// behind carry over to the next one, as in a terminal, but each command is
// its own process: a timeout or cancellation kills exactly that command's
// process group, nothing can be left half-typed in a shared shell, and
// aliases and shell functions do not persist (write a script instead).
//
// A Shell is safe for concurrent use; commands run one at a time, in the
// order they arrive, because each may change the state the next starts in.
type Shell struct {
	cfg   Config
	shell string
	root  string

	mu  sync.Mutex // serialises commands; guards cwd and env
	cwd string
	env []string
}

// New returns a Shell for one session.
func New(cfg Config) (*Shell, error) {
	if cfg.Root == "" {
		return nil, errors.New("terminal: Config.Root is required")
	}
	root, err := filepath.EvalSymlinks(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("terminal: workspace root: %w", err)
	}
	root, _ = filepath.Abs(root)
	sh := cfg.Shell
	if sh == "" {
		sh = "bash"
		if _, err := exec.LookPath(sh); err != nil {
			sh = "sh"
		}
	}
	path, err := exec.LookPath(sh)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoShell, err)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = MaxTimeout
	}
	if cfg.Head <= 0 {
		cfg.Head = DefaultHead
	}
	if cfg.Tail <= 0 {
		cfg.Tail = DefaultTail
	}
	if cfg.MaxLine <= 0 {
		cfg.MaxLine = DefaultMaxLine
	}
	env := append(os.Environ(),
		// Keep output plain and never wait for a human: stdin is closed.
		"TERM=dumb", "NO_COLOR=1", "CLICOLOR=0", "PAGER=cat", "GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0", "DEBIAN_FRONTEND=noninteractive")
	env = append(env, bareRepositoryGuard(env)...)
	env = append(env, cfg.Env...)
	return &Shell{cfg: cfg, shell: path, root: root, cwd: root, env: env}, nil
}

// Command is one command to run.
type Command struct {
	Command string
	// Dir is the working directory for this command, relative to the
	// workspace root or absolute inside it; empty means where the previous
	// command left off (initially the root).
	Dir string
	// Timeout overrides the default, capped at MaxTimeout.
	Timeout time.Duration
}

// Result is what a command did.
type Result struct {
	Output   string        // kept lines, escapes stripped, truncation marked
	Lines    int           // total lines printed
	Bytes    int64         // total bytes printed
	Omitted  int           // lines dropped between head and tail
	ExitCode int           // -1 when killed by a signal or never exited
	Signal   string        // the signal that ended it, if any
	TimedOut bool          // the timeout fired and the group was killed
	Canceled bool          // ctx was cancelled and the group was killed
	Leftover bool          // processes outlived it (or escaped its killed group) and were killed
	Dir      string        // absolute directory it ran in
	DirReset string        // why the next command starts at the root although this one cd'd elsewhere
	Elapsed  time.Duration // wall time
}

// Cwd is where the next command starts.
func (s *Shell) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// Root is the workspace root, symlinks resolved.
func (s *Shell) Root() string { return s.root }

func (s *Shell) resolveDir(dir string) (string, error) {
	if s.cfg.ResolveDir != nil {
		return s.cfg.ResolveDir(dir)
	}
	p := dir
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.root, p)
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("terminal: working directory %q: %w", dir, err)
	}
	if r != s.root && !strings.HasPrefix(r, s.root+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q resolves to %s", ErrOutsideRoot, dir, r)
	}
	return r, nil
}

// Run runs one command and waits for it, its timeout, or ctx. It returns an
// error only when the command could not start; a failing command is a
// Result with its exit code.
func (s *Shell) Run(ctx context.Context, c Command) (Result, error) {
	if strings.TrimSpace(c.Command) == "" {
		return Result{}, ErrEmptyCommand
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	dir := s.cwd
	if c.Dir != "" {
		d, err := s.resolveDir(c.Dir)
		if err != nil {
			return Result{}, err
		}
		dir = d
	} else if _, err := os.Stat(dir); err != nil {
		dir = s.root // the directory was removed since
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = s.cfg.Timeout
	}
	timeout = min(timeout, s.cfg.MaxTimeout)

	out := NewOutput(s.cfg.Head, s.cfg.Tail, s.cfg.MaxLine)
	stateR, stateW, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("terminal: %w", err)
	}
	defer stateR.Close()

	// The EXIT trap reports where the command left the shell and what it
	// exported, on fd 3, whatever way the script ends (exit, error, end).
	script := `trap '__tether_rc=$?; { pwd -P; printf "` + `\0--tether-env--\0` + `"; env -0; } >&3 2>/dev/null; exit $__tether_rc' EXIT` + "\n" + c.Command
	cmd := exec.Command(s.shell, "-c", script)
	cmd.Dir = dir
	tracked, marker := newEscapees()
	cmd.Env = append(slices.Clone(s.env), marker)
	cmd.Stdin = nil // /dev/null: a command waiting for input gets EOF
	w, stopLive := startLive(ctx, out)
	defer stopLive()
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.ExtraFiles = []*os.File{stateW}
	cmd.WaitDelay = killGrace
	if s.cfg.Sandbox != nil {
		if err := s.cfg.Sandbox(cmd); err != nil {
			stateW.Close()
			return Result{}, fmt.Errorf("terminal: sandbox refused the command: %w", err)
		}
	}
	newGroup(cmd) // its own group, so a kill reaches every child

	start := time.Now()
	if err := cmd.Start(); err != nil {
		stateW.Close()
		return Result{}, fmt.Errorf("terminal: starting %s: %w", s.shell, err)
	}
	stateW.Close() // the child holds its copy
	pgid := cmd.Process.Pid
	tracked.watch(pgid)

	state := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(stateR, maxStateBytes))
		io.Copy(io.Discard, stateR) // keep draining so the child never blocks
		state <- b
	}()

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()

	res := Result{Dir: dir}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var werr error
	select {
	case werr = <-waitErr:
	case <-timer.C:
		res.TimedOut = true
		werr = s.stop(pgid, waitErr)
	case <-ctx.Done():
		res.Canceled = true
		werr = s.stop(pgid, waitErr)
	}
	// Whatever is still running outlived the command: a background job,
	// a daemon that called setsid, an orphan of a double fork. Nothing may
	// outlive a command; after a timeout or cancellation the group is
	// already dead, so what is found here escaped it.
	res.Leftover = tracked.kill() > 0
	res.Elapsed = time.Since(start)
	stopLive() // Wait has returned: no more writes to out

	res.ExitCode = -1
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
		res.Signal = signalOf(ps)
	}
	if werr != nil && cmd.ProcessState == nil {
		res.Signal = werr.Error()
	}
	res.Output = out.String()
	res.Lines, res.Bytes, res.Omitted = out.Lines(), out.Bytes(), out.Omitted()

	var st []byte
	select {
	case st = <-state:
	case <-time.After(killGrace):
	}
	if !res.TimedOut && !res.Canceled {
		res.DirReset = s.adopt(st, c.Dir != "", dir)
	}
	if s.cfg.Logger != nil {
		s.cfg.Logger.Info("terminal command", "command", c.Command, "dir", dir, "exit", res.ExitCode,
			"timed_out", res.TimedOut, "canceled", res.Canceled, "leftover_killed", res.Leftover, "elapsed", res.Elapsed)
	}
	return res, nil
}

// stop ends a running command: SIGTERM to the group so tools can clean up,
// SIGKILL after killGrace.
func (s *Shell) stop(pgid int, waitErr <-chan error) error {
	terminateGroup(pgid)
	select {
	case err := <-waitErr:
		return err
	case <-time.After(killGrace):
	}
	killGroup(pgid)
	return <-waitErr // WaitDelay bounds this: pipes are closed after it
}

// adopt takes the directory and environment the command left behind. A
// directory the workspace refuses is not adopted: the next command starts
// at the root instead, and adopt says why.
func (s *Shell) adopt(st []byte, explicitDir bool, ranIn string) (reset string) {
	pwd, env, ok := bytes.Cut(st, []byte(stateSeparator))
	if !ok {
		return "" // the trap did not run (exec, kill, overridden trap): keep the state
	}
	if d := strings.TrimSpace(string(pwd)); d != "" && !(explicitDir && d == ranIn) {
		if r, err := s.resolveDir(d); err == nil {
			s.cwd = r
		} else {
			if s.cfg.Logger != nil {
				s.cfg.Logger.Warn("terminal: working directory refused; next command starts at the root", "dir", d, "reason", err)
			}
			s.cwd = s.root
			reset = err.Error()
		}
	}
	var vars []string
	for _, kv := range bytes.Split(env, []byte{0}) {
		k, _, ok := bytes.Cut(kv, []byte("="))
		if !ok || len(k) == 0 {
			continue
		}
		switch string(k) {
		case "PWD", "OLDPWD", "SHLVL", "_", "__tether_rc", runMarker:
			continue
		}
		vars = append(vars, string(kv))
	}
	if len(vars) > 0 {
		s.env = vars
	}
	return reset
}

// bareRepositoryGuard sets git's safe.bareRepository=explicit for every
// command, as command-line configuration (the only place git reads it
// from besides the user's own files): a directory a command wrote HEAD,
// config, objects/ and refs/ into is otherwise a repository to git, and
// a later `git status` there runs its core.fsmonitor. The entries are
// appended after any GIT_CONFIG_COUNT the host already set.
func bareRepositoryGuard(env []string) []string {
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c > 0 {
				n = c
			}
		}
	}
	i := strconv.Itoa(n)
	return []string{
		"GIT_CONFIG_KEY_" + i + "=safe.bareRepository",
		"GIT_CONFIG_VALUE_" + i + "=explicit",
		"GIT_CONFIG_COUNT=" + strconv.Itoa(n+1),
	}
}
