package safety

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tetherdev/tether/internal/sandboxhelper"
)

// ErrSandboxUnavailable: the operating system cannot confine commands
// (not Linux, Landlock missing or disabled, or too old for what was asked).
// The error text says which, and what would fix it.
var ErrSandboxUnavailable = errors.New("sandbox unavailable")

// sandboxEnv carries the confinement request from Sandbox.Wrap to the
// re-executed helper (package internal/sandboxhelper).
const sandboxEnv = sandboxhelper.Env

// hasRequest reports whether env already carries a helper request.
func hasRequest(env []string) bool {
	return slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, sandboxEnv+"=") })
}

// Sandbox confines commands an agent runs with Linux Landlock: they may read
// and execute anything the user can, but write only under Writable, and,
// with DenyNetwork, open no TCP connections. Static command analysis cannot
// see what a script or interpreter will do; the sandbox is the boundary
// that holds anyway.
//
// # How it runs
//
// Landlock restricts the process that asks for it and everything it starts
// afterwards, and can never be lifted. A library cannot confine a child
// between fork and exec in Go, so Wrap rewrites an *exec.Cmd to start a
// helper first: by default the host's own executable, re-executed with a
// request in its environment. The helper applies the restrictions to
// itself and then execs the real command, which inherits them. The host
// process itself is never restricted.
//
// Any program that imports safety is a helper: the package that does the
// helper's work recognises the request while the program initialises,
// and Go initialises it as soon as the few standard packages it imports
// are, before the host's own packages and most of their dependencies. A
// helper therefore costs a command the Go runtime's start and its own
// work, whatever the host links, and the host calls nothing. There is
// nothing extra to install or find on PATH, and the helper is always the
// same version as the library.
//
// # Limits
//
// Reads are left open apart from Unreadable (the user's logins by
// default): compilers, interpreters and tools read all over the system,
// and secrets in the workspace are guarded by the Policy before a command
// runs. Landlock does not restrict descriptors that
// are already open (the command's stdout pipe, say). Many tools need a
// writable temporary directory: give the command a private one in Writable
// and point TMPDIR at it, rather than making all of /tmp writable.
// Network restriction covers TCP
// only up to Landlock ABI 9 (UDP from ABI 10; Unix sockets are governed
// by the file rules from ABI 9). Signals and abstract Unix sockets to
// processes outside the sandbox are refused from ABI 6, so a confined
// command cannot kill the agent. Tracing processes outside, and reading
// their /proc files (the agent's environment), is refused unless the
// command has CAP_SYS_PTRACE, as root does: run agents as root and
// confined commands can read the agent's environment.
type Sandbox struct {
	// Writable lists the directories commands may create, change and
	// delete files in, typically the workspace root plus a private
	// temporary directory. Everything else is read-only. Paths must be
	// absolute and exist.
	Writable []string
	// Unreadable lists files and directories commands may not read,
	// list the inside of, or run from, though everything else stays
	// readable: logins a build never needs, so that no command (a
	// compiler told to #include a key, a test that prints a file) can
	// show them. Workspace.NewSandbox fills it with HomeLogins. Paths
	// must be absolute; links are resolved; missing paths and paths
	// inside a Writable directory are left readable (the Policy guards
	// those before a command runs). Another hard link to a hidden file,
	// or another mount of its directory, is not hidden.
	Unreadable []string
	// DenyNetwork refuses outgoing TCP connections and listening sockets.
	DenyNetwork bool
	// BestEffort makes Wrap run the command unconfined, logging a
	// warning, when the kernel cannot sandbox it; by default Wrap fails
	// with ErrSandboxUnavailable so nothing runs with less protection than
	// the host asked for. On Linux the unconfined command still starts
	// through the helper, which makes it a child subreaper: whatever it
	// starts stays in its process tree, where the terminal kills it.
	BestEffort bool
	// Helper is the executable re-executed as the helper, any program
	// that imports safety; default: this program (os.Executable).
	Helper string
	// HelperArgs are passed to the helper before the command's own
	// arguments. A helper never parses them (it works before main
	// runs); they only show in process listings. Usually empty.
	HelperArgs []string
	// Logger receives warnings about degraded confinement, once per
	// process for each logger and reason (repeats are logged at Debug);
	// nil means no logging (Available and Missing report the same to the
	// caller).
	Logger *slog.Logger

	// probe replaces the kernel probe in tests, abi the ABI it reports.
	probe func(network bool) error
	abi   int
}

