// Package sandboxhelper is the process that safety's Sandbox and
// KillDomain start in front of a command: the host's own executable,
// re-executed with a Request in its environment. Importing the package
// (safety does) is all a program needs: its initialisation recognises
// the request, does the helper's work and exits, so the host's main never
// runs in a helper.
//
// Go initialises packages in import-path order, each as soon as its
// imports are. This package imports only the few standard packages that
// os itself needs (strconv, syscall, time, …) and os/signal, and speaks
// Landlock and its request format by itself, so it is initialised right
// after os: the host's own packages, its tables and its dependencies'
// are not initialised in a helper. (encoding/json, strings, fmt,
// path/filepath and golang.org/x/sys sort after most of a host's
// dependencies and would make the helper wait for them.) What a helper
// costs a command is the runtime's start plus its own work, whatever
// the host links; safety's tests hold that.
package sandboxhelper

import (
	"errors"
	"os"
	"slices"
	"strconv"
)

// Env names the variable that carries the Request from the agent to the
// helper. It is removed from the environment before the command runs.
const Env = "TETHER_SANDBOX_V2"

// Request is what the helper needs: the real program and the rules.
type Request struct {
	Path      string
	ArgvStart int // the command's argv is os.Args[ArgvStart:]
	// Writable directories: everything there. ListDirs may only be
	// listed; ReadDirs and ReadFiles read and run. With no read rules at
	// all the whole file system is readable.
	Writable, ListDirs, ReadDirs, ReadFiles []string
	DenyNetwork, BestEffort                 bool
	// Unconfined: the kernel cannot confine (BestEffort); the helper only
	// makes the command a child subreaper.
	Unconfined bool
	// Domain: the helper stays as the command's parent and kill domain
	// instead of exec-ing it; Report: descriptor 3 is the report
	// descriptor.
	Domain, Report bool
	// Watch: the helper is the cgroup watchdog of an agent instead (no
	// command): when descriptor 3 reads end of file, which is when the
	// agent has exited however it did, it ends every cgroup in CgroupDir
	// whose name starts with CgroupPrefix.
	Watch                   bool
	CgroupDir, CgroupPrefix string
}

// Encode returns the request as Env's value.
func (r Request) Encode() string {
	b := appendString(nil, "path", r.Path)
	b = appendInt(b, "argv", r.ArgvStart)
	for _, l := range []struct {
		key   string
		paths []string
	}{{"w", r.Writable}, {"ls", r.ListDirs}, {"rd", r.ReadDirs}, {"rf", r.ReadFiles}} {
		for _, p := range l.paths {
			b = appendString(b, l.key, p)
		}
	}
	b = appendFlag(b, "nonet", r.DenyNetwork)
	b = appendFlag(b, "besteffort", r.BestEffort)
	b = appendFlag(b, "unconfined", r.Unconfined)
	b = appendFlag(b, "domain", r.Domain)
	b = appendFlag(b, "report", r.Report)
	b = appendFlag(b, "watch", r.Watch)
	if r.CgroupDir != "" || r.CgroupPrefix != "" {
		b = appendString(b, "cgdir", r.CgroupDir)
		b = appendString(b, "cgprefix", r.CgroupPrefix)
	}
	return string(b)
}

// DecodeRequest reads Env's value.
func DecodeRequest(s string) (Request, error) {
	var r Request
	err := parseFields(s, func(key, val string) error {
		switch key {
		case "path":
			r.Path = val
		case "argv":
			n, err := number(key, val)
			r.ArgvStart = n
			return err
		case "w":
			r.Writable = append(r.Writable, val)
		case "ls":
			r.ListDirs = append(r.ListDirs, val)
		case "rd":
			r.ReadDirs = append(r.ReadDirs, val)
		case "rf":
			r.ReadFiles = append(r.ReadFiles, val)
		case "nonet":
			r.DenyNetwork = val == "1"
		case "besteffort":
			r.BestEffort = val == "1"
		case "unconfined":
			r.Unconfined = val == "1"
		case "domain":
			r.Domain = val == "1"
		case "report":
			r.Report = val == "1"
		case "watch":
			r.Watch = val == "1"
		case "cgdir":
			r.CgroupDir = val
		case "cgprefix":
			r.CgroupPrefix = val
		default:
			return errors.New("unknown field " + strconv.Quote(key))
		}
		return nil
	})
	return r, err
}

// Report is what a kill-domain helper writes on the report descriptor as
// it exits: when the command stopped itself, its working directory and
// its environment (NUL-separated, as /proc/PID/environ holds it); and how
// many processes it found left below it and killed.
type Report struct {
	Dir      string
	Environ  []byte
	Leftover int
}

// Encode returns the report as the helper writes it.
func (r Report) Encode() []byte {
	b := appendInt(nil, "leftover", r.Leftover)
	if r.Dir != "" || r.Environ != nil {
		b = appendString(b, "dir", r.Dir)
		b = appendString(b, "environ", string(r.Environ))
	}
	return b
}

// DecodeReport reads what Encode wrote.
func DecodeReport(b []byte) (Report, error) {
	var r Report
	err := parseFields(string(b), func(key, val string) error {
		switch key {
		case "leftover":
			n, err := number(key, val)
			r.Leftover = n
			return err
		case "dir":
			r.Dir = val
		case "environ":
			r.Environ = []byte(val)
		default:
			return errors.New("unknown field " + strconv.Quote(key))
		}
		return nil
	})
	return r, err
}

func init() {
	if raw, ok := os.LookupEnv(Env); ok {
		os.Exit(run(raw, os.Args))
	}
}

// run is the helper: it confines itself and execs the command, or with
// Domain stays as its parent, and returns the status to exit with. What
// it cannot do it prints to stderr, with status 126 (the shell's "found
// but cannot execute").
func run(raw string, args []string) int {
	req, err := DecodeRequest(raw)
	if err != nil {
		return fail("tether sandbox: malformed request in " + Env + ": " + err.Error())
	}
	if req.Watch {
		return watchCgroups(req.CgroupDir, req.CgroupPrefix)
	}
	if req.ArgvStart < 1 || req.ArgvStart >= len(args) {
		return fail("tether sandbox: helper started with " + strconv.Itoa(len(args)) + " arguments, expected the command's after argument " + strconv.Itoa(req.ArgvStart))
	}
	env := slices.DeleteFunc(os.Environ(), func(e string) bool { return len(e) > len(Env) && e[:len(Env)+1] == Env+"=" })
	if req.Domain {
		return runDomain(req, args, env)
	}
	if !req.Unconfined {
		if err := Confine(req); err != nil {
			return fail("tether sandbox: " + err.Error())
		}
	}
	err = execProgram(req.Path, args[req.ArgvStart:], env)
	return fail("tether sandbox: cannot run " + req.Path + ": " + err.Error())
}

func fail(msg string) int {
	os.Stderr.WriteString(msg + "\n")
	return 126
}
