package safety

import (
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"mvdan.cc/sh/v3/syntax"
)

// Environment variables reach every program a command starts, and an
// exported one reaches every later command of a terminal session: build
// tools, pagers, git and interpreters all read variables that run code
// (PAGER, GIT_SSH_COMMAND, NODE_OPTIONS, GOFLAGS=-toolexec=…). Naming the
// dangerous ones cannot be complete, so assignments are judged by an
// allow-list: a variable known to be harmless, or one of the dangerous
// variables set to a value known to be harmless (PAGER=cat,
// GOFLAGS=-count=1), passes; any other assignment on a command or in an
// export is unvetted, and a rule covers it only by naming it
// ("NODE_ENV=test npm test").

// harmlessEnv lists variables that select modes, targets, locales and
// output styles and name no program, option or file that runs code.
var harmlessEnv = map[string]bool{
	"CI": true, "NODE_ENV": true, "RAILS_ENV": true, "RACK_ENV": true, "APP_ENV": true, "FLASK_ENV": true,
	"MIX_ENV": true, "CGO_ENABLED": true, "GOOS": true, "GOARCH": true, "GOARM": true, "GOAMD64": true,
	"GO111MODULE": true, "GOMAXPROCS": true, "GOGC": true, "GOMEMLIMIT": true, "GOTRACEBACK": true,
	"GOPRIVATE": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOEXPERIMENT": true,
	"RUST_BACKTRACE": true, "RUST_LOG": true, "RUST_MIN_STACK": true, "CARGO_TERM_COLOR": true,
	"CARGO_INCREMENTAL": true, "PYTHONDONTWRITEBYTECODE": true, "PYTHONUNBUFFERED": true,
	"PYTHONHASHSEED": true, "PYTHONIOENCODING": true, "PYTHONUTF8": true, "LANG": true, "LANGUAGE": true,
	"TZ": true, "TERM": true, "NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true, "CLICOLOR_FORCE": true,
	"COLUMNS": true, "LINES": true, "DEBUG": true, "VERBOSE": true, "LOG_LEVEL": true, "LOGLEVEL": true,
	"PORT": true, "NODE_NO_WARNINGS": true, "NEXT_TELEMETRY_DISABLED": true, "DO_NOT_TRACK": true,
	"HUSKY": true, "TF_IN_AUTOMATION": true, "DEBIAN_FRONTEND": true, "GIT_TERMINAL_PROMPT": true,
	"TEST_TIMEOUT": true, "RUST_TEST_THREADS": true, "JEST_WORKER_ID": true,
}

// pagerValues are pagers that show text and run nothing.
var pagerValues = map[string]bool{"cat": true, "less": true, "less -R": true, "less -FRX": true, "more": true, "": true}

// harmlessAssignment reports whether NAME=value cannot make a program
// run other code: an allow-listed name, a locale, or a dangerous name
// whose value is known to be inert.
func harmlessAssignment(name string, value word) bool {
	if harmlessEnv[name] || strings.HasPrefix(name, "LC_") {
		return true
	}
	if value.dynamic {
		return false
	}
	switch name {
	case "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER":
		return pagerValues[value.s]
	case "GOFLAGS":
		return harmlessGoFlags(value.s)
	case "PYTHONPATH", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB":
		// A source path in the workspace loads the workspace's own
		// code, which the command runs anyway (PYTHONPATH=src pytest).
		return workspacePathList(value.s)
	case "RUSTUP_TOOLCHAIN", "GOTOOLCHAIN":
		// A release channel or version picks an official toolchain; a
		// path would run binaries from anywhere (RUSTUP_TOOLCHAIN=/tmp/x).
		return toolchainName.MatchString(value.s)
	}
	return false
}

// toolchainName matches a toolchain named by channel or version:
// stable, nightly-2024-05-01, 1.78.0, go1.22.3, local, auto,
// go1.22.3+auto.
var toolchainName = lazyregexp.New(`^(stable|beta|nightly|local|auto|path|default|(go)?[0-9][0-9.]*(rc[0-9]+)?)(-[0-9]{4}-[0-9]{2}-[0-9]{2})?(\+(auto|path))?$`)

