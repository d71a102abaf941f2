package safety

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// SensitivityRule marks the paths a glob pattern matches as sensitive or not.
//
// Patterns are doublestar globs (`*`, `**`, `?`, `[…]`, `{a,b}`) matched
// against slash-separated paths relative to the workspace root, always
// case-insensitively. As in .gitignore, a pattern without a slash matches a
// name at any depth ("*.pem" is "**/*.pem"), a leading slash anchors it to
// the root ("/config/prod.yaml"), a trailing slash means "this directory and
// everything in it", and a pattern that matches a directory covers
// everything beneath it ("secrets" covers "secrets/db/password").
type SensitivityRule struct {
	Pattern string `json:"pattern"`
	// Sensitive: changing a matched file needs a human's approval.
	Sensitive bool `json:"sensitive"`
	// Secret: even reading a matched file needs approval, because its
	// content would leave the machine in the model's context. Implies
	// Sensitive.
	Secret bool `json:"secret,omitempty"`
}

// SensitivityMatch is the verdict for one path.
type SensitivityMatch struct {
	Sensitive bool   // writes need approval
	Secret    bool   // reads need approval too
	Pattern   string // the rule that decided, as written; "" when none matched
	Builtin   bool   // the deciding rule is part of the built-in floor
}

// Reason describes the match for logs and approval prompts.
func (m SensitivityMatch) Reason() string {
	switch {
	case m.Pattern == "":
		return "no sensitivity rule matches"
	case m.Builtin && m.Secret:
		return fmt.Sprintf("may hold secrets (built-in rule %q)", m.Pattern)
	case m.Builtin:
		return fmt.Sprintf("sensitive (built-in rule %q)", m.Pattern)
	case m.Secret:
		return fmt.Sprintf("may hold secrets (rule %q)", m.Pattern)
	case m.Sensitive:
		return fmt.Sprintf("sensitive (rule %q)", m.Pattern)
	default:
		return fmt.Sprintf("not sensitive (rule %q)", m.Pattern)
	}
}

// Sensitivity decides which paths need approval. It layers project rules,
// evaluated in order with the last match winning, on top of a built-in
// floor (BuiltinSensitivityRules) that they can extend but never loosen: a
// rule saying ".env is fine" changes nothing, because the floor still says
// it is sensitive.
//
// The zero value and a nil *Sensitivity apply the floor alone. A Sensitivity
// is immutable and safe for concurrent use.
type Sensitivity struct {
	rules []compiledRule
}

// NewSensitivity validates and compiles project rules. It fails on the
// first malformed pattern, naming it.
func NewSensitivity(rules ...SensitivityRule) (*Sensitivity, error) {
	s := &Sensitivity{rules: make([]compiledRule, 0, len(rules))}
	for i, r := range rules {
		c, err := compileRule(r)
		if err != nil {
			return nil, fmt.Errorf("safety: sensitivity rule %d: %w", i+1, err)
		}
		s.rules = append(s.rules, c)
	}
	return s, nil
}

// Rules returns the project rules in evaluation order (not the floor).
func (s *Sensitivity) Rules() []SensitivityRule {
	if s == nil {
		return nil
	}
	out := make([]SensitivityRule, len(s.rules))
	for i, r := range s.rules {
		out[i] = SensitivityRule{Pattern: r.src, Sensitive: r.sensitive, Secret: r.secret}
	}
	return out
}

// Match judges one path, relative to the workspace root (leading "/" and
// "./" are ignored). Every spelling the file system may treat as the same
// name is judged and the strictest verdict kept: letter case, trailing dots
// and spaces, and ":stream" suffixes (".env::$DATA" is .env on NTFS).
func (s *Sensitivity) Match(p string) SensitivityMatch {
	var floor, project SensitivityMatch
	for _, sp := range sensitivitySpellings(p) {
		comps := strings.Split(sp, "/")
		if floor.Pattern == "" || !floor.Secret {
			rules := builtinRules()
			for i := range rules {
				r := &rules[i]
				if (floor.Pattern == "" || r.secret) && r.matches(sp, comps) {
					secret := r.secret && !publishedCopy(r, sp, comps)
					if !secret && floor.Pattern != "" {
						continue
					}
					floor = SensitivityMatch{Sensitive: true, Secret: secret, Pattern: r.src, Builtin: true}
					if secret {
						break
					}
				}
			}
		}
		if s == nil {
			continue
		}
		for i := len(s.rules) - 1; i >= 0; i-- { // last match wins
			r := &s.rules[i]
			if r.matches(sp, comps) {
				m := SensitivityMatch{Sensitive: r.sensitive, Secret: r.secret, Pattern: r.src}
				if project.Pattern == "" || stricter(m, project) {
					project = m
				}
				break
			}
		}
	}
	switch {
	case floor.Pattern == "":
		return project // a project verdict, or nothing matched
	case stricter(floor, project):
		return floor
	case project.Sensitive:
		return project // at least as strict as the floor: name the project rule
	default:
		return floor
	}
}

// stricter reports whether a demands more approval than b.
func stricter(a, b SensitivityMatch) bool {
	rank := func(m SensitivityMatch) int {
		switch {
		case m.Secret:
			return 2
		case m.Sensitive:
			return 1
		}
		return 0
	}
	return rank(a) > rank(b)
}

// Sensitive reports whether changing the file at p needs approval.
func (s *Sensitivity) Sensitive(p string) bool { return s.Match(p).Sensitive }

// NeedsApproval reports whether the operation op on p needs a human's
// approval: writes (and using it as a working directory) for sensitive
// paths, reads only for secrets.
func (s *Sensitivity) NeedsApproval(p string, op Op) bool {
	m := s.Match(p)
	if op == OpRead {
		return m.Secret
	}
	return m.Sensitive
}

