//go:build linux

package safety

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// The sandbox tests re-execute this test binary twice over: once as the
// helper (which package initialisation turns into the helper before any
// test runs) and once as the command (TestSandboxChildProcess does one
// thing named in the environment and reports by exit status).

const childEnv = "TETHER_SANDBOX_TEST_CHILD"

func TestSandboxChildProcess(t *testing.T) {
	what, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	op, arg, _ := strings.Cut(what, ":")
	var err error
	switch op {
	case "write":
		err = os.WriteFile(arg, []byte("written"), 0o644)
	case "dial":
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			c.Close()
		}
	case "dialunix":
		var c net.Conn
		if c, err = net.Dial("unix", arg); err == nil {
			c.Close()
		}
	case "subreaper":
		var v int32
		if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 37, uintptr(unsafe.Pointer(&v)), 0); errno != 0 { // PR_GET_CHILD_SUBREAPER
			err = errno
		} else if v != 1 {
			err = fmt.Errorf("not a child subreaper")
		}
	case "signal":
		pid, _ := strconv.Atoi(arg)
		err = syscall.Kill(pid, 0)
	default:
		err = fmt.Errorf("unknown child op %q", op)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func childCmd(t *testing.T, what string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSandboxChildProcess$")
	cmd.Env = append(os.Environ(), childEnv+"="+what)
	return cmd
}

func testSandbox(t *testing.T, writable ...string) *Sandbox {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Sandbox{Writable: writable, Helper: exe}
}

func requireLandlock(t *testing.T, network bool) {
	t.Helper()
	if err := sandboxSupported(network); err != nil {
		t.Skipf("cannot test confinement on this machine: %v", err)
	}
}

// run starts cmd (wrapped by sb unless nil) and reports its exit status
// and stderr.
func run(t *testing.T, sb *Sandbox, cmd *exec.Cmd) (int, string) {
	t.Helper()
	if sb != nil {
		if err := sb.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
	}
	return runStarted(t, cmd, cmd.Start)
}

