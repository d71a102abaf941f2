package terminal

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// Redactor removes the values of the host's secrets from command output.
// The minimal environment keeps them out of commands' environments; they
// can still reach output another way (a .env file, a config a tool
// prints, a process's environment read from /proc), and the model should
// not see them there either.
//
// A host variable is taken for a secret by its name (KEY, SECRET, TOKEN,
// PASSWORD, CREDENTIAL, AUTH, DSN, PRIVATE, SESSION, COOKIE) or by its
// value, whatever its name: a URL with a user and password (or a user
// part alone as long as a key, as DSNs such as Sentry's carry it), a
// libpq-style "password=…", the prefixes of well-known token formats
// (GitHub ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, GitLab glpat-, Slack
// xox?-, AWS AKIA/ASIA, Stripe sk_/rk_, OpenAI-style sk-, Google AIza,
// Hugging Face hf_, npm_, SendGrid SG., JWTs, PEM private keys), or a
// long random-looking word. Values shorter than minSecret are ignored so
// that common words are never blanked. Each occurrence becomes
// "[redacted NAME]".
type Redactor struct {
	r *strings.Replacer
}

const minSecret = 8

var (
	secretName   = lazyregexp.New(`(?i)(KEY|SECRET|TOKEN|PASSW|CREDENTIAL|AUTH|DSN|PRIVATE|SESSION|COOKIE)`)
	tokenPrefix  = lazyregexp.New(`^(gh[pousr]_|github_pat_|glpat-|xox[abprs]-|A(KIA|SIA)[A-Z0-9]{12}|[sr]k_(live|test)_|sk-|AIza|hf_|npm_|SG\.|eyJ[A-Za-z0-9_-]{8,}\.|-----BEGIN)`)
	kvPassword   = lazyregexp.New(`(?i)\b(password|passwd|pwd)=([^\s&;]+)`)
	randomLooker = lazyregexp.New(`^[A-Za-z0-9_+=.-]{24,}$`)
)

// NewRedactor collects the secret values of env ("NAME=value" entries,
// usually os.Environ()).
func NewRedactor(env []string) *Redactor {
	c := secretValues{}
	c.judgeEnv(env)
	return c.redactor()
}

// judgeEnv judges each "NAME=value" entry of env.
func (c secretValues) judgeEnv(env []string) {
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			c.judge(name, value)
		}
	}
}

// secretValues maps each secret value found to the name it is redacted as.
type secretValues map[string]string

func (c secretValues) add(value, name string) {
	if len(value) >= minSecret {
		c[value] = name
	}
}

// judge adds value if the variable name=value looks like a secret.
func (c secretValues) judge(name, value string) {
	if value == "" {
		return
	}
	if u, err := url.Parse(value); err == nil && u.User != nil && u.Host != "" {
		if pw, ok := u.User.Password(); ok && pw != "" {
			c.add(value, name)
			c.add(pw, name)
		} else {
			c.add(u.User.Username(), name)
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(value, -1) {
		c.add(m[2], name)
	}
	switch {
	case name == "PWD" || name == "OLDPWD" || strings.HasPrefix(value, "/"):
		// paths: a socket or a file named for a key is not the key
	case secretName.MatchString(name), tokenPrefix.MatchString(value), looksRandom(value):
		c.add(value, name)
	}
}

func (c secretValues) redactor() *Redactor {
	if len(c) == 0 {
		return &Redactor{}
	}
	values := make([]string, 0, len(c))
	for v := range c {
		values = append(values, v)
	}
	// Longer values first: the replacer tries its pairs in order, so a
	// URL is replaced whole before its password alone.
	slices.SortFunc(values, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, "[redacted "+c[v]+"]")
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// looksRandom reports a long word mixing upper case, lower case and
// digits, as generated keys do and words and paths do not.
func looksRandom(v string) bool {
	if !randomLooker.MatchString(v) {
		return false
	}
	var upper, lower, digit bool
	for _, r := range v {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// Redact returns s with every secret value replaced. A nil or empty
// Redactor returns s.
func (r *Redactor) Redact(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
}
