package mcp

import (
	"fmt"
	"path"
)

// Rules decide which of a server's tools run without asking. Patterns are
// path.Match globs over the tool's name as the server spells it
// ("read_*", "get_weather"), or over "<server>/<tool>" when they contain a
// slash ("github/list_*"). Deny wins over Allow; a tool no rule names runs
// without asking only when the server annotates it read-only and
// closed-world (openWorldHint false), or read-only and open-world with
// AllowOpenWorld set, and IgnoreAnnotations is off; a tool annotated both
// read-only and destructive counts as destructive; everything else needs
// confirmation.
type Rules struct {
	Allow []string
	Deny  []string
	// IgnoreAnnotations makes read-only hints count for nothing: use it for
	// servers you do not trust, since annotations are the server's own
	// claims.
	IgnoreAnnotations bool
	// AllowOpenWorld lets this server's read-only tools that reach the
	// open world (the web, other systems: openWorldHint true or absent)
	// run unasked. Annotations alone never grant that: it is the host's
	// trust in this server ("allowOpenWorld": true in a config file).
	AllowOpenWorld bool
}

// validate reports the first malformed pattern.
func (r Rules) validate() error {
	for _, list := range [][]string{r.Allow, r.Deny} {
		for _, p := range list {
			if _, err := path.Match(p, ""); err != nil {
				return fmt.Errorf("mcp: bad tool pattern %q: %w (use path.Match syntax: * ? [a-z])", p, err)
			}
		}
	}
	return nil
}

// match returns the first pattern in list that names the tool.
func match(list []string, server, tool string) (string, bool) {
	for _, p := range list {
		subject := tool
		if containsSlash(p) {
			subject = server + "/" + tool
		}
		if ok, _ := path.Match(p, subject); ok {
			return p, true
		}
	}
	return "", false
}

func containsSlash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return true
		}
	}
	return false
}
