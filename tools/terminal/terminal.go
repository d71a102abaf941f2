package terminal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetherdev/tether/safety"
)

// Defaults for a zero Config.
const (
	DefaultTimeout  = 2 * time.Minute
	MaxTimeout      = 30 * time.Minute
	DefaultHead     = 15
	DefaultTail     = 85
	DefaultMaxLine  = 2000
	killGrace       = 2 * time.Second // SIGTERM → SIGKILL, and how long to wait for pipes after exit
	maxStateBytes   = 1 << 20         // the environment reported back by the shell
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
	// Env is set for every command, over anything a command exported
	// ("NAME=value" entries). Like the other guards it is never replaced by
	// what a command leaves behind.
	Env []string
	// HostEnv is the environment commands are composed from; nil means
	// this process's (os.Environ). Only the allow-listed variables of it
	// reach a command: home, PATH, user, shell, TMPDIR, locale (LANG,
	// LC_*) and language toolchain locations (GOPATH, GOROOT, GOFLAGS,
	// CARGO_HOME, RUSTUP_HOME, JAVA_HOME, NODE_PATH, PYTHONPATH,
	// VIRTUAL_ENV, …), plus PassEnv.
	HostEnv []string
	// PassEnv names further host variables commands get: exact names, or
	// prefixes ending in "*" ("MYAPP_*"). Unlike Codex's
	// shell_environment_policy, whose default inherits the whole
	// environment and drops only names matching *KEY*, *SECRET* and
	// *TOKEN*, nothing passes here unless it is allow-listed or named,
	// so a DSN or token under any other name stays with the host. Values
	// of host variables that look like secrets are also redacted from
	// output (see Redactor).
	PassEnv []string
	// JudgeExport decides whether a variable a command left set or
	// changed is carried to the next command; an error drops it and is
	// reported to the model. Nil means safety's judgement of an explicit
	// `export NAME=value`: carried only when rated harmless with nothing
	// unvetted.
	JudgeExport func(name, value string) error
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
	// Contain, when set, puts each command in a kill domain that outlives
	// the shell (safety.KillDomain.Wrap, whose own Sandbox then confines
	// it; Sandbox must be nil). It gets the command with one extra file,
	// the descriptor the shell's final state is reported on, and must
	// keep it away from the command. Without it, the shell itself is
	// killed when the agent dies but what it started is not.
	Contain func(cmd *exec.Cmd) error
	// Domain, when set, keeps each command in a kill domain as Contain
	// with Domain.Wrap does, by the cheapest means that holds as well:
	// where commands get cgroups of their own (see NoCgroup) and
	// Domain.Sandbox can confine on this system, a command starts
	// confined from a thread of this process (safety.Sandbox.Start), with
	// no helper process: its cgroup is its kill domain, a confined command
	// cannot leave it, and the cgroup watchdog ends it if this process
	// dies. Otherwise the command runs under Domain's helper. Contain and
	// Sandbox must then be nil.
	Domain *safety.KillDomain
	// NoCgroup keeps commands out of cgroups of their own. By default,
	// wherever this process may make cgroup v2 children
	// (safety.CgroupAvailable), each command starts in a
	// safety.CommandCgroup, which is killed when the command ends: the
	// strongest of the guards, which holds a process that kills its
	// helper, leaves its session and clears its environment, with or
	// without Contain.
	NoCgroup bool
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

	layers  envLayers
	stopper string // the report trap's self-stopping command
	marker  string // the process marker's prefix: workspace and agent
	// recovered describes processes an earlier run in this workspace
	// left running, which New ended.
	recovered []string
	redact    *fileRedactor // host and file secrets kept out of output
	// noCgroup says why commands are not placed in cgroups of their
	// own; nil when they are.
	noCgroup error
	// contain wraps each command in a kill-domain helper (Contain, or
	// Domain.Wrap); confine starts it confined without one (Domain's
	// Sandbox, with a cgroup in force). At most one is set.
	contain func(cmd *exec.Cmd) error
	confine *safety.Sandbox

	mu  sync.Mutex // serialises commands; guards cwd and env
	cwd string
	env []string // the carried state: allow-listed base plus judged exports
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
	if cfg.Contain != nil && cfg.Sandbox != nil {
		return nil, errors.New("terminal: set Config.Contain or Config.Sandbox, not both: the kill domain applies its own sandbox")
	}
	if cfg.Domain != nil && (cfg.Contain != nil || cfg.Sandbox != nil) {
		return nil, errors.New("terminal: set Config.Domain alone, without Contain or Sandbox: the kill domain applies its own sandbox")
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
	host := hostEnv(cfg)
	base, layers := newEnvLayers(cfg, host)
	killPath, _ := exec.LookPath("kill")
	noCgroup := errors.New("Config.NoCgroup is set")
	if !cfg.NoCgroup {
		noCgroup = safety.CgroupAvailable()
	}
	recovered := recoverLeftovers(root)
	if noCgroup == nil {
		if n := safety.EndStaleCgroups(); n > 0 {
			recovered = append(recovered, fmt.Sprintf("%d processes in the cgroups of commands whose agent had died", n))
		}
	}
	if len(recovered) > 0 && cfg.Logger != nil {
		cfg.Logger.Warn("terminal: ended processes a previous run of this workspace left running", "processes", recovered)
	}
	shell := &Shell{cfg: cfg, shell: path, root: root, cwd: root, env: base, layers: layers,
		stopper: stopperFor(killPath, path), marker: markerPrefix(root), recovered: recovered,
		redact: newFileRedactor(root, host), noCgroup: noCgroup}
	if d := cfg.Domain; d != nil {
		shell.contain = d.Wrap
		if noCgroup == nil && d.Sandbox != nil && d.Sandbox.Available() == nil {
			shell.contain, shell.confine = nil, d.Sandbox
		}
	} else {
		shell.contain = cfg.Contain
	}
	return shell, nil
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
	Dropped  []Dropped     // variables the command set that the next command does not get
	Elapsed  time.Duration // wall time
}

// Cwd is where the next command starts.
func (s *Shell) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// Recovered describes the processes that commands of an earlier run in
// this workspace left running after their agent died, which New ended
// ("pid 123 (sleep)"); nil when there were none.
func (s *Shell) Recovered() []string { return s.recovered }

// CgroupGuard says whether each command runs in a cgroup of its own
// (nil), or why not; without one, the kill-domain helper (Config.Contain)
// or else the terminal's own process tracking is the guard.
func (s *Shell) CgroupGuard() error { return s.noCgroup }

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
	cmd := exec.Command(s.shell, "-c", reportTrap(s.stopper)+c.Command)
	cmd.Dir = dir
	tracked, marker := newEscapees(s.marker)
	cmd.Env = s.layers.compose(s.env, marker)
	cmd.Stdin = nil // /dev/null: a command waiting for input gets EOF
	redact := s.redact.redactor()
	w, stopLive := startLive(ctx, out, redact)
	defer stopLive()
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.WaitDelay = killGrace
	var reportR, reportW *os.File
	switch {
	case s.confine != nil:
		// Started below by the sandbox, in the cgroup; no parent-death
		// signal (the starting thread ends at once): the cgroup watchdog
		// ends the command if this process dies.
	case s.contain != nil:
		r, w, err := os.Pipe()
		if err != nil {
			return Result{}, fmt.Errorf("terminal: %w", err)
		}
		defer r.Close()
		reportR, reportW = r, w
		cmd.ExtraFiles = []*os.File{w}
		if err := s.contain(cmd); err != nil {
			w.Close()
			return Result{}, fmt.Errorf("terminal: the kill domain refused the command: %w", err)
		}
	case s.cfg.Sandbox != nil:
		if err := s.cfg.Sandbox(cmd); err != nil {
			return Result{}, fmt.Errorf("terminal: sandbox refused the command: %w", err)
		}
		tieToAgent(cmd)
	default:
		tieToAgent(cmd)
	}
	newGroup(cmd) // its own group, so a kill reaches every child
	var cg *safety.CommandCgroup
	if s.noCgroup == nil {
		var err error
		if cg, err = safety.NewCommandCgroup(); err != nil {
			if reportW != nil {
				reportW.Close()
			}
			return Result{}, fmt.Errorf("terminal: %w", err)
		}
		cg.Place(cmd)
		tracked.also = cg.Kill
	}

	start := time.Now()
	var err error
	if s.confine != nil {
		err = s.confine.Start(cmd)
	} else {
		err = cmd.Start()
	}
	if reportW != nil {
		reportW.Close() // the helper holds its copy
	}
	if err != nil {
		if cg != nil {
			cg.Kill()
		}
		return Result{}, fmt.Errorf("terminal: starting %s: %w", s.shell, err)
	}
	pgid := cmd.Process.Pid
	tracked.watch(pgid)

	state := make(chan shellState, 1)
	if reportR != nil {
		go func() { state <- readDomainReport(reportR) }()
	} else {
		go func() { state <- awaitReport(pgid, tracked.snapshot) }()
	}

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
	if cg != nil && cg.Kill() > 0 {
		res.Leftover = true
	}
	res.Elapsed = time.Since(start)
	stopLive() // Wait has returned: no more writes to out

	var st shellState
	select {
	case st = <-state: // Wait has returned, so has the waitid behind it
	case <-time.After(killGrace):
	}
	res.ExitCode = -1
	if ps := cmd.ProcessState; ps != nil {
		res.ExitCode = ps.ExitCode()
		res.Signal = signalOf(ps)
	}
	if werr != nil && cmd.ProcessState == nil {
		res.Signal = werr.Error()
	}
	if st.leftover > 0 {
		res.Leftover = true
	}
	if st.ok && !res.TimedOut && !res.Canceled {
		// The shell ended in its report, which this process then killed:
		// the command's own status is the one the trap recorded.
		res.ExitCode, res.Signal = st.rc, ""
		res.DirReset, res.Dropped = s.adopt(st, c.Dir != "", dir)
	}
	// Read again: the command may have written a secret file and printed it.
	res.Output = s.redact.redactor().Redact(out.String())
	res.Lines, res.Bytes, res.Omitted = out.Lines(), out.Bytes(), out.Omitted()

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
// at the root instead, and adopt says why. Variables are adopted as a
// judged diff (envLayers.diff).
func (s *Shell) adopt(st shellState, explicitDir bool, ranIn string) (reset string, dropped []Dropped) {
	if d := st.dir; d != "" && !(explicitDir && d == ranIn) {
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
	s.env, dropped = s.layers.diff(s.env, st.env)
	if len(dropped) > 0 && s.cfg.Logger != nil {
		s.cfg.Logger.Info("terminal: variables not carried to the next command", "dropped", dropped)
	}
	return reset, dropped
}