// workspacePathList reports a ":"-separated list of relative paths that
// stay in the workspace (src, ./lib:tests), none empty (an empty entry
// means the current directory to some loaders, which is the workspace
// too, but "" alone is suspicious enough to ask).
func workspacePathList(v string) bool {
	if v == "" {
		return false
	}
	for _, p := range strings.Split(v, ":") {
		if p == "" || outsideWorkspace(p) || strings.ContainsAny(p, "$`*?[~") {
			return false
		}
	}
	return true
}

// harmlessGoFlags reports GOFLAGS whose every flag the go test model
// knows as harmless: -count=1 -race pass, -toolexec=… and -exec=… do not.
func harmlessGoFlags(v string) bool {
	m := goModels["test"].ready()
	for _, f := range strings.Fields(v) {
		name, _, _ := strings.Cut(f, "=")
		k, ok := m.opts["-"+strings.TrimLeft(name, "-")]
		if !ok || k != optFlag && k != optText {
			return false
		}
	}
	return true
}

// judgeAssignment judges NAME=value given to command idx's environment
// (a prefix assignment, env NAME=value, or an export): dangerous names
// are high and no rule approves them; other names not known to be
// harmless are unvetted, for a rule to name.
func (a *analyzer) judgeAssignment(idx int, name string, value word) {
	if harmlessAssignment(name, value) {
		return
	}
	if why, bad := dangerousEnv(name); bad {
		a.concern(idx, EffectExecutes, SeverityHigh, true, "sets "+name+", which "+why)
		return
	}
	if idx >= 0 && idx < len(a.res.Commands) {
		cmd := &a.res.Commands[idx]
		cmd.Unvetted = append(cmd.Unvetted, UnvettedOption{
			Option: name + "=" + value.s,
			Reason: "sets " + name + ", which is not known to be harmless to the programs that read it",
		})
	}
}

// exports reports whether declaration command idx exports what it
// assigns (export, declare -x, typeset -x).
func (a *analyzer) exports(idx int) bool {
	c := a.res.Commands[idx]
	if c.Name == "export" {
		return true
	}
	if c.Name != "declare" && c.Name != "typeset" {
		return false
	}
	for _, arg := range c.Args {
		if strings.HasPrefix(arg, "-") && strings.Contains(arg, "x") {
			return true
		}
	}
	return false
}

// dangerousEnv lists variables that make an ordinary command run other
// code: loader hooks, pagers and editors, git and ssh helpers, shell
// start-up files.
func dangerousEnv(name string) (string, bool) {
	switch name {
	case "PATH", "CDPATH":
		return "changes which programs run", true
	case "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT":
		return "loads arbitrary code into every program", true
	case "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "SEQUENCE_EDITOR", "GIT_SEQUENCE_EDITOR", "LESSOPEN", "LESSCLOSE", "BROWSER":
		return "names a program other commands run", true
	case "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_DIR", "GIT_WORK_TREE", "GIT_TEMPLATE_DIR", "GIT_PROXY_COMMAND":
		return "makes git run other programs or read other configuration", true
	case "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS4", "SHELLOPTS", "BASHOPTS", "IFS", "BASH_FUNC", "HISTFILE", "INPUTRC":
		return "changes how the shell parses or what it runs", true
	case "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "DOTNET_STARTUP_HOOKS":
		return "makes an interpreter load extra code", true
	case "HOME", "XDG_CONFIG_HOME", "ZDOTDIR":
		return "moves where programs read their configuration", true
	case "GOFLAGS", "RIPGREP_CONFIG_PATH", "TAR_OPTIONS", "LESS", "MORE", "MANOPT", "GREP_OPTIONS", "MAKEFLAGS", "MFLAGS",
		"WGETRC", "CURL_HOME", "VIMINIT", "EXINIT", "MYVIMRC", "PYTHONWARNINGS", "PERL5DB", "PERLDB_OPTS", "NODE_PATH", "GCONV_PATH",
		"RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTC", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_HOME", "GOTOOLCHAIN",
		"SUDO_ASKPASS", "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF", "GIT_TRACE_PACKET", "GIT_TRACE_SETUP":
		// Options in the environment: GOFLAGS=-toolexec=x, RIPGREP_CONFIG_PATH
		// (rg --pre), TAR_OPTIONS=--to-command, LESS=+!cmd, VIMINIT=:!cmd …
		return "passes options or programs to the tools that read it", true
	}
	if u := strings.ToLower(name); strings.HasPrefix(u, "npm_config_") {
		switch strings.TrimPrefix(u, "npm_config_") {
		case "script_shell", "userconfig", "globalconfig", "node_options", "onload_script", "shell", "editor", "prefix", "git":
			return "makes npm run other programs or read other configuration", true
		}
	}
	if strings.HasPrefix(name, "CARGO_TARGET_") && (strings.HasSuffix(name, "_RUNNER") || strings.HasSuffix(name, "_LINKER")) {
		return "makes cargo run another program", true
	}
	if strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "BASH_FUNC_") {
		return "changes how programs are loaded", true
	}
	if strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		return "injects git configuration", true
	}
	return "", false
}