// sensitivitySpellings returns p lower-cased, plus, when different, the
// spelling with each name's ":stream" suffix and trailing dots and spaces
// removed (Windows and NTFS ignore both: ".ENV. " and ".env:x" open .env).
func sensitivitySpellings(p string) []string {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	p = strings.TrimLeft(path.Clean("/"+p), "/")
	if p == "" {
		p = "."
	}
	comps := strings.Split(p, "/")
	changed := false
	for i, c := range comps {
		n := c
		if j := strings.IndexByte(n, ':'); j >= 0 {
			n = n[:j]
		}
		if n != "." && n != ".." {
			n = strings.TrimRight(n, ". ")
		}
		if n == "" {
			n = c // "..." or ":x": nothing sensible remains; keep as is
		}
		if n != c {
			comps[i] = n
			changed = true
		}
	}
	if !changed {
		return []string{p}
	}
	return []string{p, strings.Join(comps, "/")}
}

// ruleKind selects the cheapest correct way to evaluate a pattern. Most
// rules name a file or directory at any depth; those never need a glob
// engine.
type ruleKind uint8

const (
	kindName     ruleKind = iota // literal name at any depth: compare components
	kindPrefix                   // "lit*" at any depth: prefix of a component
	kindSuffix                   // "*lit" at any depth: suffix of a component
	kindNameGlob                 // other glob without "/" at any depth: match components
	kindSeq                      // "**/a/b" of literals: consecutive components
	kindPath                     // anything else: match the path and its ancestors
)

type compiledRule struct {
	src       string // as written, for reasons
	pat       string // normalised, lower-case
	kind      ruleKind
	seq       []string // kindSeq: the literal components
	sensitive bool
	secret    bool
}

func compileRule(r SensitivityRule) (compiledRule, error) {
	p := strings.TrimSpace(r.Pattern)
	if p == "" {
		return compiledRule{}, fmt.Errorf("empty pattern")
	}
	p = strings.ToLower(p)
	anchored := strings.HasPrefix(p, "/")
	p = strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
	if strings.HasSuffix(p, "/") {
		p = strings.TrimRight(p, "/") // a directory covers its contents anyway
	}
	if p == "" {
		return compiledRule{}, fmt.Errorf("pattern %q matches the whole workspace; list the files instead", r.Pattern)
	}
	if !doublestar.ValidatePattern(p) {
		return compiledRule{}, fmt.Errorf("pattern %q is not a valid glob (check brackets and braces)", r.Pattern)
	}
	c := compiledRule{src: r.Pattern, pat: p, sensitive: r.Sensitive || r.Secret, secret: r.Secret}
	switch {
	case strings.HasPrefix(p, "**/") && !strings.Contains(p[3:], "/") && !anchored:
		c.pat = p[3:]
		c.kind = kindNameGlob
	case !strings.Contains(p, "/") && !anchored:
		c.kind = kindNameGlob
	default:
		c.kind = kindPath
	}
	const meta = `*?[{\`
	switch {
	case c.kind == kindNameGlob && !strings.ContainsAny(c.pat, meta):
		c.kind = kindName
	case c.kind == kindNameGlob && strings.HasSuffix(c.pat, "*") && !strings.ContainsAny(c.pat[:len(c.pat)-1], meta):
		c.kind, c.pat = kindPrefix, c.pat[:len(c.pat)-1]
	case c.kind == kindNameGlob && strings.HasPrefix(c.pat, "*") && !strings.ContainsAny(c.pat[1:], meta):
		c.kind, c.pat = kindSuffix, c.pat[1:]
	case c.kind == kindPath && strings.HasPrefix(p, "**/") && !anchored && !strings.ContainsAny(p[3:], meta):
		c.kind, c.seq = kindSeq, strings.Split(p[3:], "/")
	}
	return c, nil
}

// matches reports whether the rule matches sp (a normalised spelling, split
// into comps) or any of its ancestor directories.
func (r *compiledRule) matches(sp string, comps []string) bool {
	switch r.kind {
	case kindName:
		return slices.Contains(comps, r.pat)
	case kindPrefix:
		for _, c := range comps {
			if strings.HasPrefix(c, r.pat) {
				return true
			}
		}
	case kindSuffix:
		for _, c := range comps {
			if strings.HasSuffix(c, r.pat) {
				return true
			}
		}
	case kindNameGlob:
		for _, c := range comps {
			if doublestar.MatchUnvalidated(r.pat, c) {
				return true
			}
		}
	case kindSeq:
		for i := 0; i+len(r.seq) <= len(comps); i++ {
			if slices.Equal(comps[i:i+len(r.seq)], r.seq) {
				return true
			}
		}
	default:
		if doublestar.MatchUnvalidated(r.pat, sp) {
			return true
		}
		for i := len(sp) - 1; i > 0; i-- {
			if sp[i] == '/' && doublestar.MatchUnvalidated(r.pat, sp[:i]) {
				return true
			}
		}
	}
	return false
}

// publishedCopy reports a file that a secret-name rule matches by its own
// name but that is published on purpose: a committed template of a secret
// file (.env.example, .env.sample, .env.template, .env.dist, secrets.yml.example)
// or a public key (id_ed25519.pub, deploy.pem.pub). Reading it needs no
// approval; changing it still does. A secret directory around it (.ssh,
// .aws) keeps it secret.
func publishedCopy(r *compiledRule, sp string, comps []string) bool {
	name := comps[len(comps)-1]
	ext := name[strings.LastIndexByte(name, '.')+1:]
	switch ext {
	case "example", "sample", "template", "dist", "tmpl", "pub":
	default:
		return false
	}
	if len(comps) == 1 {
		return true
	}
	parent := comps[:len(comps)-1]
	return !r.matches(strings.Join(parent, "/"), parent)
}