// NewSandbox returns a Sandbox that lets commands write only inside the
// workspace and the given extra directories (a private TMPDIR, a build
// cache), and read none of the user's logins (HomeLogins of $HOME).
func (w *Workspace) NewSandbox(extraWritable ...string) *Sandbox {
	home, _ := os.UserHomeDir()
	return &Sandbox{Writable: append([]string{w.root}, extraWritable...), Unreadable: HomeLogins(home)}
}

// Available reports whether this system can enforce the sandbox as
// configured, with an error wrapping ErrSandboxUnavailable saying why not.
func (s *Sandbox) Available() error {
	return s.supported(s.DenyNetwork)
}

func (s *Sandbox) supported(network bool) error {
	if s.probe != nil {
		return s.probe(network)
	}
	return sandboxSupported(network)
}

// Missing lists, in words, the protections this Sandbox asks for that the
// running kernel cannot enforce: truncation (Landlock ABI 3), device
// ioctls (5), signals and abstract sockets to processes outside (6),
// connections to Unix sockets outside the writable directories, such as
// a docker or tmux socket (9), TCP (4) and UDP (10) with DenyNetwork, and
// always changes of metadata (chmod, chown, utimes, extended attributes)
// outside the writable directories, for which Landlock has no right at
// all. (A seccomp filter cannot stand in for that right: it sees a path
// argument only as a pointer, so it could refuse chmod everywhere, the
// workspace included, but not outside it alone.) An empty list means the
// sandbox is complete on this kernel.
func (s *Sandbox) Missing() []string {
	if s.probe != nil {
		if err := s.probe(false); err != nil {
			return []string{"all confinement: " + err.Error()}
		}
		return missingAt(s.abi, s.DenyNetwork)
	}
	return sandboxMissing(s.DenyNetwork)
}

// missingAt is Missing for Landlock ABI abi.
func missingAt(abi int, network bool) []string {
	var out []string
	for _, m := range []struct {
		abi     int
		network bool
		what    string
	}{
		{3, false, "truncating files outside the writable directories (Landlock ABI 3, Linux 6.2)"},
		{4, true, "refusing TCP connections (Landlock ABI 4, Linux 6.7)"},
		{5, false, "refusing ioctl on devices (Landlock ABI 5, Linux 6.10)"},
		{6, false, "refusing signals and abstract Unix sockets to processes outside the sandbox (Landlock ABI 6, Linux 6.12)"},
		{9, false, "refusing connections to Unix sockets outside the writable directories, such as docker's or tmux's (Landlock ABI 9)"},
		{10, true, "refusing UDP (Landlock ABI 10)"},
	} {
		if abi < m.abi && (!m.network || network) {
			out = append(out, m.what)
		}
	}
	return append(out, "refusing metadata changes (chmod, chown, utimes, extended attributes) outside the writable directories: Landlock has no right for them")
}

// Wrap rewrites cmd, which must not have been started, so that it runs
// confined. Arguments, environment, working directory and I/O are kept; the
// helper replaces itself with the original program before it reads any
// input. When the system cannot confine it, Wrap returns an error wrapping
// ErrSandboxUnavailable, or with BestEffort logs a warning and leaves cmd
// unchanged.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	req, confine, err := s.rules(cmd, "Wrap")
	if err != nil {
		return err
	}
	if hasRequest(cmd.Env) {
		return errors.New("safety: Sandbox.Wrap: command is already wrapped")
	}
	if !confine && runtime.GOOS != "linux" {
		return nil
	}
	req.Unconfined = !confine
	return s.throughHelper(cmd, req, "Sandbox.Wrap")
}

// throughHelper rewrites cmd to start the helper with req for it.
func (s *Sandbox) throughHelper(cmd *exec.Cmd, req sandboxhelper.Request, op string) error {
	helper := s.Helper
	if helper == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("safety: %s: cannot find this executable to use as the helper: %w", op, err)
		}
		helper = exe
	}
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	req.Path, req.ArgvStart = cmd.Path, 1+len(s.HelperArgs)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clip(env), sandboxEnv+"="+req.Encode())
	// The helper's argv: its name, its own arguments, then the command's
	// argv unchanged (argv[0] included), so nothing is re-quoted or lost.
	cmd.Path = helper
	cmd.Args = slices.Concat([]string{helper}, s.HelperArgs, argv)
	return nil
}

