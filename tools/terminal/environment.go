package terminal

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// The environment of a command has three layers, rebuilt for every command:
//
//  1. the host's variables that pass the allow-list (baseNames and
//     basePrefixes: where home, programs, locale and language toolchains
//     are) plus those the host names in Config.PassEnv;
//  2. what earlier commands exported, each variable judged when it first
//     appeared or changed, as an explicit `export NAME=value` is;
//  3. the guards, imposed last on every command whatever the layers
//     above say: PATH as the host had it, plain output and no prompts,
//     git's safe.bareRepository, the process marker, Config.Env; and the
//     variables that make shells, loaders and git run other code (BASH_ENV,
//     ENV, LD_*, GIT_*, …) removed unless a guard sets them.
//
// A command can change any of these for itself and its children; nothing
// it does to a guard reaches the next command.

// baseNames are the host variables every command gets: who and where the
// user is, the locale, and where language toolchains live.
var baseNames = map[string]bool{
	"HOME": true, "PATH": true, "USER": true, "LOGNAME": true, "SHELL": true, "TMPDIR": true,
	"LANG": true, "LANGUAGE": true, "TZ": true,
	"XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true, "XDG_STATE_HOME": true, "XDG_RUNTIME_DIR": true,
	"GOPATH": true, "GOROOT": true, "GOFLAGS": true, "GOCACHE": true, "GOMODCACHE": true, "GOPROXY": true,
	"GOPRIVATE": true, "GONOSUMDB": true, "GONOPROXY": true, "GOTOOLCHAIN": true, "GOBIN": true,
	"CARGO_HOME": true, "RUSTUP_HOME": true, "RUSTUP_TOOLCHAIN": true,
	"JAVA_HOME": true, "GRADLE_USER_HOME": true, "MAVEN_HOME": true, "M2_HOME": true,
	"NODE_PATH": true, "NVM_DIR": true, "PNPM_HOME": true, "BUN_INSTALL": true, "DENO_DIR": true,
	"PYTHONPATH": true, "VIRTUAL_ENV": true, "CONDA_PREFIX": true, "CONDA_DEFAULT_ENV": true, "PYENV_ROOT": true,
	"UV_CACHE_DIR": true, "PIP_CACHE_DIR": true,
	"GEM_HOME": true, "GEM_PATH": true, "RBENV_ROOT": true, "DOTNET_ROOT": true,
	"ANDROID_HOME": true, "ANDROID_SDK_ROOT": true, "FLUTTER_ROOT": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "CC": true, "CXX": true, "PKG_CONFIG_PATH": true,
}

// basePrefixes pass every host variable whose name starts with one of them.
var basePrefixes = []string{"LC_"}

// guardEnv is what every command is given last, over anything an earlier
// command exported: plain output and no human to wait for.
var guardEnv = []string{
	"TERM=dumb", "NO_COLOR=1", "CLICOLOR=0", "PAGER=cat", "GIT_PAGER=cat",
	"GIT_TERMINAL_PROMPT=0", "DEBIAN_FRONTEND=noninteractive",
}

// removedNames are never given to a command unless a guard or the host's
// Config.Env sets them: they make shells, the dynamic loader and git run
// other code or read other configuration. A command may set them for
// itself; the next command starts without them.
var removedNames = map[string]bool{
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "CDPATH": true, "IFS": true,
	"PS4": true, "PROMPT_COMMAND": true, "GLOBIGNORE": true, "INPUTRC": true,
}

var removedPrefixes = []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_"}

// ignoredNames are variables the shell itself maintains or the report
// carries; they are neither carried nor reported as dropped.
var ignoredNames = map[string]bool{
	"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, reportRC: true, reportMark: true,
}

// envLayers holds the fixed layers of one Shell.
type envLayers struct {
	guards  []string        // imposed last, in order
	guarded map[string]bool // names the guards set: never carried
	judge   func(name, value string) error
}