// envPrefix strips NAME=value words in front of a command run by sudo or
// env, judging each assignment.
func envPrefix(c *call, ws []word) []word {
	for len(ws) > 0 && !ws[0].dynamic {
		name, value, ok := strings.Cut(ws[0].s, "=")
		if !ok || !syntax.ValidName(name) {
			break
		}
		c.a.judgeAssignment(c.idx, name, word{s: value})
		ws = ws[1:]
	}
	return ws
}

// envCmd judges env: its options (-i, -u, -C, -S), its assignments and
// the command it runs, or printing the environment when it runs none.
func envCmd(c *call) {
	kind := Transparent
	saved := c.a.cwd
	defer func() { c.a.cwd = saved }()
	ws := c.args
	for len(ws) > 0 {
		w := ws[0]
		if w.dynamic {
			break
		}
		switch {
		case w.s == "-i" || w.s == "--ignore-environment" || w.s == "-":
			kind = Opaque
			ws = ws[1:]
		case w.s == "-u" || w.s == "--unset":
			ws = ws[min(2, len(ws)):]
		case w.s == "-C" || w.s == "--chdir" || strings.HasPrefix(w.s, "--chdir=") || strings.HasPrefix(w.s, "-C") && len(w.s) > 2:
			// The command runs in DIR: `env -C / rm -rf .` deletes /.
			dir := word{}
			switch {
			case strings.HasPrefix(w.s, "--chdir="):
				dir.s, ws = strings.TrimPrefix(w.s, "--chdir="), ws[1:]
			case len(w.s) > 2 && w.s[1] == 'C':
				dir.s, ws = w.s[2:], ws[1:]
			case len(ws) > 1:
				dir, ws = ws[1], ws[2:]
			default:
				ws = ws[1:]
			}
			c.wrapIn(dir)
		case w.s == "-S" || w.s == "--split-string" || strings.HasPrefix(w.s, "--split-string=") || strings.HasPrefix(w.s, "-S") && len(w.s) > 2:
			payload := word{}
			switch {
			case strings.HasPrefix(w.s, "--split-string="):
				payload.s = strings.TrimPrefix(w.s, "--split-string=")
				ws = ws[1:]
			case len(w.s) > 2 && w.s[1] == 'S':
				payload.s = w.s[2:]
				ws = ws[1:]
			case len(ws) > 1:
				payload = ws[1]
				ws = ws[2:]
			default:
				ws = ws[1:]
			}
			rest := append([]word{payload}, ws...)
			c.script(Opaque, joinWords(rest))
			return
		case w.s == "--":
			envRuns(c, kind, envPrefix(c, ws[1:]))
			return
		case strings.HasPrefix(w.s, "-") && len(w.s) > 1:
			ws = ws[1:]
		default:
			envRuns(c, kind, envPrefix(c, ws))
			return
		}
	}
	envRuns(c, kind, ws)
}