// Start starts cmd, which must not have been started, confined as Wrap
// would, but without a helper process: a thread of this process is set
// aside, confines itself (Landlock confines one thread, and what the
// thread starts inherits it), starts cmd and ends with the goroutine
// that held it. The host's other threads are never restricted. No Go
// runtime starts for the command, which with a helper costs milliseconds
// per command.
//
// Unlike Wrap, nothing stays between the command and this process: no
// child subreaper holds what it detaches (give it a CommandCgroup), and a
// parent-death signal (SysProcAttr.Pdeathsig) would be sent as soon as
// the starting thread ended, so Start refuses a cmd that sets one. When
// the system cannot confine, Start fails as Wrap does, or with BestEffort
// logs a warning and starts cmd unconfined.
func (s *Sandbox) Start(cmd *exec.Cmd) error {
	req, confine, err := s.rules(cmd, "Start")
	if err != nil {
		return err
	}
	if !confine {
		return cmd.Start()
	}
	return startConfined(cmd, req)
}

// rules checks cmd and the sandbox and returns the confinement rules,
// and whether the command is to be confined at all (false: BestEffort on
// a system that cannot, which rules has warned about).
func (s *Sandbox) rules(cmd *exec.Cmd, op string) (req sandboxhelper.Request, confine bool, err error) {
	if cmd.Process != nil {
		return req, false, fmt.Errorf("safety: Sandbox.%s: command already started", op)
	}
	if cmd.Err != nil {
		return req, false, cmd.Err // exec.Command could not find the program
	}
	if cmd.Path == "" {
		return req, false, fmt.Errorf("safety: Sandbox.%s: command has no Path; build it with exec.Command", op)
	}
	if len(s.Writable) == 0 {
		return req, false, fmt.Errorf("safety: Sandbox.%s: no writable directories; include at least the workspace root", op)
	}
	writable := make([]string, 0, len(s.Writable))
	for _, d := range s.Writable {
		if !filepath.IsAbs(d) {
			return req, false, fmt.Errorf("safety: Sandbox.%s: writable directory %q is not absolute", op, d)
		}
		fi, err := os.Stat(d)
		if err != nil {
			return req, false, fmt.Errorf("safety: Sandbox.%s: writable directory: %w", op, err)
		}
		if !fi.IsDir() {
			return req, false, fmt.Errorf("safety: Sandbox.%s: writable path %q is not a directory", op, d)
		}
		writable = append(writable, filepath.Clean(d))
	}
	unreadable, err := unreadableFor(s.Unreadable, writable)
	if err != nil {
		return req, false, err
	}
	req = sandboxhelper.Request{Writable: writable, DenyNetwork: s.DenyNetwork, BestEffort: s.BestEffort}
	if err := s.supported(false); err != nil {
		if !s.BestEffort {
			return req, false, err
		}
		s.warnOnce("safety: running commands WITHOUT a sandbox", "reason", err.Error())
		return req, false, nil
	}
	if s.DenyNetwork {
		if err := s.supported(true); err != nil {
			if !s.BestEffort {
				return req, false, err
			}
			s.warnOnce("safety: running commands with file confinement but WITHOUT network restriction", "reason", err.Error())
		}
	}
	if s.BestEffort {
		if missing := s.Missing(); len(missing) > 0 {
			s.warnOnce("safety: sandbox running with protections missing on this kernel", "missing", missing)
		}
	}
	req.ListDirs, req.ReadDirs, req.ReadFiles = readGrants(unreadable)
	return req, true, nil
}

// warned holds the warnings already logged by this process, by logger,
// message and details: a degraded sandbox is the same for every command,
// so it is said once (later repeats go to Debug), not on every command.
var warned sync.Map

func (s *Sandbox) warnOnce(msg string, args ...any) {
	type key struct {
		l   *slog.Logger
		msg string
	}
	if _, again := warned.LoadOrStore(key{s.Logger, msg + fmt.Sprint(args...)}, true); again {
		s.logger().Debug(msg, args...)
		return
	}
	s.logger().Warn(msg, args...)
}

func (s *Sandbox) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// SandboxMain does nothing and returns. The helper that Sandbox and
// KillDomain re-execute now starts from package initialisation, before
// the host's own packages are initialised, so no call is needed.
//
// Deprecated: a program that imports safety is a helper without calling
// anything; remove the call.
func SandboxMain() {}