// runStarted starts cmd with start, waits for it and reports its exit
// status and stderr.
func runStarted(t *testing.T, cmd *exec.Cmd, start func() error) (int, string) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := start()
	if err == nil {
		err = cmd.Wait()
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

func TestSandboxConfinesWrites(t *testing.T) {
	requireLandlock(t, false)
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	os.Mkdir(ws, 0o755)
	os.Mkdir(outside, 0o755)
	sb := testSandbox(t, ws)

	// Without the sandbox, writing outside works: the test can fail.
	if code, errOut := run(t, nil, childCmd(t, "write:"+filepath.Join(outside, "free.txt"))); code != 0 {
		t.Fatalf("unconfined write outside failed (%d): %s", code, errOut)
	}
	// Confined: inside works, outside is refused by the kernel.
	if code, errOut := run(t, sb, childCmd(t, "write:"+filepath.Join(ws, "inside.txt"))); code != 0 {
		t.Fatalf("confined write inside failed (%d): %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Fatal(err)
	}
	code, errOut := run(t, sb, childCmd(t, "write:"+filepath.Join(outside, "escape.txt")))
	if code != 3 || !strings.Contains(errOut, "permission denied") {
		t.Fatalf("confined write outside: exit %d, stderr %q; want exit 3 with permission denied", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Fatal("confined command wrote outside the workspace")
	}
}

func TestSandboxDeniesNetwork(t *testing.T) {
	requireLandlock(t, true)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback: %v", err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ws := t.TempDir()
	dial := "dial:" + ln.Addr().String()

	if code, errOut := run(t, testSandbox(t, ws), childCmd(t, dial)); code != 0 {
		t.Fatalf("confined dial with network allowed failed (%d): %s", code, errOut)
	}
	sb := testSandbox(t, ws)
	sb.DenyNetwork = true
	code, errOut := run(t, sb, childCmd(t, dial))
	if code != 3 || !strings.Contains(errOut, "permission denied") {
		t.Fatalf("dial with DenyNetwork: exit %d, stderr %q; want permission denied", code, errOut)
	}
}

func TestSandboxCannotSignalHost(t *testing.T) {
	requireLandlock(t, false)
	if abi, _ := landlockABI(); abi < 6 {
		t.Skipf("Landlock ABI %d has no signal scoping (needs 6)", abi)
	}
	what := "signal:" + strconv.Itoa(os.Getpid())
	if code, errOut := run(t, nil, childCmd(t, what)); code != 0 {
		t.Fatalf("unconfined signal check failed (%d): %s", code, errOut)
	}
	code, errOut := run(t, testSandbox(t, t.TempDir()), childCmd(t, what))
	if code != 3 || !strings.Contains(errOut, "operation not permitted") {
		t.Fatalf("confined kill(host, 0): exit %d, stderr %q; want operation not permitted", code, errOut)
	}
}

func TestSandboxWrapErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		name string
		sb   *Sandbox
		cmd  func() *exec.Cmd
		want string
	}{
		{"no writable", &Sandbox{}, func() *exec.Cmd { return exec.Command("true") }, "no writable"},
		{"relative", &Sandbox{Writable: []string{"rel"}}, func() *exec.Cmd { return exec.Command("true") }, "not absolute"},
		{"missing", &Sandbox{Writable: []string{filepath.Join(dir, "nope")}}, func() *exec.Cmd { return exec.Command("true") }, "no such file"},
		{"file", &Sandbox{Writable: []string{file}}, func() *exec.Cmd { return exec.Command("true") }, "not a directory"},
		{"not found", &Sandbox{Writable: []string{dir}}, func() *exec.Cmd { return exec.Command("no-such-program-tether") }, "executable file not found"},
		{"no path", &Sandbox{Writable: []string{dir}}, func() *exec.Cmd { return &exec.Cmd{} }, "no Path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.sb.Wrap(tc.cmd())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Wrap = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	t.Run("twice", func(t *testing.T) {
		requireLandlock(t, false)
		sb := &Sandbox{Writable: []string{dir}}
		cmd := exec.Command("true")
		if err := sb.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		if err := sb.Wrap(cmd); err == nil {
			t.Error("wrapping twice succeeded")
		}
	})
}

func TestSandboxKeepsArguments(t *testing.T) {
	requireLandlock(t, false)
	ws := t.TempDir()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// Arguments with spaces, quotes and an empty one survive the re-exec.
	cmd := exec.Command(sh, "-c", `printf '%s|' "$0" "$@"`, "zero", "a b", `"q"`, "", "$HOME")
	cmd.Dir = ws
	if err := testSandbox(t, ws).Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := `zero|a b|"q"||$HOME|`; string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
}

// BenchmarkSandboxStart measures what confinement adds to starting a
// command: the helper's start-up, the Landlock calls and one extra exec.
// BenchmarkSandboxStart measures starting `true`: unconfined, through
// the helper (Wrap), and from a confined thread (Start), and the logins
// read floor (HomeLogins of this user's home) on both.
func BenchmarkSandboxStart(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true(1)")
	}
	ws := b.TempDir()
	home, _ := os.UserHomeDir()
	for _, mode := range []string{"unconfined", "wrap", "start", "wrap+logins", "start+logins"} {
		b.Run(mode, func(b *testing.B) {
			if mode != "unconfined" {
				if err := sandboxSupported(false); err != nil {
					b.Skipf("cannot measure confinement: %v", err)
				}
			}
			sb := &Sandbox{Writable: []string{ws}}
			if strings.HasSuffix(mode, "+logins") {
				sb.Unreadable = HomeLogins(home)
			}
			run := func(cmd *exec.Cmd) error { return cmd.Run() }
			switch {
			case strings.HasPrefix(mode, "wrap"):
				run = func(cmd *exec.Cmd) error {
					if err := sb.Wrap(cmd); err != nil {
						return err
					}
					return cmd.Run()
				}
			case strings.HasPrefix(mode, "start"):
				run = func(cmd *exec.Cmd) error {
					if err := sb.Start(cmd); err != nil {
						return err
					}
					return cmd.Wait()
				}
			}
			for b.Loop() {
				if err := run(exec.Command(truePath)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Where the kernel cannot confine, Wrap fails saying why, or with
// BestEffort runs it unconfined (but contained) and logs a warning.
func TestSandboxDegrades(t *testing.T) {
	dir := t.TempDir()
	missing := func(network bool) error {
		return fmt.Errorf("%w: this Linux kernel does not support Landlock (test)", ErrSandboxUnavailable)
	}
	noNet := func(network bool) error {
		if network {
			return fmt.Errorf("%w: Landlock ABI 3 cannot restrict the network (test)", ErrSandboxUnavailable)
		}
		return nil
	}

	cmd := exec.Command("true")
	sb := &Sandbox{Writable: []string{dir}, probe: missing}
	if err := sb.Wrap(cmd); !errors.Is(err, ErrSandboxUnavailable) || !strings.Contains(err.Error(), "does not support Landlock") {
		t.Errorf("strict Wrap without Landlock = %v", err)
	}

	var logs strings.Builder
	sb = &Sandbox{Writable: []string{dir}, probe: missing, BestEffort: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	cmd = exec.Command("true")
	before := cmd.Path
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	// The command still starts through the helper, unconfined, to be a
	// child subreaper.
	if cmd.Path == before || !slices.ContainsFunc(cmd.Env, func(e string) bool { return strings.Contains(e, " unconfined=1") }) {
		t.Errorf("BestEffort without Landlock: path %q, env %q; want the helper, unconfined", cmd.Path, cmd.Env)
	}
	if !strings.Contains(logs.String(), "WITHOUT a sandbox") {
		t.Errorf("no warning logged: %q", logs.String())
	}

	sb = &Sandbox{Writable: []string{dir}, probe: noNet, DenyNetwork: true}
	if err := sb.Wrap(exec.Command("true")); !errors.Is(err, ErrSandboxUnavailable) || sb.Available() == nil {
		t.Errorf("strict DenyNetwork on an old ABI = %v", err)
	}
	logs.Reset()
	sb = &Sandbox{Writable: []string{dir}, probe: noNet, DenyNetwork: true, BestEffort: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	cmd = exec.Command("true")
	if err := sb.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Path == before || !strings.Contains(logs.String(), "WITHOUT network restriction") {
		t.Errorf("BestEffort DenyNetwork on an old ABI: path %q, logs %q; want files confined and a warning", cmd.Path, logs.String())
	}
}

// Ordinary work inside the sandbox keeps working: devices, moving files
// between directories (Landlock's "refer" right), reading system files,
// running programs, and a private TMPDIR.
func TestSandboxAllowsOrdinaryWork(t *testing.T) {
	requireLandlock(t, false)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ws, tmp := t.TempDir(), t.TempDir()
	script := `set -e
echo discarded > /dev/null
head -c 4 /dev/urandom > /dev/null
mkdir -p a b
echo x > a/f
mv a/f b/f
ln -s b/f link
cat /etc/hostname > /dev/null 2>&1 || cat /etc/passwd > /dev/null
echo t > "$TMPDIR/t"
rm "$TMPDIR/t"
echo ok`
	cmd := exec.Command(sh, "-c", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := testSandbox(t, ws, tmp).Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("confined script: %v\n%s", err, out)
	}
}

// TestSandboxUnixSockets: a confined command may connect to a Unix socket
// in its writable directories but not to one elsewhere (a docker or tmux
// socket is a way out of any sandbox).
func TestSandboxUnixSockets(t *testing.T) {
	requireLandlock(t, false)
	if abi, _ := landlockABI(); abi < 9 {
		t.Skipf("Landlock ABI %d cannot restrict Unix sockets (needs 9); Missing reports it", abi)
	}
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	os.Mkdir(ws, 0o755)
	os.Mkdir(outside, 0o755)
	for _, dir := range []string{ws, outside} {
		ln, err := net.Listen("unix", filepath.Join(dir, "s.sock"))
		if err != nil {
			t.Skipf("no unix sockets: %v", err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	sb := testSandbox(t, ws)
	if code, errOut := run(t, sb, childCmd(t, "dialunix:"+filepath.Join(ws, "s.sock"))); code != 0 {
		t.Fatalf("confined connect inside failed (%d): %s", code, errOut)
	}
	if code, errOut := run(t, sb, childCmd(t, "dialunix:"+filepath.Join(outside, "s.sock"))); code != 3 {
		t.Fatalf("confined connect outside: exit %d (%s), want refused", code, errOut)
	}
}

func TestSandboxMissingByABI(t *testing.T) {
	for _, tc := range []struct {
		abi     int
		network bool
		want    []string
		absent  []string
	}{
		{7, false, []string{"Unix sockets", "metadata"}, []string{"UDP", "TCP", "truncating"}},
		{7, true, []string{"Unix sockets", "UDP", "metadata"}, []string{"TCP"}},
		{2, true, []string{"truncating", "TCP", "ioctl", "signals", "UDP", "metadata"}, nil},
		{11, true, []string{"metadata"}, []string{"Unix", "UDP", "TCP", "signals"}},
	} {
		got := strings.Join(missingAt(tc.abi, tc.network), "; ")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("missingAt(%d, %v) = %q, want it to mention %q", tc.abi, tc.network, got, w)
			}
		}
		for _, w := range tc.absent {
			if strings.Contains(got, w) {
				t.Errorf("missingAt(%d, %v) = %q, should not mention %q", tc.abi, tc.network, got, w)
			}
		}
	}
	sb := &Sandbox{probe: func(bool) error { return nil }, abi: 6, BestEffort: true}
	if m := sb.Missing(); len(m) < 2 {
		t.Errorf("Missing at ABI 6 = %q", m)
	}
}

// TestSandboxSubreaper: the confined command is a child subreaper, so the
// orphans of its descendants stay in its process tree.
func TestSandboxSubreaper(t *testing.T) {
	requireLandlock(t, false)
	if code, errOut := run(t, nil, childCmd(t, "subreaper")); code == 0 {
		t.Fatalf("an unconfined child is already a subreaper: the test proves nothing (%s)", errOut)
	}
	sb := testSandbox(t, t.TempDir())
	if code, errOut := run(t, sb, childCmd(t, "subreaper")); code != 0 {
		t.Fatalf("confined command is not a child subreaper (%d): %s", code, errOut)
	}
}

// TestUnconfinedSubreaper: where the kernel cannot confine and the host
// accepts that (BestEffort), the command is still a child subreaper, so
// nothing it starts can leave its process tree.
func TestUnconfinedSubreaper(t *testing.T) {
	sb := testSandbox(t, t.TempDir())
	sb.BestEffort, sb.Logger = true, slog.New(slog.DiscardHandler)
	sb.probe = func(bool) error { return fmt.Errorf("%w: no Landlock (test)", ErrSandboxUnavailable) }
	if code, errOut := run(t, sb, childCmd(t, "subreaper")); code != 0 {
		t.Fatalf("unconfined command is not a child subreaper (%d): %s", code, errOut)
	}
	dir := t.TempDir()
	outside := filepath.Join(dir, "written")
	if code, errOut := run(t, sb, childCmd(t, "write:"+outside)); code != 0 {
		t.Fatalf("the unconfined command was confined after all (%d): %s", code, errOut)
	}
}