// newEnvLayers builds the allow-listed base (returned) and the guards
// from the host's environment.
func newEnvLayers(cfg Config, host []string) ([]string, envLayers) {
	pass := func(name string) bool {
		if baseNames[name] || hasPrefix(name, basePrefixes) {
			return true
		}
		for _, p := range cfg.PassEnv {
			if p == name || strings.HasSuffix(p, "*") && strings.HasPrefix(name, strings.TrimSuffix(p, "*")) {
				return true
			}
		}
		return false
	}
	var base []string
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range host {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !pass(name) {
			continue
		}
		if name == "PATH" {
			path = value
			continue // a guard
		}
		if removed(name) {
			continue
		}
		base = append(base, kv)
	}
	guards := slices.Concat([]string{"PATH=" + path}, guardEnv, cfg.Env, bareRepositoryGuard(cfg.Env))
	l := envLayers{guards: guards, guarded: map[string]bool{}, judge: cfg.JudgeExport}
	for _, kv := range guards {
		name, _, _ := strings.Cut(kv, "=")
		l.guarded[name] = true
	}
	if l.judge == nil {
		l.judge = judgeExport
	}
	base = slices.DeleteFunc(base, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return l.guarded[name]
	})
	return base, l
}

// compose is the environment of the next command: the carried state (the
// base with what earlier commands exported), then the guards.
func (l envLayers) compose(state []string, marker string) []string {
	return slices.Concat(state, l.guards, []string{marker})
}

func removed(name string) bool { return removedNames[name] || hasPrefix(name, removedPrefixes) }

func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Dropped is a variable a command set or changed that the next command
// does not get, and why.
type Dropped struct {
	Name   string
	Reason string
}

// diff takes the environment a command ended with (reported) against the
// state it started with: every variable it added or changed is judged as
// an explicit export would be, and kept or dropped; variables it unset
// are gone; guarded and removed names keep what the host imposes. It
// returns the new state and what was dropped, sorted by name.
func (l envLayers) diff(state, reported []string) ([]string, []Dropped) {
	before := envMap(state)
	after := envMap(reported)
	imposed := envMap(l.guards)
	next := map[string]string{}
	var dropped []Dropped
	for name, value := range after {
		switch {
		case ignoredNames[name] || strings.HasPrefix(name, runMarker):
			continue
		case l.guarded[name]:
			if value != imposed[name] {
				dropped = append(dropped, Dropped{name, "the host sets it for every command"})
			}
			continue
		case removed(name):
			if old, ok := before[name]; !ok || old != value {
				dropped = append(dropped, Dropped{name, "it makes shells, the loader or git run other code; it is never carried to another command"})
			}
			continue
		}
		if old, ok := before[name]; ok && old == value {
			next[name] = value
			continue
		}
		if err := l.judge(name, value); err != nil {
			dropped = append(dropped, Dropped{name, err.Error()})
			if old, ok := before[name]; ok {
				next[name] = old // a refused change keeps the old value
			}
			continue
		}
		next[name] = value
	}
	slices.SortFunc(dropped, func(a, b Dropped) int { return strings.Compare(a.Name, b.Name) })
	out := make([]string, 0, len(next))
	for _, name := range slices.Sorted(maps.Keys(next)) {
		out = append(out, name+"="+next[name])
	}
	return out, dropped
}

// maxCarried caps one carried value: a variable is a setting, not data.
const maxCarried = 8 << 10

// judgeExport is the default judgement of a variable a command left set:
// exactly what safety's analyser says of `export NAME=value`. Only what it
// rates harmless with nothing unvetted is carried, so the carry-over is an
// allow-list (modes, locales, known-inert values), never a deny-list.
func judgeExport(name, value string) error {
	if len(value) > maxCarried {
		return fmt.Errorf("its value is longer than %d bytes", maxCarried)
	}
	an := safety.AnalyzeCommand("export " + name + "=" + shellQuote(value))
	if an.Severity > safety.SeverityNone {
		return fmt.Errorf("`export %s=…` is rated %s", name, an.Severity)
	}
	for _, c := range an.Commands {
		for _, u := range c.Unvetted {
			return fmt.Errorf("%s", u.Reason)
		}
	}
	return nil
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			m[name] = value
		}
	}
	return m
}

// hostEnv is the environment the Shell starts from.
func hostEnv(cfg Config) []string {
	if cfg.HostEnv != nil {
		return cfg.HostEnv
	}
	return os.Environ()
}

// bareRepositoryGuard sets git's safe.bareRepository=explicit for every
// command, as command-line configuration (the only place git reads it
// from besides the user's own files): a directory a command wrote HEAD,
// config, objects/ and refs/ into is otherwise a repository to git, and
// a later `git status` there runs its core.fsmonitor. The entries are
// appended after any GIT_CONFIG_COUNT the host set in env (Config.Env).
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
