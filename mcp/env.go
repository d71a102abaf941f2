package mcp

import (
	"runtime"
	"strings"
)

// defaultEnvVars are the variables a stdio server gets from the host by
// default: what a program needs to find its tools and home directory, and
// nothing that could hold a secret (API keys, tokens, cloud credentials).
// They are the variables the official TypeScript client passes.
var defaultEnvVars = func() []string {
	if runtime.GOOS == "windows" {
		return []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
			"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
	}
	return []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
}()

// serverEnv builds a stdio server's environment from the host's (given as
// os.Environ returns it): only defaultEnvVars unless inherit is set, then
// the configured variables, which win over inherited ones. Values that
// start with "()" are left out, as the TypeScript client does, because
// they are shell function definitions, not settings.
func serverEnv(host []string, configured []string, inherit bool) []string {
	keep := map[string]bool{}
	for _, k := range defaultEnvVars {
		keep[k] = true
	}
	out := make([]string, 0, len(defaultEnvVars)+len(configured))
	index := map[string]int{}
	add := func(kv string) {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := index[k]; ok {
			out[i] = kv
			return
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.HasPrefix(v, "()") {
			continue
		}
		if inherit || keep[k] {
			add(kv)
		}
	}
	for _, kv := range configured {
		add(kv)
	}
	return out
}