// envRuns wraps the command env runs; with none, env prints the
// environment, where the host keeps its tokens and keys.
func envRuns(c *call, kind WrapperKind, inner []word) {
	if len(inner) == 0 {
		printsEnvironment(c)
		return
	}
	c.wrap(kind, inner)
}

// printsEnvironment judges env and printenv printing variables: the
// host's secrets go to the model, so no read-only approval covers it.
func printsEnvironment(c *call) {
	c.concern(EffectReads, SeverityMedium, false, printsEnvironmentReason(c.base))
}

// programReadsEnvironment judges a jq or awk program that reads the
// environment ($ENV, env, ENVIRON): a rule for jq or awk approves
// filtering files, not printing the host's secrets, so only a rule naming
// ident covers it.
func programReadsEnvironment(c *call, ident string) {
	printsEnvironment(c)
	c.unvetted(ident, "is read inside the "+c.base+" program and holds the host's secrets")
}

// printsEnvironmentReason is that concern's text, also for declaration
// builtins, which are judged outside a call.
func printsEnvironmentReason(name string) string {
	return name + " prints environment variables, which hold the host's secrets"
}

// dumpsVariables reports a builtin that prints variables with their
// values, exported ones included, as env does: bare set, and declare,
// typeset, export or readonly with -p or with no names (declare -f and
// -F print functions only).
func dumpsVariables(base string, nargs int, flags []string, nops int) bool {
	switch base {
	case "set":
		return nargs == 0
	case "declare", "typeset", "export", "readonly", "local":
		return has(flags, "p") || nops == 0 && !has(flags, "fF")
	}
	return false
}

// jqReadsEnvironment reports a jq program that reads the environment
// through the env builtin or $ENV.
func jqReadsEnvironment(args []word) bool {
	for _, w := range args {
		if w.dynamic || strings.HasPrefix(w.s, "-") {
			continue
		}
		if strings.Contains(w.s, "$ENV") || containsIdent(w.s, "env") {
			return true
		}
	}
	return false
}

// containsIdent reports name in s as a whole identifier, not as part of
// a longer one or a field (env, not environment, $env or .env).
func containsIdent(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		before := j == 0 || !isAwkIdent(s[j-1]) && s[j-1] != '$' && s[j-1] != '.'
		after := end == len(s) || !isAwkIdent(s[end])
		if before && after {
			return true
		}
		i = end
	}
}

// assignsDangerous reports the first variable a builtin that assigns
// from its input (read, mapfile, getopts, printf -v) would set that is
// one of the dangerous environment variables: `read PATH` in a terminal
// session changes every later command as `export PATH=…` would.
func assignsDangerous(names []word) (string, string) {
	for _, w := range names {
		if w.dynamic {
			continue
		}
		if why, bad := dangerousEnv(w.s); bad {
			return w.s, why
		}
	}
	return "", ""
}

// secretEndings end a segment of a variable name that holds a credential
// by convention (GITHUB_TOKEN, PGPASSWORD, AWS_SECRET_ACCESS_KEY), and
// keyKinds are the segments before a KEY that make it one (OPENAI_API_KEY).
// Whole segments keep MAX_TOKENS and TOKENIZER_PATH ordinary.
var (
	secretEndings = [...]string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "CREDENTIAL", "CREDENTIALS"}
	keyKinds      = [...]string{"API", "ACCESS", "PRIVATE", "SECRET", "SIGNING", "ENCRYPTION", "MASTER"}
)

// secretName reports a variable name that says it holds a secret.
func secretName(name string) bool {
	segs := strings.Split(strings.ToUpper(name), "_")
	for i, s := range segs {
		for _, e := range secretEndings {
			if strings.HasSuffix(s, e) {
				return true
			}
		}
		if s == "KEY" && i > 0 {
			for _, k := range keyKinds {
				if segs[i-1] == k {
					return true
				}
			}
		}
	}
	return false
}
