package safety

import "strings"

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
	}
	return false
}

// harmlessGoFlags reports GOFLAGS whose every flag the go test model
// knows as harmless: -count=1 -race pass, -toolexec=… and -exec=… do not.
func harmlessGoFlags(v string) bool {
	m := goModels["test"]
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
		a.concern(idx, SeverityHigh, true, "sets "+name+", which "+why)
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
